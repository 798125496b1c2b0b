// location/update, location/last, location/history (reference §4.3, §6.11). A batch is handed to
// the trigger engine, which reads it (in its shard, for a JSON body) and stores what must be kept
// of it (the last location always, every point when the application keeps history, documents
// built here by storedPoints) in its batch, after the engine took the points, so
// `{"response":"ok"}` means every point is durable and evaluated.
import { randomUUID } from 'node:crypto';
import { apiError } from '../errors.js';
import type { ApplicationDoc, DateRange, LocationDoc, PointRow, UserDoc } from '../store/documents.js';
import { recordBatch } from './location-batches.js';
import type { LocationSink, PointsInput, ServiceContext } from './context.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { JsonText } from '../schemas/json-text.js';
import { newestIndex, readBodyText, readBodyValue, type LocationPoint } from '../schemas/location-points.js';

/** What of a request is stored: its newest point as the last location, and the history. */
export interface StoredPoints {
  last: PointRow;
  /** Every point, when the application keeps history; else empty. */
  history: PointRow[];
}

/**
 * A location/update's points: the body's JSON text (read in the engine's shards, a point date
 * without an offset in `timeZone`, absent for UTC), or points already read.
 */
// The engine's intake is declared with the service context, which holds it.
export type { LocationSink, PointsInput } from './context.js';

/** The stored form of a point; gives the point its uuid (so a firing's location names it). */
export function toPointRow(app: ApplicationDoc, user: UserDoc, p: LocationPoint, now: number): PointRow {
  const own = p.uuid !== undefined;
  p.uuid ??= randomUUID();
  return {
    app_id: app._id, user_id: user._id, uuid: p.uuid, own_uuid: own, date: p.at, latitude: p.latitude, longitude: p.longitude,
    horizontal_accuracy: p.accuracy, speed: p.speed ?? null, altitude: p.altitude ?? null, heading: p.heading ?? null,
    vertical_accuracy: p.vertical_accuracy ?? null, raw: p.raw === null ? null : JSON.stringify(p.raw),
    client: p.client === undefined ? null : JSON.stringify(p.client), received_at: now,
  };
}

/**
 * Rows are built only for what is stored: no uuid per point unless history is kept. `newest` is
 * the index of the request's newest point (the last of equal ones).
 */
export function storedPoints(app: ApplicationDoc, user: UserDoc, points: readonly LocationPoint[], newest: number, now: number): StoredPoints {
  if (!app.store_history) return { last: toPointRow(app, user, points[newest]!, now), history: [] };
  const history = points.map((p) => toPointRow(app, user, p, now));
  return { last: history[newest]!, history };
}

function readPoints(body: unknown, now: number, timeZone: string | undefined): LocationPoint[] {
  const read = body instanceof JsonText ? readBodyText(body.text, now, timeZone) : readBodyValue(body, now, timeZone);
  if ('error' in read) throw apiError(read.code, read.error);
  return read.points;
}

/**
 * JSON bodies at least this long (~6 points) are read in the engine's shards. A shorter one is read
 * here: the shard would have to send its points back whole for the stored last location anyway,
 * and cloning them costs the main thread about what parsing them does.
 */
export const SHARD_READ_MIN_CHARS = 2048;

/**
 * location/update. A JSON body arrives as text (routes/location.ts); a long one is read in the
 * engine's shards, off the main thread, anything else (a short body, a form body, a service
 * without the engine) here. A point's date without an offset is read in `timeZone`, the request's
 * (services/request-zone.ts); dates with an offset or Z, what SDKs send, take the same path in any zone.
 */
