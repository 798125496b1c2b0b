// location/update point parsing: the fast path for ISO-8601 dates reads every date exactly as the
// general parser (parseDateInput) does, and the lenient forms real clients send still parse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateInput } from '../../src/schemas/dates.js';
import { parseBatch, parsePoint, type LocationPoint } from '../../src/schemas/location-points.js';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const at = (date: unknown) => {
  const p = parsePoint({ date, location: { position: { latitude: 45.5, longitude: -122.6 } } }, NOW);
  return typeof p === 'string' ? p : p.at;
};
const general = (date: unknown) => {
  try {
    return parseDateInput(date, 'date');
  } catch (err) {
    return (err as Error).message.includes('years') ? 'date must be a date between the years 0001 and 9999' : 'date must be ISO-8601 or Unix seconds';
  }
};

describe('parsePoint dates', () => {
  it('reads each form like parseDateInput', () => {
    for (const d of [
      '2024-05-31T10:00:00Z', '2024-05-31T10:00:00.123Z', '2024-05-31T10:00:00-07:00', '2024-05-31T10:00:00.5+05:30',
      '2024-05-31T10:00', ' 2024-05-31T10:00:00Z', '2024-05-31T10:00:00Z ', '2024-05-31 10:00:00 -0700', '1717149600',
      1717149600, 1717149600.25, '2024-13-31T10:00:00Z', '2024-05-31Tnonsense', 'yesterday',
      // The edge of the accepted years (0001-9999, a day in), and beyond it.
      '0000-01-01T00:00:00Z', '0001-01-01T23:59:59Z', '0001-01-02T00:00:00Z', -62135510400, -62135510401, -1e14, '-1e21', -1e21,
    ]) {
      expect(at(d), String(d)).toEqual(general(d));
    }
  });

  it("reads a date without an offset in the request's zone, and one with an offset or Z the same in every zone", () => {
    const inZone = (date: unknown, zone?: string) => {
      const p = parsePoint({ date, location: { position: { latitude: 45.5, longitude: -122.6 } } }, NOW, zone);
      return typeof p === 'string' ? p : p.at;
    };
    const LA = 'America/Los_Angeles';
    expect(inZone('2024-05-31T10:00:00', LA)).toBe(Date.parse('2024-05-31T17:00:00Z'));
    expect(inZone('2024-05-31T10:00', '+05:30')).toBe(Date.parse('2024-05-31T04:30:00Z'));
    expect(inZone('2024-05-31 10:00:00', LA)).toBe(Date.parse('2024-05-31T17:00:00Z'));
    expect(inZone('2024-05-31T10:00:00', LA)).toBe(parseDateInput('2024-05-31T10:00:00', 'date', LA));
    for (const d of [
      '2024-05-31T10:00:00Z', '2024-05-31T10:00:00.123Z', '2024-05-31T10:00:00z', '2024-05-31T10:00:00-07:00', '2024-05-31T10:00:00.5+05:30',
      '2024-05-31T10:00:00-0700', '2024-05-31T10:00:00+02', '2024-05-31 10:00:00 -0700', '1717149600', 1717149600, '2024-05-31Tnonsense',
    ]) {
      expect(inZone(d, LA), String(d)).toBe(inZone(d));
    }
    const iso = fc
      .record({
        t: fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2024-05-31T00:00:00Z') }),
        ms: fc.boolean(),
        zone: fc.constantFrom('Z', '+00:00', '-07:00', '+05:30', '+12:45', '-0330', '+09'),
      })
      .map(({ t, ms, zone }) => new Date(t).toISOString().slice(0, ms ? 23 : 19) + zone);
    fc.assert(fc.property(iso, fc.constantFrom(LA, 'Asia/Tokyo', '-03:30'), (d, zone) => inZone(d, zone) === inZone(d)));
  });

  it('agrees with parseDateInput on random ISO-8601 strings', () => {
    const iso = fc
      .record({
        t: fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2024-05-31T00:00:00Z') }),
        ms: fc.boolean(),
        zone: fc.constantFrom('Z', '+00:00', '-07:00', '+05:30', '+12:45', ''),
        pad: fc.constantFrom('', ' ', '\t'),
        front: fc.boolean(),
      })
      .map(({ t, ms, zone, pad, front }) => {
        const s = new Date(t).toISOString().slice(0, ms ? 23 : 19) + zone;
        return front ? pad + s : s + pad;
      });
    fc.assert(fc.property(iso, (d) => at(d) === general(d)));
  });

  it('reads UTC dates with any digits in each field as the general parser does (the character-code reader)', () => {
    // Month 00-19, day 00-39, hour 00-29...: out-of-range fields, a day past the month's end (which
    // rolls over), years below 100 (which Date.UTC would read as 19xx) and non-digits all included.
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const utc = fc
      .record({
        y: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 150 })).map((n) => String(n).padStart(4, '0')),
        mo: two(19), d: two(39), h: two(29), mi: two(69), s: two(69),
        ms: fc.option(fc.integer({ min: 0, max: 999 }).map((n) => String(n).padStart(3, '0'))),
        junk: fc.option(fc.integer({ min: 0, max: 23 })),
      })
      .map(({ y, mo, d, h, mi, s, ms, junk }) => {
        const text = `${y}-${mo}-${d}T${h}:${mi}:${s}${ms === null ? '' : `.${ms}`}Z`;
        return junk === null || junk >= text.length ? text : `${text.slice(0, junk)}x${text.slice(junk + 1)}`;
      });
    // Any date may come: "now" is put past the last one, so that no date is refused as future.
    const atAnyTime = (date: string) => {
      const p = parsePoint({ date, location: { position: { latitude: 45.5, longitude: -122.6 } } }, 8.64e15);
      return typeof p === 'string' ? p : p.at;
    };
    fc.assert(fc.property(utc, (d) => atAnyTime(d) === general(d)), { numRuns: 5000 });
    for (const d of ['2023-02-30T10:00:00Z', '2024-02-29T23:59:59.999Z', '0099-12-31T00:00:00Z', '0100-01-02T00:00:00Z', '2024-05-31T24:00:00Z']) {
      expect(atAnyTime(d), d).toEqual(general(d));
    }
  });

  it('keeps the optional numbers of the position and leaves out what is missing or not a number', () => {
    const p = parsePoint({
      date: '2024-05-31T10:00:00Z',
      location: { position: { latitude: '45.5', longitude: -122.6, speed: '12', altitude: null, heading: 'north', vertical_accuracy: 3 } },
    }, NOW) as LocationPoint;
    expect(p).toMatchObject({ latitude: 45.5, speed: 12, vertical_accuracy: 3, accuracy: 0, raw: null });
    expect(p).not.toHaveProperty('altitude');
    expect(p).not.toHaveProperty('heading');
  });

  it('names every bad point of a batch', () => {
    const res = parseBatch([{ date: 'soon', location: {} }, { date: '2024-05-31T10:00:00Z' }], NOW);
    expect(res).toEqual({ error: '2 of 2 data points are invalid: point 0: date must be ISO-8601 or Unix seconds; point 1: location is required' });
  });
});
