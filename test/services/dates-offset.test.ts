// offsetMinutes caches a zone's offset per UTC hour: these pin exact answers on both sides of DST
// switches, including a switch in the middle of a UTC hour (Lord Howe, 30-minute DST), queried in
// an order that would leave a naive hour cache with the wrong offset.
import { describe, expect, it } from 'vitest';
import { isoDate, offsetMinutes, offsetString } from '../../src/schemas/dates.js';

/** The uncached computation, straight from Intl. */
function reference(timeZone: string, at: number): number {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  return Math.round((Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - Math.floor(at / 1000) * 1000) / 60_000);
}

const MIN = 60_000;

describe('offsetMinutes around DST switches', () => {
  it('America/New_York springs forward at 2026-03-08T07:00Z and falls back at 2026-11-01T06:00Z', () => {
    const spring = Date.UTC(2026, 2, 8, 7);
    expect(offsetMinutes('America/New_York', spring - 1)).toBe(-300);
    expect(offsetMinutes('America/New_York', spring)).toBe(-240);
    expect(isoDate(spring - 1000, 'America/New_York')).toBe('2026-03-08T01:59:59-05:00');
    expect(isoDate(spring, 'America/New_York')).toBe('2026-03-08T03:00:00-04:00');
    const fall = Date.UTC(2026, 10, 1, 6);
    expect(offsetString('America/New_York', fall - 1)).toBe('-0400');
    expect(offsetString('America/New_York', fall)).toBe('-0500');
    // Asked again (now from the cache) the answers are the same.
    expect(offsetMinutes('America/New_York', spring - 1)).toBe(-300);
    expect(offsetMinutes('America/New_York', fall)).toBe(-300);
  });

  it('Asia/Kolkata is +05:30 all year', () => {
    for (const at of [Date.UTC(2026, 0, 15, 3, 17), Date.UTC(2026, 6, 1, 23, 59, 59)]) {
      expect(offsetMinutes('Asia/Kolkata', at)).toBe(330);
      expect(offsetString('Asia/Kolkata', at, ':')).toBe('+05:30');
    }
    expect(isoDate(Date.UTC(2026, 0, 15, 3, 17), 'Asia/Kolkata')).toBe('2026-01-15T08:47:00+05:30');
  });

  it('Pacific/Chatham goes from +13:45 to +12:45 at 2026-04-04T14:00Z', () => {
    const end = Date.UTC(2026, 3, 4, 14);
    expect(offsetString('Pacific/Chatham', end - 1, ':')).toBe('+13:45');
    expect(offsetString('Pacific/Chatham', end, ':')).toBe('+12:45');
    expect(isoDate(end, 'Pacific/Chatham')).toBe('2026-04-05T02:45:00+12:45');
  });

  it('a switch in the middle of a UTC hour (Lord Howe, 2026-10-03T15:30Z) is exact on every minute of that hour', () => {
    const hour = Date.UTC(2026, 9, 3, 15);
    // The hour's start first, as a cache keyed by the hour alone would then answer for all of it.
    expect(offsetMinutes('Australia/Lord_Howe', hour)).toBe(630);
    expect(offsetMinutes('Australia/Lord_Howe', hour + 45 * MIN)).toBe(660);
    for (let t = hour - 5 * MIN; t <= hour + 65 * MIN; t += MIN) {
      for (const at of [t, t + 999, t - 1]) expect(offsetMinutes('Australia/Lord_Howe', at)).toBe(reference('Australia/Lord_Howe', at));
    }
  });

  it('UTC is 0 without asking Intl, and a bad zone still throws', () => {
    expect(offsetMinutes('UTC', Date.now())).toBe(0);
    expect(isoDate(Date.UTC(2026, 0, 1), 'Etc/UTC')).toBe('2026-01-01T00:00:00+00:00');
    expect(() => offsetMinutes('Mars/Olympus_Mons', Date.now())).toThrow(RangeError);
  });

  it('matches Intl over a year of instants in zones with odd offsets', () => {
    const zones = ['Pacific/Chatham', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Africa/Casablanca', 'America/St_Johns', 'Europe/Dublin'];
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (const z of zones) {
      for (let i = 0; i < 400; i++) {
        const at = Date.UTC(2025, 0, 1) + Math.floor(rnd() * 366 * 86_400_000);
        expect(offsetMinutes(z, at)).toBe(reference(z, at));
      }
    }
  });
});

describe('isoDate at the ends of the accepted years', () => {
  // Date.UTC reads years 0-99 as 1900-1999: a date in year 1 in New York came out as
  // "1901-01-01T19:04:00+16655035:04" before the offset was computed with setUTCFullYear.
  it.each([
    ['0001-01-02T00:00:00Z', 'America/New_York', '0001-01-01T19:04:00-04:56'],
    ['0099-06-01T12:00:00Z', 'Asia/Tokyo', '0099-06-01T21:19:00+09:19'],
    ['0100-03-01T00:00:00Z', 'UTC', '0100-03-01T00:00:00+00:00'],
    ['9999-12-30T12:00:00Z', 'Pacific/Kiritimati', '9999-12-31T02:00:00+14:00'],
  ])('%s in %s is %s', (date, zone, expected) => {
    expect(isoDate(Date.parse(date), zone)).toBe(expected);
  });
});
