// Dates in and out (reference §1): input is Unix seconds or ISO-8601, a date without an offset read
// in the request's zone (services/request-zone.ts); output is ISO-8601 with the offset of that zone,
// paired with a `_ts` Unix-seconds field.
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

/**
 * The name a time zone is stored under, or undefined when Intl does not know it. Intl accepts any
 * case ("europe/paris"), so its spelling replaces the one sent when they differ only in case. An
 * alias already spelt like a zone name (each part capitalised: "Asia/Kolkata", "US/Eastern") is
 * kept as sent, since Node 20's ICU would answer an older or other name ("Asia/Calcutta",
 * "America/New_York"); one that is not ("asia/kolkata") gets Intl's name. Not cached: each distinct
 * spelling sent would otherwise stay in memory.
 */
export function canonicalTimeZone(tz: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  if (resolved.toLowerCase() === tz.toLowerCase()) return resolved;
  return tz.split('/').every((part) => /^[A-Z]/.test(part)) ? tz : resolved;
}

// Intl's formatToParts costs a few µs per call, several times per payload and per dated row.
const HOUR_MS = 3_600_000;
const HOURS_PER_ZONE = 4_096;
const CACHE_FROM = Date.UTC(1971, 0, 1);
const CACHE_TO = Date.UTC(2200, 0, 1);
/** zone → UTC hour index → offset minutes; only zones that formatted once (valid) get here. */
const offsetCache = new Map<string, Map<number, number>>();

/**
 * A fixed offset used as a zone (`+05:30`, `-07:00`): what a `Timezone` header gives that names
 * no zone (services/request-zone.ts). Node 20's Intl knows no such zone, so it never reaches Intl.
 */
export const isFixedOffset = (timeZone: string) => timeZone.charCodeAt(0) === 43 /* + */ || timeZone.charCodeAt(0) === 45 /* - */;

function fixedOffsetMinutes(timeZone: string): number {
  const m = +timeZone.slice(1, 3) * 60 + +timeZone.slice(4, 6);
  return timeZone.charCodeAt(0) === 45 ? -m : m;
}

/** Offset of `timeZone` (an IANA name, or a fixed offset `±hh:mm`) from UTC at `at`, in minutes (east positive). */
export function offsetMinutes(timeZone: string, at: number): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  if (isFixedOffset(timeZone)) return fixedOffsetMinutes(timeZone);
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
  // setUTCFullYear, not Date.UTC's year: Date.UTC reads years 0-99 as 1900-1999 (a date in year 1
  // came out as 1901 with an offset of millions of hours).
  const local = new Date(Date.UTC(2000, 0, 1, +parts.hour, +parts.minute, +parts.second));
  local.setUTCFullYear(+parts.year, +parts.month - 1, +parts.day);
  return Math.round((local.getTime() - Math.floor(at / 1000) * 1000) / 60_000);
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

/** `YYYY-mm-dd hh:mm:ss` in the zone, without an offset: layer/subscribe's date_subscribed (reference §1). */
export function plainDate(at: number, timeZone = 'UTC'): string {
  return isoDate(at, timeZone).slice(0, 19).replace('T', ' ');
}

export const unixSeconds = (at: number) => Math.floor(at / 1000);

/**
 * The dates accepted as input (epoch ms): years 0001 to 9999, a day in from either end so that the
 * local time of any zone still has a four-digit year. A stored date beyond them broke every read
 * that shows it (isoDate: toISOString throws past ±275,760 years, and writes a sign and six digits
 * past 9999): a point or a place window dated 1e21 made location/last, location/history,
 * trigger/history, layer/info and layer/users answer 500 from then on.
 */
const MIN_DATE_MS = -62_135_596_800_000 + 86_400_000;
const MAX_DATE_MS = 253_402_300_799_999 - 86_400_000;

/** The same range as Unix seconds, for schemas. */
export const MIN_DATE_S = Math.ceil(MIN_DATE_MS / 1000);
export const MAX_DATE_S = Math.floor(MAX_DATE_MS / 1000);

/** Whether `ms` is a date the service accepts (see MIN_DATE_MS). */
export const inDateRange = (ms: number) => ms >= MIN_DATE_MS && ms <= MAX_DATE_MS;

/** What a date out of range is told (after the field's name). */
export const OUT_OF_RANGE = 'must be a date between the years 0001 and 9999';

/**
 * `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.mmmZ` read by character codes: the form phones
 * send nearly always, read in a fraction of Date.parse's time (2.9 % of the shard's batch profile).
 * The same value as Date.parse (a day past the month's end rolls over there too); NaN for anything else,
 * which then takes the general path.
 */
