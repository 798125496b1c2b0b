// One replay, as the replay thread runs it (workers/replay-worker.ts; in this thread for the tests'
// in-process engine): the documents expanded into geofences and scoped, the track read (a GPX or
// GeoJSON text is read here, off the main thread), the work checked against its limit, then the
// points run through the shard's own request handler (the machines, zones, order rules and
// timeline the live shards run) in chunks, keeping of the timeline only the page asked for and
// counts by pair. Pure: no I/O, nothing kept after it returns. The input is plain data (documents,
// scope, track, options), so what-if changes to the documents can be made before it is sent.
import { ApiError, apiError, type ErrorCode } from '../errors.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import { checkedGpxRows, checkGpx, geoJsonRows, tooManyPoints, type TrackRow } from '../schemas/track.js';
import type { ReplayPairCounts, ReplayPairState, ReplayTrack } from '../services/context.js';
import {
  emptyBatch, putPoint, PROTOCOL_VERSION, type Geofence, type RecordSeed, type ShardOptions, type ShardRequest, type ShardResponse,
  type ShardOutput, type TimelineRecord, type UserView,
} from '../../workers/protocol.js';
import { createShardHandler } from '../../workers/shard-worker.js';
import { expandAll } from './geofences.js';
import { closestApproaches, type ClosestApproach } from './replay-closest.js';

export const REPLAY_PROTOCOL_VERSION = 1 as const;

export interface ReplayDocs {
  triggers: TriggerDoc[];
  places: PlaceDoc[];
  layers: LayerDoc[];
}

/** Which geofences of the documents take part. */
export interface ReplayScope {
  /** Only those on these layers (a user's own), when given. */
  layerIds?: readonly string[];
  /** Only those matching any of these, when any is given. */
  select?: { layerIds: readonly string[]; placeIds: readonly string[]; triggerIds: readonly string[] };
}

export interface ReplayLimits {
  points: number;
  pairs: number;
  /** Points × pairs. */
  steps: number;
}

/** Everything one replay needs, as plain data. */
export interface ReplayTask {
  v: typeof REPLAY_PROTOCOL_VERSION;
  /** The user the track is replayed as (the real id for a user's replay: firing ids then match theirs). */
  userId: string;
  /** Zone of the daily windows. */
  timezone: string;
  docs: ReplayDocs;
  scope: ReplayScope;
  track: ReplayTrack;
  /** `since` absent: since the track's first point. */
  startStates: ReadonlyArray<{ triggerId: string; placeId: string; state: ReplayPairState; since?: number }>;
  /** The part of the timeline to hand back. */
  page: { offset: number; limit: number };
  limits: ReplayLimits;
  /** Epoch ms: a replay still running then gives up (checked between chunks of points). */
  deadline: number;
  shard: ShardOptions;
}

export interface ReplayResultData {
  /** Points replayed. */
  points: number;
  /** Pairs in the scope. */
  pairs: number;
  /** Timeline entries of the whole replay, and of them firings. */
  total: number;
  fired: number;
  /** Entries `page.offset` … `page.offset + page.limit - 1`, in the order the engine decided them. */
  page: TimelineRecord[];
  /** Pairs with an entry, by trigger then place. */
  counts: ReplayPairCounts[];
  finalStates: Array<{ triggerId: string; placeId: string; state: ReplayPairState; since: number }>;
  /** Per place of the scope, the track's closest approach to it. */
  closest: ClosestApproach[];
}

export type ReplayReply =
  | { v: typeof REPLAY_PROTOCOL_VERSION; ok: true; result: ReplayResultData }
  | { v: typeof REPLAY_PROTOCOL_VERSION; ok: false; error: ErrorCode | 'timeout'; description: string };

/** Points applied per call of the shard handler: the timeline of one chunk is all that is held at once. */
const CHUNK = 256;

