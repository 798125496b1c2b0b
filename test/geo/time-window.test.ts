import { describe, expect, it } from 'vitest';
import {
  dailyWindowOf,
  inDailyWindow,
  mergeWindows,
  parseTimeOfDay,
  secondsOfDay,
  windowGate,
} from '../../src/geo/time-window.js';

const H = 3600;

describe('time of day', () => {
  it('parses HH:MM:SS and HH:MM, refuses junk', () => {
    expect(parseTimeOfDay('00:00:00')).toBe(0);
    expect(parseTimeOfDay('08:30')).toBe(8 * H + 30 * 60);
    expect(parseTimeOfDay('23:59:59')).toBe(86_399);
    expect(parseTimeOfDay('24:00:00')).toBe(0);
    expect(() => parseTimeOfDay('25:00')).toThrow(RangeError);
    expect(() => parseTimeOfDay('noon')).toThrow(RangeError);
  });

  it('reads the local time in an IANA zone, DST included', () => {
    // 2024-01-15T12:00Z is 07:00 in New York (EST), 2024-07-15T12:00Z is 08:00 (EDT).
    expect(secondsOfDay(Date.UTC(2024, 0, 15, 12), 'America/New_York')).toBe(7 * H);
    expect(secondsOfDay(Date.UTC(2024, 6, 15, 12), 'America/New_York')).toBe(8 * H);
    expect(secondsOfDay(Date.UTC(2024, 6, 15, 12, 0, 5), 'Asia/Kolkata')).toBe(17 * H + 30 * 60 + 5);
    expect(secondsOfDay(Date.UTC(2024, 6, 15, 0), 'UTC')).toBe(0);
    // Unknown zones read as UTC rather than crash the engine.
    expect(secondsOfDay(Date.UTC(2024, 6, 15, 3), 'Mars/Olympus')).toBe(3 * H);
  });
});

describe('daily windows', () => {
  it('plain, wrapping over midnight, and all-day', () => {
    const day = dailyWindowOf({ time_from: '09:00:00', time_to: '17:00:00' })!;
    expect(inDailyWindow(9 * H, day)).toBe(true);
    expect(inDailyWindow(17 * H, day)).toBe(true);
    expect(inDailyWindow(17 * H + 1, day)).toBe(false);
    const night = dailyWindowOf({ time_from: '22:00:00', time_to: '06:00:00' })!;
    expect(inDailyWindow(23 * H, night)).toBe(true);
    expect(inDailyWindow(3 * H, night)).toBe(true);
    expect(inDailyWindow(12 * H, night)).toBe(false);
    expect(dailyWindowOf({ time_from: '00:00:00', time_to: '00:00:00' })).toBeNull();
    expect(dailyWindowOf({})).toBeNull();
    expect(dailyWindowOf({ time_from: '18:00:00' })).toEqual({ from: 18 * H, to: 86_399 });
  });
});

describe('windowGate', () => {
  const tz = 'America/New_York';
  it('date bounds are inclusive', () => {
    const spec = mergeWindows({ date_from: 1000, date_to: 2000 });
    expect(windowGate(spec, 999, tz)).toBe('date_window');
    expect(windowGate(spec, 1000, tz)).toBeNull();
    expect(windowGate(spec, 2000, tz)).toBeNull();
    expect(windowGate(spec, 2001, tz)).toBe('date_window');
  });

  it('evaluates the daily window in the user timezone', () => {
    const spec = mergeWindows({ time_from: '08:00:00', time_to: '10:00:00' });
    // 13:00Z = 09:00 EDT: open in New York, closed in UTC.
    const at = Date.UTC(2024, 6, 15, 13);
    expect(windowGate(spec, at, tz)).toBeNull();
    expect(windowGate(spec, at, 'UTC')).toBe('time_window');
  });

  it('merges trigger and place windows: both must pass', () => {
    const jan = Date.UTC(2024, 0, 1);
    const dec = Date.UTC(2024, 11, 31);
    const spec = mergeWindows(
      { date_from: 0, date_to: dec, time_from: '08:00:00', time_to: '18:00:00' },
      { date_from: jan, time_from: '12:00:00', time_to: '20:00:00' },
    );
    expect(spec).toEqual({ dateFrom: jan, dateTo: dec, daily: [{ from: 8 * H, to: 18 * H }, { from: 12 * H, to: 20 * H }] });
    expect(windowGate(spec, Date.UTC(2024, 5, 1, 13), 'UTC')).toBeNull();
    expect(windowGate(spec, Date.UTC(2024, 5, 1, 10), 'UTC')).toBe('time_window');
    expect(windowGate(spec, Date.UTC(2024, 5, 1, 19), 'UTC')).toBe('time_window');
    expect(windowGate(spec, Date.UTC(2023, 5, 1, 13), 'UTC')).toBe('date_window');
  });

  it('no spec, no gate', () => {
    expect(windowGate(null, 0, tz)).toBeNull();
    expect(mergeWindows({}, {})).toBeNull();
  });
});
