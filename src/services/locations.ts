// location/update, location/last, location/history (reference §4.3, §6.11). A batch is handed to
// the trigger engine, which reads it in its shards and stores what must be kept of it (the last
// location always, every point when the application keeps history) in its batch, after the engine
// took the points, so `{"response":"ok"}` means every point is durable and evaluated.
import { apiError } from '../errors.js';
import type { ApplicationDoc, DateRange, LocationDoc, UserDoc } from '../store/documents.js';
import { recordBatch } from './location-batches.js';
import type { LocationSink, PointsInput, ServiceContext } from './context.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { JsonText } from '../schemas/json-text.js';

// The engine's intake is declared with the service context, which holds it.
export type { LocationSink, PointsInput } from './context.js';

/**
 * location/update. The body goes to the engine's shards as it came (a JSON body as text:
 * routes/location.ts; a form body as the value it was read into), where its points are read and
 * checked off the main thread, evaluated, and shaped into the rows to store. A point's date
 * without an offset is read in `timeZone`, the request's (services/request-zone.ts); dates with an
 * offset or Z, what SDKs send, take the same path in any zone.
 */
export async function updateLocations(
  ctx: ServiceContext, sink: LocationSink | undefined, app: ApplicationDoc, user: UserDoc, body: unknown, timeZone = 'UTC',
) {
  if (!sink) throw apiError('service_unavailable', 'The trigger engine is not running', { 'retry-after': '1' });
  const now = ctx.now();
  const input: PointsInput = body instanceof JsonText ? { text: body.text } : { value: body };
  // UTC goes as no zone: the point reader then makes no check at all for an offset.
  if (timeZone !== 'UTC') input.timeZone = timeZone;
  await sink.ingest(app, user, input, now);
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
    // When the service received it, next to the device's time (a row of an older release may lack it).
    ...(d.received_at > 0 ? { received_at: isoDate(d.received_at, timeZone), received_at_ts: unixSeconds(d.received_at) } : {}),
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
