// Dates in and out (reference §1): input is Unix seconds or ISO-8601; output is ISO-8601 with the
// offset of the user's timezone, paired with a `_ts` Unix-seconds field.
import { apiError } from '../errors.js';

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    offsetFormatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}

// Intl's formatToParts costs a few µs per call, several times per payload and per dated row.
const HOUR_MS = 3_600_000;
const HOURS_PER_ZONE = 4_096;
const CACHE_FROM = Date.UTC(1971, 0, 1);
const CACHE_TO = Date.UTC(2200, 0, 1);
/** zone → UTC hour index → offset minutes; only zones that formatted once (valid) get here. */
const offsetCache = new Map<string, Map<number, number>>();

/** Offset of `timeZone` from UTC at `at`, in minutes (east positive). */
export function offsetMinutes(timeZone: string, at: number): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  // Outside these years leave Intl alone: LMT offsets with seconds and odd year formats.
  if (!(at >= CACHE_FROM && at < CACHE_TO)) return intlOffsetMinutes(timeZone, at);
  const hour = Math.floor(at / HOUR_MS);
  let zone = offsetCache.get(timeZone);
  const hit = zone?.get(hour);
  if (hit !== undefined) return hit;
  // The offset at both ends of the UTC hour: equal means no change inside it (no zone changes
  // twice within an hour), so every instant of the hour has it; else this hour holds a transition
  // and is computed exactly, every time.
  const start = intlOffsetMinutes(timeZone, hour * HOUR_MS);
  if (start !== intlOffsetMinutes(timeZone, hour * HOUR_MS + HOUR_MS - 1)) return intlOffsetMinutes(timeZone, at);
  if (!zone) offsetCache.set(timeZone, (zone = new Map()));
  if (zone.size >= HOURS_PER_ZONE) zone.clear();
  zone.set(hour, start);
  return start;
}

function intlOffsetMinutes(timeZone: string, at: number): number {
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60_000);
}

/** `+hhmm` / `-hhmm`, the user record's timezone_offset. */
export function offsetString(timeZone: string, at: number, separator = ''): string {
  return formatOffset(offsetMinutes(timeZone, at), separator);
}

function formatOffset(m: number, separator: string): string {
  const sign = m < 0 ? '-' : '+';
  const abs = Math.abs(m);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${separator}${String(abs % 60).padStart(2, '0')}`;
}

/** ISO-8601 with the zone's offset, e.g. 2011-03-26T15:36:00-07:00. */
export function isoDate(at: number, timeZone = 'UTC'): string {
  const m = offsetMinutes(timeZone, at);
  const local = new Date(Math.floor(at / 1000) * 1000 + m * 60_000).toISOString().slice(0, 19);
  return `${local}${formatOffset(m, ':')}`;
}

export const unixSeconds = (at: number) => Math.floor(at / 1000);

/** A date parameter: Unix seconds (number or digit string) or an ISO-8601 string. */
export function parseDateInput(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1000);
  if (typeof value === 'string') {
    const s = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
    // Ruby Time#to_s style "2011-03-26 15:36:00 -0700" is sent by old clients.
    const normalised = s.replace(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d(:\d\d)?) ?([+-]\d\d):?(\d\d)$/, '$1T$2$4:$5');
    const ms = Date.parse(normalised);
    if (Number.isFinite(ms)) return ms;
  }
  throw apiError('invalid_input', `${field} must be a Unix timestamp or an ISO-8601 date`);
}

/** `HH:MM[:SS]` normalised to `HH:MM:SS`. */
export function normaliseTime(value: string): string {
  const [h, m, s = '00'] = value.split(':');
  return `${h.padStart(2, '0')}:${m}:${s}`;
}
