// The messages between the main thread (src/engine) and a shard worker. Everything here survives
// structured clone (plain objects, arrays, typed arrays), and every request carries the protocol
// version and the shard generation, so a worker that was silently respawned empty is detected.
import type { Effect, PairRecord, PairState, SuppressedEffect, TimelineFacts, TimelineRule, Transition, Zone } from '../machines/index.js';
import type { HysteresisOptions } from '../src/geo/hysteresis.js';
import type { Shape } from '../src/geo/shape.js';
import type { WindowSpec } from '../src/geo/time-window.js';
import type { BodyRead } from '../src/schemas/location-points.js';

export const PROTOCOL_VERSION = 2 as const;

/** One (trigger, place) geofence as the engine evaluates it. */
export interface Geofence extends TimelineRule {
  /** `fenceKey(triggerId, placeId)`: unique per pair, the key of records in a user's map. */
  key: string;
  /** The layer whose members are evaluated against this geofence. */
  layerId: string;
  /** The centre (a shape's: src/geo/shape-centre.ts). */
  lat: number;
  lon: number;
  /** A circle's radius, or a shape's (the largest circle inside it), which scales its margin. */
  radius: number;
  /** A polygon or corridor (src/geo/shape.ts); absent for a circle. */
  shape?: Shape;
  /** Merged date and daily windows of trigger and place; null when always open. */
  window: WindowSpec | null;
}

export function fenceKey(triggerId: string, placeId: string): string {
  return `${triggerId}:${placeId}`;
}

export interface UserSeed {
  userId: string;
  /** Every layer the user is evaluated against, the application's default layer included. */
  layers: string[];
  /** IANA zone for daily windows; UTC when absent or unknown. */
  timezone?: string;
  /** Device time of the last point applied for this user (older points then move nothing). */
  lastAt?: number;
  /** Where that point was (accuracy in metres, NaN when missing): a released one-time pair is judged by it. */
  lastPoint?: { lat: number; lon: number; acc: number };
}

export interface RecordSeed {
  userId: string;
  triggerId: string;
  placeId: string;
  record: PairRecord;
}

export interface LastFiredSeed {
  userId: string;
  triggerId: string;
  at: number;
}

/** What a shard needs to resume where it was; every part optional (fences are broadcast too). */
export interface ShardSeed {
  fences?: Geofence[];
  users?: UserSeed[];
  records?: RecordSeed[];
  lastFired?: LastFiredSeed[];
}

export interface PointInput {
  userId: string;
  /** Device timestamp, epoch ms. */
  at: number;
  lat: number;
  lon: number;
  /** Horizontal accuracy in metres; missing / negative = 0. */
  acc?: number | null;
  /** When the service received it, epoch ms (absent: not told; nothing is stored of it). */
  receivedAt?: number;
}

/** Points in columns: typed arrays clone as one memcpy, unlike an array of objects. */
export interface PointBatch {
  /** Distinct user ids of the batch. */
  users: string[];
  /** Per point: index into `users`. */
  user: Int32Array;
  at: Float64Array;
  lat: Float64Array;
  lon: Float64Array;
  /** NaN = missing. */
  acc: Float64Array;
  /** When the service received the point, epoch ms; NaN = not told. */
  recv: Float64Array;
}

/**
 * An empty column batch for `n` points. Every column is a view of one buffer: a postMessage then
 * allocates and copies one ArrayBuffer instead of one per column, which costs the sender of a one-
 * or two-point batch about half as much. The Float64 columns come first, so every view starts at a
 * multiple of its element size.
 */
export function emptyBatch(n: number): PointBatch {
  const buf = new ArrayBuffer(n * 44);
  return {
    users: [],
    user: new Int32Array(buf, 40 * n, n),
    at: new Float64Array(buf, 0, n),
    lat: new Float64Array(buf, 8 * n, n),
    lon: new Float64Array(buf, 16 * n, n),
    acc: new Float64Array(buf, 24 * n, n),
    recv: new Float64Array(buf, 32 * n, n),
  };
}

/** Writes point `p` at row `k` of `b`, numbering its user through `ids` (one map per batch). */
export function putPoint(b: PointBatch, k: number, p: PointInput, ids: Map<string, number>): void {
  let u = ids.get(p.userId);
  if (u === undefined) {
    u = b.users.length;
    b.users.push(p.userId);
    ids.set(p.userId, u);
  }
  b.user[k] = u;
  b.at[k] = p.at;
  b.lat[k] = p.lat;
  b.lon[k] = p.lon;
  b.acc[k] = p.acc ?? NaN;
  b.recv[k] = p.receivedAt ?? NaN;
}

