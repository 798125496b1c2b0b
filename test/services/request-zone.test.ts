// The request's zone (services/request-zone.ts) and reading dates in it (services/dates.ts): the
// Timezone header read leniently, local times around DST switches given one defined answer, and
// dates with an offset or Unix seconds read the same in every zone.
import { describe, expect, it } from 'vitest';
import { isoDate, plainDate, readDateInput, zonedWallToUtc } from '../../src/schemas/dates.js';
import { displayDate } from '../../src/services/trigger-history.js';
import { headerTimeZone, requestTimeZone } from '../../src/services/request-zone.js';

describe('headerTimeZone', () => {
  it('takes the zone name after ";;", in any case, in its canonical spelling', () => {
    expect(headerTimeZone('2011-03-26T15:36:00-07:00;;America/Los_Angeles')).toBe('America/Los_Angeles');
    expect(headerTimeZone(' 2011-03-26T15:36:00-07:00 ;; europe/paris ')).toBe('Europe/Paris');
    expect(headerTimeZone(';;UTC')).toBe('UTC');
    expect(headerTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
  });

  it("uses the date's offset when no name is given, as a fixed offset", () => {
    expect(headerTimeZone('2011-03-26T15:36:00-07:00;;')).toBe('-07:00');
    expect(headerTimeZone('2011-03-26T15:36:00+0530')).toBe('+05:30');
    expect(headerTimeZone('2011-03-26 15:36:00 -0330;;')).toBe('-03:30');
    expect(headerTimeZone('2011-03-26T15:36:00Z;;')).toBe('UTC');
    expect(headerTimeZone('2011-03-26T15:36:00+00:00;;')).toBe('UTC');
  });

  it('ignores what it cannot use: no header, an unknown name (even with a usable offset), a date without an offset, junk', () => {
    for (const h of [
      undefined, ['a', 'b'], '', ';;', '2011-03-26T15:36:00-07:00;;Mars/Olympus', 'Mars/Olympus', '2011-03-26T15:36:00;;', '2011-03-26;;',
      '2011-03-26T15:36:00+25:00;;', '2011-03-26T15:36:00+07:75;;', 'garbage', 'x'.repeat(300), `;;${'A'.repeat(250)}`,
      '2011-03-26T15:36:00-07:00;;America/Los_Angeles, 2011-03-26T15:36:00-07:00;;America/Los_Angeles',
    ]) {
      expect(headerTimeZone(h), String(h)).toBeUndefined();
    }
  });

  it("gives the request's zone: the header's, else the user's, else UTC", () => {
    expect(requestTimeZone('Asia/Tokyo', { timezone: 'Europe/Paris' })).toBe('Asia/Tokyo');
    expect(requestTimeZone(undefined, { timezone: 'Europe/Paris' })).toBe('Europe/Paris');
    expect(requestTimeZone(undefined, null)).toBe('UTC');
    expect(requestTimeZone(undefined)).toBe('UTC');
  });
});

describe('zonedWallToUtc', () => {
  const wall = (s: string) => Date.parse(`${s}Z`);

  it('reads an ordinary local time with the offset it has then', () => {
    expect(zonedWallToUtc(wall('2026-01-15T08:47:00'), 'Asia/Kolkata')).toBe(Date.parse('2026-01-15T03:17:00Z'));
    expect(zonedWallToUtc(wall('2026-07-01T12:00:00'), 'America/Los_Angeles')).toBe(Date.parse('2026-07-01T19:00:00Z'));
    expect(zonedWallToUtc(wall('2026-07-01T12:00:00'), '-03:30')).toBe(Date.parse('2026-07-01T15:30:00Z'));
    expect(zonedWallToUtc(wall('2026-07-01T12:00:00'), 'UTC')).toBe(wall('2026-07-01T12:00:00'));
  });

  it('reads a time that does not exist (clocks set forward) with the offset before the switch', () => {
    // Los Angeles, 2026-03-08 02:00 -> 03:00: 02:30 is 10:30Z, shown as 03:30-07:00.
    const gap = zonedWallToUtc(wall('2026-03-08T02:30:00'), 'America/Los_Angeles');
    expect(gap).toBe(Date.parse('2026-03-08T10:30:00Z'));
    expect(isoDate(gap, 'America/Los_Angeles')).toBe('2026-03-08T03:30:00-07:00');
    // Lord Howe, 2026-10-04 02:00 -> 02:30 (+10:30 -> +11:00): 02:15 is shown as 02:45+11:00.
    const half = zonedWallToUtc(wall('2026-10-04T02:15:00'), 'Australia/Lord_Howe');
    expect(isoDate(half, 'Australia/Lord_Howe')).toBe('2026-10-04T02:45:00+11:00');
  });

  it('reads a time that exists twice (clocks set back) as the first of the two', () => {
    // Los Angeles, 2026-11-01 02:00 PDT -> 01:00 PST: 01:30 is 01:30-07:00 (08:30Z), not 09:30Z.
    const twice = zonedWallToUtc(wall('2026-11-01T01:30:00'), 'America/Los_Angeles');
    expect(twice).toBe(Date.parse('2026-11-01T08:30:00Z'));
    expect(isoDate(twice, 'America/Los_Angeles')).toBe('2026-11-01T01:30:00-07:00');
    // Lord Howe, 2026-04-05 02:00 +11:00 -> 01:30 +10:30: 01:45 is the +11:00 one.
    expect(zonedWallToUtc(wall('2026-04-05T01:45:00'), 'Australia/Lord_Howe')).toBe(Date.parse('2026-04-04T14:45:00Z'));
    // Just outside either switch, the plain answer.
    expect(zonedWallToUtc(wall('2026-11-01T02:00:00'), 'America/Los_Angeles')).toBe(Date.parse('2026-11-01T10:00:00Z'));
    expect(zonedWallToUtc(wall('2026-11-01T00:59:59'), 'America/Los_Angeles')).toBe(Date.parse('2026-11-01T07:59:59Z'));
  });
});

describe('readDateInput in a zone', () => {
  const LA = 'America/Los_Angeles';

  it('reads the forms without an offset in the zone: ISO local date-times, a date alone, the Ruby style without a zone', () => {
    expect(readDateInput('2025-11-22T21:28:00', LA)).toBe(Date.parse('2025-11-23T05:28:00Z'));
    expect(readDateInput('2025-11-22T21:28', LA)).toBe(Date.parse('2025-11-23T05:28:00Z'));
    expect(readDateInput(' 2025-11-22T21:28:00.250 ', LA)).toBe(Date.parse('2025-11-23T05:28:00.250Z'));
    expect(readDateInput('2025-11-22 21:28:00', LA)).toBe(Date.parse('2025-11-23T05:28:00Z'));
    expect(readDateInput('2025-11-22', LA)).toBe(Date.parse('2025-11-22T08:00:00Z'));
    // UTC, the default: as Date.parse read them on a UTC host.
    expect(readDateInput('2025-11-22T21:28:00')).toBe(Date.parse('2025-11-22T21:28:00Z'));
    expect(readDateInput('2025-11-22')).toBe(Date.parse('2025-11-22'));
  });

  it('reads dates with an offset or Z, and Unix seconds, the same in every zone', () => {
    for (const v of ['2025-11-22T21:28:00Z', '2025-11-22T21:28:00+02:00', '2025-11-22 21:28:00 -0700', '1763846880', 1763846880.5]) {
      expect(readDateInput(v, LA), String(v)).toBe(readDateInput(v));
      expect(readDateInput(v, '+05:30'), String(v)).toBe(readDateInput(v));
    }
  });

  it('refuses what it refused before, in any zone', () => {
    for (const v of ['2025-13-01T00:00:00', '2025-11-22Tnonsense', 'yesterday']) expect(readDateInput(v, LA), v).toBe('not a date');
    expect(readDateInput('0001-01-01T00:00:00', LA)).toBe('out of range');
    expect(readDateInput('9999-12-31T23:00:00', 'Asia/Tokyo')).toBe('out of range');
  });
});

describe('dates shown in a fixed offset', () => {
  it('isoDate, plainDate and display_date', () => {
    const at = Date.parse('2025-11-23T05:28:00Z');
    expect(isoDate(at, '-03:30')).toBe('2025-11-23T01:58:00-03:30');
    expect(isoDate(at, '+05:45')).toBe('2025-11-23T11:13:00+05:45');
    expect(plainDate(at, '-03:30')).toBe('2025-11-23 01:58:00');
    expect(plainDate(at, 'America/Los_Angeles')).toBe('2025-11-22 21:28:00');
    expect(plainDate(at)).toBe('2025-11-23 05:28:00');
    expect(displayDate(at, '-03:30')).toBe('Nov 23, 1:58am');
    expect(displayDate(at, 'America/Los_Angeles')).toBe('Nov 22, 9:28pm');
  });
});
