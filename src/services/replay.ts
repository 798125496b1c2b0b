// POST /1/trigger/replay: what a track would fire, and why, against an application's triggers as
// they are now, with no side effect (the engine runs it in a private, in-process engine:
// src/engine/replay.ts). The track is location/update points, a GPX document, a GeoJSON line with
// times, or a user's stored history. Deterministic: the answer depends on the request and the
// documents only (the track's timestamps are the clock; ids are made from the inputs).
import { gpx } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { apiError, notFound } from '../errors.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { parsePoint } from '../schemas/location-points.js';
import { MAX_REPLAY_POINTS, REPLAY_PARAMS } from '../schemas/timeline.js';
import type { DateRange, UserDoc } from '../store/documents.js';
import type { ReplayPairState, ReplayRun, ServiceContext } from './context.js';
import { requestTimeZone } from './request-zone.js';
import { entryView, refuseUnknown } from './timeline.js';

export interface ReplayInput {
  points?: unknown[];
  track?: string | Record<string, unknown>;
  format?: 'gpx' | 'geojson';
  source?: 'history';
  after?: string | number;
  before?: string | number;
  user_id?: string;
  layer_ids?: string[];
  place_ids?: string[];
  trigger_ids?: string[];
  start_states?: Array<{ trigger_id: string; place_id: string; state: ReplayPairState; since?: string | number }>;
}

type Row = { at: number; lat: number; lon: number; acc: number };

const tooMany = (n?: number) =>
  apiError('invalid_input', `A replay takes at most ${MAX_REPLAY_POINTS} points; this track has ${n === undefined ? 'more' : n}`);

export async function replay(ctx: ServiceContext, appId: string, input: ReplayInput, headerZone?: string) {
  refuseUnknown(input, REPLAY_PARAMS);
  if (!ctx.replayer) throw apiError('service_unavailable', 'The trigger engine is not running');
  const sources = [input.points !== undefined, input.track !== undefined, input.source !== undefined].filter(Boolean).length;
  if (sources !== 1) throw apiError('missing_input', 'Give exactly one of points, track or source=history');
  const user = input.user_id !== undefined ? await ctx.store.users.get(appId, input.user_id) : null;
  if (input.user_id !== undefined && !user) throw notFound('User');
  const scoped = (input.layer_ids?.length ?? 0) + (input.place_ids?.length ?? 0) + (input.trigger_ids?.length ?? 0) > 0;
  if (!user && !scoped) throw apiError('missing_input', 'Give user_id (that user\'s layers and triggers) or layer_ids, place_ids or trigger_ids');
  const tz = requestTimeZone(headerZone, user);

  const points = await trackPoints(ctx, appId, input, user, tz);
  const [triggers, places, layers, app] = await Promise.all([
    ctx.store.triggers.forApp(appId),
    ctx.store.places.forApp(appId),
    ctx.store.layers.forApp(appId),
    ctx.store.applications.get(appId),
  ]);
  await checkIds(ctx, appId, input);
  const run: ReplayRun = {
    appId,
    userId: user?._id ?? 'replay',
    // Daily windows are read in the user's zone, as live; without a user, in the request's.
    timezone: user ? user.timezone || 'UTC' : (headerZone ?? 'UTC'),
    docs: { triggers, places, layers },
    points,
    startStates: (input.start_states ?? []).map((s) => ({
      triggerId: s.trigger_id,
      placeId: s.place_id,
      state: s.state,
      // Without a time, the pair has been in that state since the track began.
      since: s.since !== undefined ? parseDateInput(s.since, 'start_states.since', tz) : (points[0]?.at ?? 0),
    })),
  };
  if (user) {
    const subs = await ctx.store.subscriptions.forUser(appId, user._id);
    run.layerIds = [app?.default_layer_id ?? '', ...subs.map((s) => s.layer_id)];
  }
  if (scoped) run.select = { layerIds: input.layer_ids ?? [], placeIds: input.place_ids ?? [], triggerIds: input.trigger_ids ?? [] };

  const out = await ctx.replayer.replay(run);
  const entries = out.entries.map((d) => entryView(d, tz));
  return {
    entries,
    firings: entries
      .filter((e) => e.kind === 'fired')
      .map((e) => ({ trigger_id: e.trigger_id, place_id: e.place_id, event: e.event!, date: e.date, date_ts: e.date_ts, firing_id: e.firing_id! })),
    final_states: out.finalStates.map((s) => ({
      trigger_id: s.triggerId, place_id: s.placeId, state: s.state, since: isoDate(s.since, tz), since_ts: unixSeconds(s.since),
    })),
    points: points.length,
  };
}

/** Ids the request names must be the application's (another's are as missing: 404). */
async function checkIds(ctx: ServiceContext, appId: string, input: ReplayInput): Promise<void> {
  const check = async (ids: string[] | undefined, repo: { get(a: string, id: string): Promise<unknown> }, what: string) => {
    for (const id of new Set(ids ?? [])) if (!(await repo.get(appId, id))) throw notFound(what);
  };
  await check(input.layer_ids, ctx.store.layers, 'Layer');
  await check(input.place_ids, ctx.store.places, 'Place');
  await check(input.trigger_ids, ctx.store.triggers, 'Trigger');
  for (const s of input.start_states ?? []) {
    if (!(await ctx.store.triggers.get(appId, s.trigger_id))) throw notFound('Trigger');
    if (!(await ctx.store.places.get(appId, s.place_id))) throw notFound('Place');
  }
}