export function toBatch(points: readonly PointInput[]): PointBatch {
  const b = emptyBatch(points.length);
  const ids = new Map<string, number>();
  for (let i = 0; i < points.length; i++) putPoint(b, i, points[i]!, ids);
  return b;
}

/** A spent one-time pair crossed the way its trigger fires: gated, the pair stays spent (spent-pairs.ts). */
export type SpentEffect = Omit<SuppressedEffect, 'reason'> & { reason: 'one_time_spent' };

/**
 * An effect with the user it concerns and, when a point caused it, that point's index in the batch.
 * In a batch of bodies, a firing no point caused (a dwell deadline reached inside the batch) has
 * `loc`, the row of the user's last point applied before it, when that is in the batch (else the
 * user's stored last location locates it); and a firing or gated firing has `receivedAt`, when the
 * service received the point that caused it or applied the tick.
 */
export type ShardEffect = (Effect | SpentEffect) & { userId: string; point?: number; loc?: number; receivedAt?: number };

/** A record to persist: `null` means the pair is outside again (delete the stored record). */
export interface RecordChange {
  userId: string;
  triggerId: string;
  placeId: string;
  record: PairRecord | null;
  /** The transition behind this change (kept even when the record goes away; none for a dropped pair), for logs. */
  transition?: Transition;
  /** In a batch of bodies: the row of the point that moved the pair (none: a tick or a rule moved it). */
  row?: number;
}

export interface ShardOutput {
  effects: ShardEffect[];
  changes: RecordChange[];
  /** Decision timeline entries (machines/timeline.ts), when the shard records them; absent when none. */
  timeline?: TimelineRecord[];
}

/**
 * One timeline entry as the shard makes it: the facts of machines/timeline.ts, who and which
 * geofence, and the point behind it (`lat` NaN for a clock tick; `acc` NaN when missing).
 */
export interface TimelineRecord extends TimelineFacts {
  userId: string;
  triggerId: string;
  placeId: string;
  layerId: string;
  lat: number;
  lon: number;
  acc: number;
  /** Device time of the point (the entry's `at` may differ: a dwell reached by a point is dated at its deadline). */
  pointAt: number;
  zone: Zone | null;
  /** Metres from the place's centre; NaN when no point. */
  distance: number;
  /** When the service received the point behind it (or applied the tick), epoch ms; NaN: not told. */
  receivedAt: number;
  /** A shaped place's: how far outside its boundary the point was (negative inside), and its leave margin. */
  boundary?: TimelineBoundary;
  /** The numbers behind a gate, a dwell too short or a point in the band (timeline-detail.ts). */
  detail?: TimelineDetail;
}

/**
 * The numbers that explain an entry, as the shard knew them when it decided (epoch ms for times):
 * a daily window and the user's zone, date bounds, the rate limit and the firing it counts from,
 * the stay against the dwell, the distance a leave needs.
 */
export type TimelineDetail =
  | { kind: 'time_window'; windows: { from: string; to: string }[]; zone: string; local_time: string }
  | { kind: 'date_window'; date_from: number | null; date_to: number | null }
  | { kind: 'rate_limit'; limit_s: number; last_fired_at: number; allowed_at: number }
  | { kind: 'dwell'; stayed_s: number; dwell_s: number; entered_at: number; deadline: number }
  | { kind: 'band'; radius_m: number; margin_m: number; leave_beyond_m: number };

export interface TimelineBoundary {
  shape: 'polygon' | 'corridor';
  /** Metres outside the boundary; negative inside. */
  outside: number;
  /** The leave margin, metres beyond the boundary. */
  margin: number;
}

export interface PairView {
  triggerId: string;
  placeId: string;
  record: PairRecord;
}

export interface UserView {
  userId: string;
  layers: string[];
  timezone: string;
  lastAt: number | null;
  pairs: PairView[];
}

export interface InspectFilter {
  triggerId?: string;
  placeId?: string;
}

export interface ShardStats {
  users: number;
  fences: number;
  records: number;
  byState: Record<PairState, number>;
  pendingDeadlines: number;
  points: number;
  /** Points not newer than the user's last applied point: stored elsewhere, moved nothing. */
  oldPoints: number;
  /** Full XState transitions run (every other event took the fast path). */
  machineRuns: number;
  /** Index queries (the rest were served by the per-user nearby cache). */
  indexQueries: number;
  heapUsed: number;
  /** CPU time of the thread that owns the shard (Linux; absent elsewhere), for benchmarks. */
  threadCpuMs?: number;
}

