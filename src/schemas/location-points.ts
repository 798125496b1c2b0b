// Parsing location/update points (reference §6.11), leniently as real clients need: ISO-8601, Unix
// seconds (number or string) or Ruby-style dates; missing `client`; `raw` null; `raw` or `client`
// as `[]` (PHP's empty hash). Hand-written rather than schema-driven because this is the hot path
// and a bad point must be named by index.
import { inDateRange, OUT_OF_RANGE, readDateInput, utcIsoMs } from './dates.js';
import { decimalNumber } from './decimal.js';
import { unstorableField } from './field-names.js';
import { parseJsonText } from './json-text.js';

export interface LocationPoint {
  uuid?: string;
  /** Device time, epoch ms. */
  at: number;
  latitude: number;
  longitude: number;
  /** Metres; 0 when the client sent none. */
  accuracy: number;
  speed?: number;
  altitude?: number;
  heading?: number;
  vertical_accuracy?: number;
  raw: Record<string, unknown> | null;
  client?: Record<string, unknown>;
}

export const MAX_POINTS_PER_REQUEST = 1000;
/** Points more than this far in the future are refused: they would freeze the user's machines. */
export const MAX_FUTURE_SKEW_MS = 24 * 3600_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmptyList = (v: unknown) => Array.isArray(v) && v.length === 0;

/** A finite JSON number, or plain decimal text (not " ", "0x1A" or " 45 ": schemas/decimal.ts). */
function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  return typeof v === 'string' ? decimalNumber(v) : undefined;
}

/** ISO-8601 with a `T`, no surrounding space: what parseDateInput hands to Date.parse unchanged. */
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/**
 * Date.parse reads a date without an offset in the process's zone: for a UTC request that is right
 * only where the process runs on UTC (as deployed); elsewhere such a date goes the general way.
 */
const LOCAL_IS_UTC = new Date(2000, 0, 1).getTimezoneOffset() === 0 && new Date(2000, 6, 1).getTimezoneOffset() === 0;

/**
 * Whether an ISO date-time (ISO_DATE, no trailing space) ends with its zone: `Z`, or an offset
 * `±hh:mm`, `±hhmm` or `±hh` after the time (the date's own '-' are before index 10).
 */
function namesZone(s: string): boolean {
  const n = s.length;
  const last = s.charCodeAt(n - 1);
  if (last === 90 /* Z */ || last === 122 /* z */) return true;
  return isSign(s, n - 6) || isSign(s, n - 5) || isSign(s, n - 3);
}

const isSign = (s: string, i: number) => i > 10 && (s.charCodeAt(i) === 43 /* + */ || s.charCodeAt(i) === 45 /* - */);

/**
 * Device time of a point (epoch ms), or why it is not one. `timeZone` (absent for UTC) reads a date
 * without an offset; a date with one takes the same steps whatever the zone.
 */
function pointDate(value: unknown, timeZone: string | undefined): number | string {
  // The common forms first (measured: half of a point's parsing went to the general path).
  if (typeof value === 'string') {
    const utc = utcIsoMs(value);
    if (inDateRange(utc)) return utc;
  }
  if (typeof value === 'string' && ISO_DATE.test(value) && value.trimEnd() === value && ((timeZone === undefined && LOCAL_IS_UTC) || namesZone(value))) {
    const ms = Date.parse(value);
    if (inDateRange(ms)) return ms;
  }
  const ms = readDateInput(value, timeZone);
  if (typeof ms === 'number') return ms;
  return ms === 'out of range' ? `date ${OUT_OF_RANGE}` : 'date must be ISO-8601 or Unix seconds';
}

/** An optional number of the position; undefined when absent or not a number. */
function setOptional(point: LocationPoint, key: 'speed' | 'altitude' | 'heading' | 'vertical_accuracy', v: unknown): void {
  if (v === undefined || v === null) return;
  const n = num(v);
  if (n !== undefined) point[key] = n;
}