const byPair = (a: { triggerId: string; placeId: string }, b: { triggerId: string; placeId: string }) =>
  a.triggerId < b.triggerId ? -1 : a.triggerId > b.triggerId ? 1 : a.placeId < b.placeId ? -1 : a.placeId > b.placeId ? 1 : 0;

/** The geofences of the documents that the scope keeps, in the documents' order. */
export function scopeFences(docs: ReplayDocs, scope: ReplayScope): Geofence[] {
  const onLayers = scope.layerIds ? new Set(scope.layerIds) : null;
  const sel = scope.select;
  const any = sel !== undefined && sel.layerIds.length + sel.placeIds.length + sel.triggerIds.length > 0;
  const [layers, places, triggers] = [new Set(sel?.layerIds), new Set(sel?.placeIds), new Set(sel?.triggerIds)];
  return expandAll(docs).filter(
    (f) => (onLayers === null || onLayers.has(f.layerId)) && (!any || layers.has(f.layerId) || places.has(f.placeId) || triggers.has(f.triggerId)),
  );
}

/**
 * Only the documents the scoped geofences are made of, in their order: what crosses to the replay
 * thread. Expanded and scoped again there, they give the same geofences in the same order.
 */
export function scopedDocs(docs: ReplayDocs, fences: readonly Geofence[]): ReplayDocs {
  const triggers = new Set(fences.map((f) => f.triggerId));
  const places = new Set(fences.map((f) => f.placeId));
  const layers = new Set(fences.map((f) => f.layerId));
  return {
    triggers: docs.triggers.filter((t) => triggers.has(t._id)),
    places: docs.places.filter((p) => places.has(p._id)),
    layers: docs.layers.filter((l) => layers.has(l._id)),
  };
}

/** The refusal of a replay beyond its limits, or null. */
export function workRefusal(points: number, pairs: number, limits: ReplayLimits): ApiError | null {
  if (points > limits.points) return tooManyPoints(limits.points, points);
  if (pairs > limits.pairs) {
    return apiError('invalid_input', `This replay's scope holds ${pairs} (trigger, place) pairs; a replay takes at most ${limits.pairs}: narrow it with layer_ids, place_ids or trigger_ids`);
  }
  if (points * pairs > limits.steps) {
    return apiError(
      'invalid_input',
      `This replay is ${points} points × ${pairs} pairs = ${points * pairs} steps; a replay takes at most ${limits.steps} (points × pairs): ` +
        'narrow its scope (layer_ids, place_ids, trigger_ids) or its track (fewer points; after and before for source=history)',
    );
  }
  return null;
}

/** The track's rows, refused as soon as its points are known to be too many for the pairs. */
function readTrack(track: ReplayTrack, pairs: number, limits: ReplayLimits): TrackRow[] {
  const refuse = (points: number) => {
    const refusal = workRefusal(points, pairs, limits);
    if (refusal) throw refusal;
  };
  let rows: TrackRow[];
  if ('gpx' in track) {
    // Counted before the document is parsed whole.
    refuse(checkGpx(track.gpx, limits.points));
    rows = checkedGpxRows(track.gpx, limits.points);
  } else rows = 'rows' in track ? track.rows : geoJsonRows(track.geojson, limits.points);
  refuse(rows.length);
  return rows;
}

/** Runs one replay; a refusal (a bad track, a limit, the deadline) is an answer, not a throw. */
export function runReplay(task: ReplayTask): ReplayReply {
  try {
    return { v: REPLAY_PROTOCOL_VERSION, ok: true, result: replay(task) };
  } catch (err) {
    if (err instanceof ApiError) return { v: REPLAY_PROTOCOL_VERSION, ok: false, error: err.code, description: err.description };
    if (err instanceof Timeout) return { v: REPLAY_PROTOCOL_VERSION, ok: false, error: 'timeout', description: 'the replay passed its deadline' };
    throw err;
  }
}

class Timeout extends Error {}