export async function updateLocations(
  ctx: ServiceContext, sink: LocationSink | undefined, app: ApplicationDoc, user: UserDoc, body: unknown, timeZone = 'UTC',
) {
  const now = ctx.now();
  // UTC goes as no zone: the point reader then makes no check at all for an offset.
  const zone = timeZone === 'UTC' ? undefined : timeZone;
  if (sink) {
    const inShard = body instanceof JsonText && body.text.length >= SHARD_READ_MIN_CHARS;
    const input: PointsInput = inShard ? (zone ? { text: body.text, timeZone: zone } : { text: body.text }) : { points: readPoints(body, now, zone) };
    await sink.ingest(app, user, input, now);
  } else {
    const points = readPoints(body, now, zone);
    const stored = storedPoints(app, user, points, newestIndex(points), now);
    await ctx.store.locations.add(stored.history);
    await ctx.store.lastLocations.save([stored.last]);
  }
  // Durable now: the streaming API may show the user's new last location.
  await ctx.streams.publish({ kind: 'location', appId: app._id, userId: user._id });
  // The tracking profile set with location/tracking_profile, which the Android SDK reads from this
  // response (reference §6.11); only once one is set, so the answer is otherwise the reference's.
  return user.tracking_profile ? { response: 'ok' as const, profile: user.tracking_profile.profile } : { response: 'ok' as const };
}

/** A point in the location/last and location/history format. */
export function pointView(d: LocationDoc, timeZone: string) {
  const position: Record<string, number | null> = {
    latitude: d.latitude, longitude: d.longitude, speed: d.speed ?? 0, altitude: d.altitude ?? 0,
    horizontal_accuracy: d.horizontal_accuracy, vertical_accuracy: d.vertical_accuracy ?? 0,
  };
  if (d.heading !== undefined) position.heading = d.heading;
  return {
    uuid: d.uuid, date: isoDate(d.date, timeZone), date_ts: unixSeconds(d.date),
    location: { position, type: 'point' }, raw: d.raw, ...(d.client ? { client: d.client } : {}),
  };
}

/** location/last, dated in `timeZone` (the request's). */
export async function lastLocation(ctx: ServiceContext, user: UserDoc, timeZone: string) {
  const doc = await ctx.store.lastLocations.of(user.app_id, user._id);
  if (!doc) throw apiError('not_found', 'No location has been recorded for this user');
  return pointView(doc, timeZone);
}

export interface HistoryQuery {
  count?: number;
  after?: string | number;
  before?: string | number;
  sort?: 'asc' | 'desc';
  /** Remember the answer's points for location/delete_batch/:id (services/location-batches.ts). */
  batch?: boolean;
}

const R = 6371008.8;
const toRad = Math.PI / 180;
function haversine(a: LocationDoc, b: LocationDoc) {
  const dLat = (b.latitude - a.latitude) * toRad;
  const dLon = (b.longitude - a.longitude) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * toRad) * Math.cos(b.latitude * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

/**
 * The most recent `count` points within [after, before], returned in `sort` order. `timeZone` (the
 * request's) reads after/before without an offset and dates the answer.
 */
export async function locationHistory(ctx: ServiceContext, user: UserDoc, q: HistoryQuery, timeZone: string) {
  const range: DateRange = {};
  if (q.after !== undefined) range.after = parseDateInput(q.after, 'after', timeZone);
  if (q.before !== undefined) range.before = parseDateInput(q.before, 'before', timeZone);
  const newest = await ctx.store.locations.newest(user.app_id, user._id, range, q.count ?? 10);
  const points = (q.sort ?? 'asc') === 'asc' ? newest.reverse() : newest;
  let distance = 0;
  for (let i = 1; i < points.length; i++) distance += haversine(points[i - 1], points[i]);
  const tz = timeZone;
  const byTime = [...points].sort((a, b) => a.date - b.date);
  const lats = points.map((p) => p.latitude);
  const lngs = points.map((p) => p.longitude);
  return {
    points: points.map((p) => pointView(p, tz)),
    distance: Math.round(distance * 100) / 100,
    timerange: byTime.length
      ? { from: isoDate(byTime[0].date, tz), from_ts: unixSeconds(byTime[0].date), to: isoDate(byTime.at(-1)!.date, tz), to_ts: unixSeconds(byTime.at(-1)!.date) }
      : null,
    bounds: points.length
      ? { sw: { latitude: Math.min(...lats), longitude: Math.min(...lngs) }, ne: { latitude: Math.max(...lats), longitude: Math.max(...lngs) } }
      : null,
    ...(q.batch ? { batch: await recordBatch(ctx, user, points.map((p) => p._id)) } : {}),
  };
}