/** One point, or the reason it is not one; a date without an offset is read in `timeZone` (absent: UTC). */
export function parsePoint(input: unknown, now: number, timeZone?: string): LocationPoint | string {
  if (!isObject(input)) return 'is not an object';
  if (input.date === undefined || input.date === null || input.date === '') return 'date is required';
  const at = pointDate(input.date, timeZone);
  if (typeof at === 'string') return at;
  if (at > now + MAX_FUTURE_SKEW_MS) return 'date is more than a day in the future';
  const location = input.location;
  if (!isObject(location)) return 'location is required';
  if (location.type !== undefined && location.type !== 'point') return 'location.type must be "point"';
  const pos = location.position;
  if (!isObject(pos)) return 'location.position is required';
  const latitude = num(pos.latitude);
  const longitude = num(pos.longitude);
  if (latitude === undefined || latitude < -90 || latitude > 90) return 'location.position.latitude must be a number in [-90, 90]';
  if (longitude === undefined || longitude < -180 || longitude > 180) return 'location.position.longitude must be a number in [-180, 180]';
  const accuracy = pos.horizontal_accuracy === undefined || pos.horizontal_accuracy === null ? 0 : num(pos.horizontal_accuracy);
  if (accuracy === undefined) return 'location.position.horizontal_accuracy must be a number';
  // PHP's json_encode writes an empty hash as `[]`: that is the empty object it stands for.
  const raw = isEmptyList(input.raw) ? {} : input.raw;
  const client = isEmptyList(input.client) ? {} : input.client;
  if (raw !== undefined && raw !== null && !isObject(raw)) return 'raw must be an object or null';
  if (client !== undefined && client !== null && !isObject(client)) return 'client must be an object';
  if (input.uuid !== undefined && (typeof input.uuid !== 'string' || input.uuid.length > 64)) return 'uuid must be a string';
  const unstorableRaw = unstorableField(raw, 'raw');
  if (unstorableRaw) return `raw ${unstorableRaw}`;
  const unstorableClient = unstorableField(client, 'client');
  if (unstorableClient) return `client ${unstorableClient}`;
  const point: LocationPoint = {
    at, latitude, longitude, accuracy: Math.max(0, accuracy),
    raw: (raw as Record<string, unknown> | undefined) ?? null,
  };
  if (typeof input.uuid === 'string') point.uuid = input.uuid;
  if (isObject(client)) point.client = client;
  setOptional(point, 'speed', pos.speed);
  setOptional(point, 'altitude', pos.altitude);
  setOptional(point, 'heading', pos.heading);
  setOptional(point, 'vertical_accuracy', pos.vertical_accuracy);
  return point;
}

/** The whole batch, or every bad point named (reference: 400 invalid_input). */
export function parseBatch(body: unknown, now: number, timeZone?: string): { points: LocationPoint[] } | { error: string } {
  const items = Array.isArray(body) ? body : isObject(body) && body.location !== undefined ? null : null;
  if (!items) return { error: 'Input data must be an array of data points' };
  if (items.length === 0) return { error: 'Input data must contain at least one data point' };
  if (items.length > MAX_POINTS_PER_REQUEST) return { error: `At most ${MAX_POINTS_PER_REQUEST} data points per request` };
  const points: LocationPoint[] = [];
  const bad: string[] = [];
  items.forEach((item, i) => {
    const p = parsePoint(item, now, timeZone);
    if (typeof p === 'string') bad.push(`point ${i}: ${p}`);
    else points.push(p);
  });
  if (bad.length) {
    const shown = bad.slice(0, 10).join('; ');
    return { error: `${bad.length} of ${items.length} data points are invalid: ${shown}${bad.length > 10 ? '; …' : ''}` };
  }
  return { points };
}

/** A location/update body read: its points, or why it is refused (a 400 with this error code). */
export type BodyRead = { points: LocationPoint[] } | { error: string; code: 'invalid_request' | 'invalid_input' };

/** A body already parsed (JSON or form); `timeZone` as for parsePoint. */
export function readBodyValue(body: unknown, now: number, timeZone?: string): BodyRead {
  const parsed = parseBatch(body, now, timeZone);
  return 'error' in parsed ? { error: parsed.error, code: 'invalid_input' } : parsed;
}

/** A JSON body as text: on the main thread for short bodies, in the shard for long ones. */
export function readBodyText(text: string, now: number, timeZone?: string): BodyRead {
  const json = parseJsonText(text);
  return 'value' in json ? readBodyValue(json.value, now, timeZone) : json;
}

/** Index of the last of the newest points (the engine applies equal times in arrival order): the one stored as the last location. */
export function newestIndex(points: readonly { at: number }[]): number {
  let newest = 0;
  for (let i = 1; i < points.length; i++) if (points[i]!.at >= points[newest]!.at) newest = i;
  return newest;
}