function replay(task: ReplayTask): ReplayResultData {
  const checkDeadline = () => {
    if (Date.now() >= task.deadline) throw new Timeout();
  };
  checkDeadline();
  const fences = scopeFences(task.docs, task.scope);
  const rows = readTrack(task.track, fences.length, task.limits);

  const keys = new Map(fences.map((f) => [f.key, f]));
  const records: RecordSeed[] = [];
  for (const s of task.startStates) {
    const f = keys.get(`${s.triggerId}:${s.placeId}`);
    if (!f) continue;
    // Without a time, the pair has been in that state since the track began.
    const since = s.since ?? rows[0]?.at ?? 0;
    const record: RecordSeed['record'] = { state: s.state, since, enteredAt: since, history: [] };
    // Inside a dwell trigger's place: its deadline counts from `since`, as it would have live.
    if (s.state === 'inside' && f.triggerOn === 'enter' && f.triggerAfterS > 0) record.deadline = since + f.triggerAfterS * 1000;
    records.push({ userId: task.userId, triggerId: s.triggerId, placeId: s.placeId, record });
  }

  const shard = createShardHandler();
  const call = <T>(req: ShardRequest): T => {
    const res: ShardResponse = shard(req);
    if (!res.ok) throw new Error(`replay shard: ${res.error}: ${res.message}`);
    return res.result as T;
  };
  const v = PROTOCOL_VERSION;
  const page: TimelineRecord[] = [];
  const counts = new Map<string, ReplayPairCounts>();
  const out = { total: 0, fired: 0 };
  const end = task.page.offset + task.page.limit;
  const keep = (tl: readonly TimelineRecord[] | undefined) => {
    for (const t of tl ?? []) {
      const key = `${t.triggerId}:${t.placeId}`;
      let c = counts.get(key);
      if (!c) counts.set(key, (c = { triggerId: t.triggerId, placeId: t.placeId, transition: 0, fired: 0, gated: 0, point: 0 }));
      c[t.kind]++;
      if (t.kind === 'fired') out.fired++;
      if (out.total >= task.page.offset && out.total < end) page.push(t);
      out.total++;
    }
  };

  call({
    v, generation: 1, type: 'load', shardIndex: 0, options: { ...task.shard, timeline: true, testHooks: false },
    seed: { fences, users: [{ userId: task.userId, layers: [...new Set(fences.map((f) => f.layerId))], timezone: task.timezone }], records },
  });
  // Device-time order, ties in track order: what one batch of the whole track would apply, so
  // the chunks decide exactly as it would.
  const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.at - rows[b]!.at || a - b);
  for (let from = 0; from < order.length; from += CHUNK) {
    checkDeadline();
    const n = Math.min(CHUNK, order.length - from);
    const batch = emptyBatch(n);
    const ids = new Map<string, number>();
    for (let k = 0; k < n; k++) {
      const r = rows[order[from + k]!]!;
      putPoint(batch, k, { userId: task.userId, at: r.at, lat: r.lat, lon: r.lon, acc: r.acc }, ids);
    }
    keep(call<ShardOutput>({ v, generation: 1, type: 'points', batch }).timeline);
  }
  // After the last point, every pending deadline fires as the clock would for a phone gone silent.
  keep(call<ShardOutput>({ v, generation: 1, type: 'tick', now: Number.MAX_VALUE }).timeline);
  const view = call<UserView | null>({ v, generation: 1, type: 'inspect', userId: task.userId });
  return {
    points: rows.length,
    pairs: fences.length,
    total: out.total,
    fired: out.fired,
    page,
    counts: [...counts.values()].sort(byPair),
    finalStates: (view?.pairs ?? [])
      .map((p) => ({ triggerId: p.triggerId, placeId: p.placeId, state: p.record.state as ReplayPairState, since: p.record.since }))
      .sort(byPair),
    closest: closestApproaches(fences, rows, task.shard.hysteresis),
  };
}