async function trackPoints(ctx: ServiceContext, appId: string, input: ReplayInput, user: UserDoc | null, tz: string): Promise<Row[]> {
  if (input.points !== undefined) return pointRows(input.points, tz);
  if (input.track !== undefined) return trackRows(input.track, input.format);
  if (!user) throw apiError('missing_input', 'source=history replays a user\'s stored points: give user_id');
  const app = await ctx.store.applications.get(appId);
  if (!app?.store_history) throw apiError('invalid_input', 'This application does not keep location history (store_history): there is none to replay');
  const range: DateRange = {};
  if (input.after !== undefined) range.after = parseDateInput(input.after, 'after', tz);
  if (input.before !== undefined) range.before = parseDateInput(input.before, 'before', tz);
  const docs = await ctx.store.locations.oldest(appId, user._id, range, MAX_REPLAY_POINTS + 1);
  if (docs.length > MAX_REPLAY_POINTS) {
    throw apiError('invalid_input', `The stored history in that range has more than ${MAX_REPLAY_POINTS} points: narrow it with after and before`);
  }
  return docs.map((d) => ({ at: d.date, lat: d.latitude, lon: d.longitude, acc: d.horizontal_accuracy ?? 0 }));
}

/** location/update points, read as location/update reads them (any date in the past or future). */
function pointRows(items: unknown[], tz: string): Row[] {
  if (items.length === 0) throw apiError('invalid_input', 'points must hold at least one point');
  if (items.length > MAX_REPLAY_POINTS) throw tooMany(items.length);
  const rows: Row[] = [];
  const bad: string[] = [];
  items.forEach((item, i) => {
    const p = parsePoint(item, Infinity, tz);
    if (typeof p === 'string') bad.push(`point ${i}: ${p}`);
    else rows.push({ at: p.at, lat: p.latitude, lon: p.longitude, acc: p.accuracy });
  });
  if (bad.length > 0) throw apiError('invalid_input', `${bad.length} of ${items.length} points are invalid: ${bad.slice(0, 10).join('; ')}${bad.length > 10 ? '; …' : ''}`);
  return rows;
}

type Geometry = { type?: unknown; coordinates?: unknown; geometries?: unknown };
type Feature = { type?: unknown; geometry?: Geometry | null; properties?: Record<string, unknown> | null; features?: unknown };

/** A GPX document or a GeoJSON track, as rows; every point needs a time. */
function trackRows(track: string | Record<string, unknown>, format?: 'gpx' | 'geojson'): Row[] {
  const kind = format ?? (typeof track === 'string' && track.trimStart().startsWith('<') ? 'gpx' : 'geojson');
  let geo: Feature;
  if (kind === 'gpx') {
    if (typeof track !== 'string') throw apiError('invalid_input', 'track: a GPX track is the document\'s text');
    geo = readGpx(track);
  } else {
    const value = typeof track === 'string' ? parseJson(track) : track;
    if (typeof value !== 'object' || value === null) throw apiError('invalid_input', 'track: not a GeoJSON object');
    geo = value as Feature;
  }
  const rows: Row[] = [];
  for (const f of features(geo)) addLine(rows, f);
  if (rows.length === 0) throw apiError('invalid_input', 'track: no LineString with points found (a GPX track or route, or a GeoJSON LineString)');
  return rows;
}

function readGpx(text: string): Feature {
  let doc;
  try {
    doc = new DOMParser({
      onError: (level: string, message: string) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (err) {
    throw apiError('invalid_input', `track: not a well-formed GPX document (${(err as Error).message.split('\n')[0]})`);
  }
  return gpx(doc) as unknown as Feature;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw apiError('invalid_input', 'track: neither GPX nor GeoJSON text');
  }
}

/** The features of a FeatureCollection, a Feature, or a bare geometry (as a feature without properties). */
function features(g: Feature): Feature[] {
  if (g.type === 'FeatureCollection') return Array.isArray(g.features) ? (g.features as Feature[]) : [];
  if (g.type === 'Feature') return [g];
  return [{ type: 'Feature', geometry: g as Geometry, properties: null }];
}

/**
 * The points of a feature's LineString (or MultiLineString) with their times: GPX tracks read by
 * togeojson carry them as properties.coordinateProperties.times, older tools as properties.coordTimes.
 */
function addLine(rows: Row[], f: Feature): void {
  const g = f.geometry;
  if (!g || (g.type !== 'LineString' && g.type !== 'MultiLineString')) return;
  const lines = (g.type === 'LineString' ? [g.coordinates] : g.coordinates) as unknown[];
  const props = f.properties ?? {};
  const cp = props.coordinateProperties as { times?: unknown } | undefined;
  const times = (cp?.times ?? props.coordTimes) as unknown;
  if (!Array.isArray(lines) || !Array.isArray(times)) throw apiError('invalid_input', 'track: every point needs a time (GPX <time>, or GeoJSON properties.coordinateProperties.times)');
  const timesOf = (i: number): unknown[] => (g.type === 'LineString' ? times : (times[i] as unknown[]));
  lines.forEach((line, i) => {
    const ts = timesOf(i);
    if (!Array.isArray(line) || !Array.isArray(ts) || ts.length !== line.length) {
      throw apiError('invalid_input', 'track: every point needs a time (as many times as coordinates)');
    }
    line.forEach((c, k) => {
      const [lon, lat] = Array.isArray(c) ? (c as unknown[]) : [];
      const at = typeof ts[k] === 'number' ? (ts[k] as number) * 1000 : Date.parse(String(ts[k]));
      if (typeof lat !== 'number' || typeof lon !== 'number' || lat < -90 || lat > 90 || lon < -180 || lon > 180) {
        throw apiError('invalid_input', `track: point ${rows.length} is not a [longitude, latitude] position`);
      }
      if (!Number.isFinite(at)) throw apiError('invalid_input', `track: point ${rows.length} has no valid time`);
      if (rows.length >= MAX_REPLAY_POINTS) throw tooMany();
      rows.push({ at, lat, lon, acc: 0 });
    });
  });
}