export function utcIsoMs(s: string): number {
  const n = s.length;
  if ((n !== 20 && n !== 24) || s.charCodeAt(n - 1) !== 90 /* Z */) return NaN;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  let ms = 0;
  if (n === 24) {
    if (s.charCodeAt(19) !== 46 /* . */) return NaN;
    ms = digits(s, 20, 3);
  }
  if (!(year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59 && ms >= 0)) return NaN;
  return daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), a day past the
 * month's end counting on into the next as in Date.parse; twice as fast as Date.UTC here.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The number written by `count` ASCII digits from `at`; NaN when one is not a digit. */
function digits(s: string, at: number, count: number): number {
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
}

const DAY_MS = 86_400_000;

/**
 * The instant at which the clocks of `timeZone` show `wall` (a local date-time written as if it were
 * UTC, epoch ms). Around DST switches, as Temporal's "compatible" and java.time do: a time that
 * exists twice (clocks set back) is the first of the two, the earlier offset (01:30 on the night
 * Los Angeles falls back is 01:30-07:00); a time that does not exist (clocks set forward) is read
 * with the offset before the switch, so it lands as far after the gap as it was into it (02:30 on
 * the night Los Angeles springs forward is 03:30-07:00).
 */
export function zonedWallToUtc(wall: number, timeZone: string): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return wall;
  // No zone changes its offset twice within two days: the offsets a day either side are the candidates.
  const before = offsetMinutes(timeZone, wall - DAY_MS);
  const after = offsetMinutes(timeZone, wall + DAY_MS);
  const early = wall - before * 60_000;
  const late = wall - after * 60_000;
  const earlyHolds = offsetMinutes(timeZone, early) === before;
  const lateHolds = offsetMinutes(timeZone, late) === after;
  if (earlyHolds && lateHolds) return Math.min(early, late);
  if (lateHolds) return late;
  return early; // holds, or the time falls in a gap: the offset before the switch
}

/**
 * A date without an offset: `YYYY-MM-DD` (midnight), ISO `YYYY-MM-DDThh:mm[:ss[.fff]]` or the Ruby
 * style without a zone `YYYY-MM-DD hh:mm[:ss]`. Reference §1: read in the request's zone.
 */
const LOCAL_DATE = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?$/;

/** A local date-time read in `timeZone`: Date.parse's reading of the fields (its checks, its rollover), then the zone's offset. */
function localDateMs(date: string, time: string | undefined, timeZone: string): number {
  const wall = Date.parse(`${date}T${time ?? '00:00'}Z`);
  if (!inDateRange(wall)) return wall; // refused anyway; Intl is not asked about year 275760
  return zonedWallToUtc(wall, timeZone);
}

/**
 * A date input read (Unix seconds as a number or digit string, or ISO-8601): epoch ms, or why not.
 * A date without an offset is read in `timeZone` (the request's, services/request-zone.ts); one
 * with an offset or `Z`, and Unix seconds, are the same instant in every zone.
 */
export function readDateInput(value: unknown, timeZone = 'UTC'): number | 'not a date' | 'out of range' {
  let ms = NaN;
  if (typeof value === 'number') ms = Math.round(value * 1000);
  else if (typeof value === 'string') {
    const s = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(s)) ms = Math.round(Number(s) * 1000);
    else {
      const local = LOCAL_DATE.exec(s);
      if (local) ms = localDateMs(local[1]!, local[2], timeZone);
      else {
        // Ruby Time#to_s style "2011-03-26 15:36:00 -0700" is sent by old clients.
        const normalised = s.replace(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d(:\d\d)?) ?([+-]\d\d):?(\d\d)$/, '$1T$2$4:$5');
        ms = Date.parse(normalised);
      }
    }
  }
  if (!Number.isFinite(ms)) return 'not a date';
  return inDateRange(ms) ? ms : 'out of range';
}

/** A date parameter (see readDateInput), read in `timeZone` when it has no offset; a 400 naming `field` when it is not one. */
export function parseDateInput(value: unknown, field: string, timeZone = 'UTC'): number {
  const ms = readDateInput(value, timeZone);
  if (typeof ms === 'number') return ms;
  throw apiError('invalid_input', ms === 'out of range' ? `${field} ${OUT_OF_RANGE}` : `${field} must be a Unix timestamp or an ISO-8601 date`);
}

/** `HH:MM[:SS]` normalised to `HH:MM:SS`. */
export function normaliseTime(value: string): string {
  const [h, m, s = '00'] = value.split(':');
  return `${h.padStart(2, '0')}:${m}:${s}`;
}

/** A validity window is over once its end date has passed; one that has not started yet is still active. */
export function windowOver(w: { date_to?: number }, now: number): boolean {
  return w.date_to !== undefined && w.date_to < now;
}