export interface ShardOptions {
  hysteresis?: HysteresisOptions;
  /** Half size of the per-user nearby cache box, metres. */
  nearbyHalfSizeM?: number;
  /** Allow test-only requests (`crash`). */
  testHooks?: boolean;
  /** Record the decision timeline (ShardOutput.timeline). */
  timeline?: boolean;
}

interface Base {
  v: typeof PROTOCOL_VERSION;
  /** Which seeding of the shard this request expects; a mismatch means the worker lost its state. */
  generation: number;
}

/**
 * A location/update for the shard to read, evaluate and shape for storing: every body is read in
 * the shards, off the main thread.
 */
export interface BodyRequest {
  userId: string;
  /** The body as received: JSON text… */
  text?: string;
  /** …or the value a form body was read into. */
  value?: unknown;
  /** Server time of receipt, epoch ms: points more than a day ahead of it are refused. */
  now: number;
  /** Keep every point of the request (its application keeps history); else its newest only, as the last location. */
  all: boolean;
  /** The request's zone, for a point date without an offset; absent for UTC. */
  timeZone?: string;
}

/** What became of one BodyRequest: refused whole (nothing applied), or its rows in the batch (`newest`: the last of the newest). */
export type BodyResult = Exclude<BodyRead, { points: unknown[] }> | { first: number; count: number; newest: number };

/** The flags of a stored row (StoredRows.flags). */
export const ROW_HISTORY = 1;
export const ROW_LAST = 2;
/** The uuid came with the point (a repeat of it is the same point); else the shard made it. */
export const ROW_OWN_UUID = 4;

/**
 * What a batch of bodies stores, and the points that locate its firings: the batch rows kept, with
 * what the batch's columns do not hold. A row is kept for the history (every point of a request
 * whose application keeps history), as a last location (each request's newest), or to locate a
 * firing (flags 0 then).
 */
export interface StoredRows {
  /** Batch rows, ascending. */
  row: Int32Array;
  flags: Uint8Array;
  /** Four per kept row: speed, altitude, heading, vertical accuracy (NaN: none). */
  extra: Float64Array;
  /** Three per kept row: the uuid, `raw` as JSON text (null: none), `client` as JSON text (null: none). */
  text: Array<string | null>;
}

export interface BodiesOutput extends ShardOutput {
  results: BodyResult[];
  /** The points applied, in columns; effects' `point` and `loc` and changes' `row` index into it. */
  batch: PointBatch;
  stored: StoredRows;
  /** How many of the batch's points were applied (newer than their user's last applied point); the rest moved nothing. */
  applied: number;
}

export type ShardRequest =
  | (Base & { type: 'load'; shardIndex: number; options: ShardOptions; seed: ShardSeed })
  | (Base & { type: 'fences'; upsert: Geofence[]; remove: string[] })
  | (Base & { type: 'users'; users: UserSeed[] })
  | (Base & { type: 'points'; batch: PointBatch })
  | (Base & { type: 'bodies'; requests: BodyRequest[] })
  | (Base & { type: 'tick'; now: number; appliedAt?: number })
  | (Base & { type: 'inspect'; userId: string; filter?: InspectFilter })
  | (Base & { type: 'stats' })
  | (Base & { type: 'crash' });

export interface ReplyOf {
  /** The pairs the load released (ShardState.load), for the host to store. */
  load: { loaded: true; changes: RecordChange[] };
  fences: ShardOutput;
  users: ShardOutput;
  points: ShardOutput;
  bodies: BodiesOutput;
  tick: ShardOutput;
  inspect: UserView | null;
  stats: ShardStats;
  crash: never;
}

export type ShardErrorCode = 'not_seeded' | 'version_mismatch' | 'bad_request';

export type ShardResponse<T = unknown> =
  /**
   * `nextDeadline`: the earliest dwell deadline the shard may hold after this request (a lower
   * bound; absent when none), so the host can tick right at it instead of on a polling interval.
   */
  | { v: typeof PROTOCOL_VERSION; ok: true; result: T; nextDeadline?: number }
  | { v: typeof PROTOCOL_VERSION; ok: false; error: ShardErrorCode; message: string };
