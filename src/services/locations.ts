// location/update, location/last, location/history (reference §4.3, §6.11). A batch is stored
// (last location always, history when the application keeps it) and handed to the trigger
// engine before the reply, so `{"response":"ok"}` means every point is durable and evaluated.
import { randomUUID } from 'node:crypto';
import { apiError } from '../errors.js';
import type { ApplicationDoc, LocationDoc, UserDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import type { ServiceContext } from './context.js';
import { isoDate, parseDateInput, unixSeconds } from './dates.js';
import { parseBatch, type LocationPoint } from './location-points.js';

/** The engine's side of ingestion; set by the engine plugin. */
export interface LocationSink {
  ingest(app: ApplicationDoc, user: UserDoc, points: LocationPoint[]): Promise<void>;
}

export function toLocationDoc(app: ApplicationDoc, user: UserDoc, p: LocationPoint, now: number): LocationDoc {
  const doc: LocationDoc = {
    _id: newId(), app_id: app._id, user_id: user._id, uuid: p.uuid ?? randomUUID(), date: p.at,
    latitude: p.latitude, longitude: p.longitude, horizontal_accuracy: p.accuracy, raw: p.raw, received_at: now,
  };
  for (const k of ['speed', 'altitude', 'heading', 'vertical_accuracy'] as const) if (p[k] !== undefined) doc[k] = p[k];
  if (p.client) doc.client = p.client;
  return doc;
}

/** Keeps the newest point per user; an older point never replaces a newer one. */
async function saveLast(ctx: ServiceContext, last: LocationDoc) {
  const col = ctx.store.collection<LocationDoc>('last_locations');
  const doc = { ...last, _id: last.user_id };
  const res = await col.updateOne({ _id: doc._id, date: { $lt: doc.date } }, { $set: doc });
  if (res.matchedCount > 0) return;
  try {
    await col.insertOne(doc);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err; // a newer (or equal) point is already there
  }
}

export async function updateLocations(ctx: ServiceContext, sink: LocationSink | undefined, app: ApplicationDoc, user: UserDoc, body: unknown) {
  const now = ctx.now();
  const parsed = parseBatch(body, now);
  if ('error' in parsed) throw apiError('invalid_input', parsed.error);
  const docs = parsed.points.map((p) => toLocationDoc(app, user, p, now));
  docs.forEach((d, i) => (parsed.points[i].uuid = d.uuid));
  // History and the last location are written after the engine took the batch: a batch it refused
  // (503 while restarting) is sent again and stored once, and the last location tells a restarted
  // engine which points were applied, so a batch interrupted by a crash is evaluated again.
  if (sink) await sink.ingest(app, user, parsed.points);
  if (app.store_history) await ctx.store.collection<LocationDoc>('locations').insertMany(docs);
  await saveLast(ctx, docs.reduce((a, b) => (b.date > a.date ? b : a)));
  return { response: 'ok' };
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

export async function lastLocation(ctx: ServiceContext, user: UserDoc) {
  const doc = await ctx.store.collection<LocationDoc>('last_locations').findOne({ _id: user._id, app_id: user.app_id });
  if (!doc) throw apiError('not_found', 'No location has been recorded for this user');
  return pointView(doc, user.timezone);
}

export interface HistoryQuery {
  count?: number;
  after?: string | number;
  before?: string | number;
  sort?: 'asc' | 'desc';
}

const R = 6371008.8;
const toRad = Math.PI / 180;
function haversine(a: LocationDoc, b: LocationDoc) {
  const dLat = (b.latitude - a.latitude) * toRad;
  const dLon = (b.longitude - a.longitude) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * toRad) * Math.cos(b.latitude * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

/** The most recent `count` points within [after, before], returned in `sort` order. */
export async function locationHistory(ctx: ServiceContext, user: UserDoc, q: HistoryQuery) {
  const range: Record<string, number> = {};
  if (q.after !== undefined) range.$gt = parseDateInput(q.after, 'after');
  if (q.before !== undefined) range.$lt = parseDateInput(q.before, 'before');
  const filter = { user_id: user._id, app_id: user.app_id, ...(Object.keys(range).length ? { date: range } : {}) };
  const newest = await ctx.store.collection<LocationDoc>('locations').find(filter, { sort: { date: -1 }, limit: q.count ?? 10 }).toArray();
  const points = (q.sort ?? 'asc') === 'asc' ? newest.reverse() : newest;
  let distance = 0;
  for (let i = 1; i < points.length; i++) distance += haversine(points[i - 1], points[i]);
  const tz = user.timezone;
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
  };
}
