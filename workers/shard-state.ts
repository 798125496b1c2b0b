// Everything one shard knows and does, as a plain class: the worker wraps one in module scope,
// tests and benchmarks use it in-process. It holds the geofence index replica, the users of the
// shard (layers, timezone, last applied time, rate-limit memory) and the records of the pairs
// that are not outside. Points and ticks go in; effects and record changes come out as data.
//
// Hot path per point: a 4-comparison check of the user's nearby cache (rbush queries of the user's
// layers only when the user left the cached box or geofences changed), a bbox test per cached candidate, a
// haversine per candidate in the box and per active record, and `needsMachine` before any
// XState transition. A point that changes nothing allocates nothing here.
//
// Time rules applied on top of the machine (machines/README.md "Order and time"):
// - per user, points are applied in device-time order; one not newer than the last applied moves nothing;
// - before a point at t, the user's dwell deadlines ≤ t fire as ticks at their deadline, so the
//   outcome does not depend on whether the scheduler's tick or the (late, batched) point came first;
// - a pair never moves backwards: an event older than the record's `since` leaves it alone.
// How far a tick may go (the grace for late points) is the host's call: src/engine/dwell-clock.ts.
import { getHeapStatistics } from 'node:v8';
import { HISTORY_LIMIT, needsMachine, step, type GateLookup, type PairRecord, type StepEvent, type StepResult, type Transition } from '../machines/index.js';
import { haversineM, metresToLatDeg } from '../src/geo/distance.js';
import { entryContains, FenceIndex, type FenceEntry } from '../src/geo/fence-index.js';
import { classifyZone, resolveHysteresis, type Hysteresis, type Zone } from '../src/geo/hysteresis.js';
import { windowGate } from '../src/geo/time-window.js';
import {
  toBatch,
  type Geofence,
  type InspectFilter,
  type LastFiredSeed,
  type PointBatch,
  type PointInput,
  type RecordChange,
  type RecordSeed,
  type ShardEffect,
  type ShardOptions,
  type ShardOutput,
  type ShardSeed,
  type ShardStats,
  type UserSeed,
  type UserView,
} from './protocol.js';

const DEFAULT_NEARBY_HALF_SIZE_M = 250;

interface UserSlot {
  id: string;
  layers: string[];
  tz: string;
  /** Device time of the last applied point; -Infinity before the first. */
  clock: number;
  /** Where that point was (NaN before the first): what a released one-time pair is judged by. */
  lat: number;
  lon: number;
  acc: number;
  /** Records of pairs that are not outside, by fence key; null while there are none. */
  pairs: Map<string, PairRecord> | null;
  /** Keys of the pairs that are inside or dwelling, sorted (firedOnce ones never move). */
  act: string[];
  /** Earliest pending dwell deadline of this user's pairs; Infinity when none. */
  nextDeadline: number;
  /** Last unsuppressed firing per trigger, for the layer's rate limit. */
  lastFired: Map<string, number> | null;
  // Nearby cache: every geofence of the user's layers whose box meets this box, sorted by key.
  // Valid while `nearVersion` equals the shard's fence version; any point inside the box can only
  // be in geofences of this list (rbush returns every box intersecting the query box).
  nearVersion: number;
  nMinLat: number;
  nMaxLat: number;
  nMinLon: number;
  nMaxLon: number;
  near: FenceEntry<Geofence>[];
  /** Boxes of `near` as [minLat, maxLat, minLon, maxLon] runs: one sequential scan per point
   * (a plain array of doubles: V8 stores it unboxed, and small typed arrays are slower to make). */
  nearBox: number[];
}

const EMPTY_NEAR: FenceEntry<Geofence>[] = [];
const EMPTY_BOX: number[] = [];
const NO_KEYS: string[] = [];

export class ShardState {
  private readonly h: Hysteresis;
  /** One spatial index per layer: a user only ever searches the layers it belongs to. */
  private readonly byLayer = new Map<string, FenceIndex<Geofence>>();
  private readonly fences = new Map<string, Geofence>();
  /** Bumped on every geofence change: a user's nearby cache from an older version is stale. */
  private fenceVersion = 0;
  private readonly users = new Map<string, UserSlot>();
  /** Users with at least one pending deadline. */
  private readonly deadlineUsers = new Set<UserSlot>();
  /** Lower bound of every pending deadline: a tick before it has nothing to do. */
  private minDeadline = Infinity;
  private readonly nearHalfLat: number;
  private readonly nearHalfM: number;
  private counters = { points: 0, oldPoints: 0, machineRuns: 0, indexQueries: 0 };
  /** Reused for the no-change test of active pairs: `needsMachine` keeps no reference to it. */
  private readonly scratch: { type: 'POINT'; at: number; zone: Zone } = { type: 'POINT', at: 0, zone: 'out' };

  constructor(options: ShardOptions = {}) {
    this.h = resolveHysteresis(options.hysteresis);
    this.nearHalfM = options.nearbyHalfSizeM ?? DEFAULT_NEARBY_HALF_SIZE_M;
    this.nearHalfLat = metresToLatDeg(this.nearHalfM);
  }

  // ---- state in -------------------------------------------------------------------------------

  /**
   * Restore persisted state. Records of unknown geofences are kept out (the trigger is gone). The
   * answer is what the load changed: pairs of triggers made recurring meanwhile, released (below).
   */
  load(seed: ShardSeed): ShardOutput {
    if (seed.fences) this.upsertFences(seed.fences);
    if (seed.users) this.setUsers(seed.users);
    for (const r of seed.records ?? []) this.loadRecord(r);
    for (const l of seed.lastFired ?? []) this.loadLastFired(l);
    // A trigger made recurring while this shard was down or being rebuilt never reached
    // upsertFences as a change: its spent pairs are released here, as they would have been then,
    // and reported so that the host stores the release (until it does, a restart releases them again).
    const recurring = new Set<string>();
    for (const u of this.users.values()) {
      if (u.pairs === null) continue;
      for (const [key, rec] of u.pairs) if (rec.state === 'firedOnce' && this.fences.get(key)?.oneTime === false) recurring.add(key);
    }
    return recurring.size > 0 ? this.release(recurring) : { effects: [], changes: [] };
  }

  /** Add or replace geofences; a trigger that stops being one-time releases its spent pairs (see `release`). */
  upsertFences(fences: readonly Geofence[]): ShardOutput {
    const perLayer = new Map<string, Geofence[]>();
    let released: Set<string> | null = null;
    for (const f of fences) {
      const prev = this.fences.get(f.key);
      if (prev !== undefined && prev.layerId !== f.layerId) this.unindex(prev);
      if (prev !== undefined && prev.oneTime && !f.oneTime) (released ??= new Set()).add(f.key);
      this.fences.set(f.key, f);
      let list = perLayer.get(f.layerId);
      if (!list) perLayer.set(f.layerId, (list = []));
      list.push(f);
    }
    for (const [layerId, list] of perLayer) {
      let idx = this.byLayer.get(layerId);
      if (!idx) this.byLayer.set(layerId, (idx = new FenceIndex<Geofence>(this.h)));
      idx.upsert(list);
    }
    if (fences.length > 0) this.fenceVersion++;
    return released === null ? { effects: [], changes: [] } : this.release(released);
  }

  /**
   * one_time went from 1 to 0: the trigger recurs for everyone from now on, so its `firedOnce`
   * pairs leave that state, without firing. Where the user's last applied point puts them decides
   * (machines/README.md "Turning one_time off"): `in` is a visit under way (`inside`, no dwell
   * deadline), `out` is outside; a band, unusable or missing point is whichever of the two cannot
   * fire before the user is seen crossing: `inside` for an enter trigger (it fires on the next
   * entry, never for the visit that already fired), outside for a leave trigger (it fires on
   * leaving after the next entry, never for a visit no point showed).
   */
  private release(keys: ReadonlySet<string>): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    for (const u of this.users.values()) {
      if (u.pairs === null) continue;
      const spent: Array<[string, PairRecord]> = [];
      for (const [key, rec] of u.pairs) if (rec.state === 'firedOnce' && keys.has(key)) spent.push([key, rec]);
      for (const [key, rec] of spent) {
        const f = this.fences.get(key)!;
        const zone = classifyZone(haversineM(u.lat, u.lon, f.lat, f.lon), f.radius, u.acc, this.h);
        // A user no longer on the trigger's layer is outside it (no leave may fire for them).
        const inside = u.layers.includes(f.layerId) && (zone === 'in' || (zone !== 'out' && f.triggerOn === 'enter'));
        // Machine time: the user's last point (or the firing, if a dwell tick came after it).
        const at = Math.max(rec.since, u.clock);
        const transition: Transition = { from: 'firedOnce', to: inside ? 'inside' : 'outside', at, reason: 'one_time_off' };
        let next: PairRecord | null = null;
        if (inside) {
          // Inside as of `at`: the spent record's entry may be a visit the user has left since.
          next = { state: 'inside', since: at, enteredAt: at, history: [...rec.history.slice(1 - HISTORY_LIMIT), transition] };
          u.pairs.set(key, next);
        } else {
          u.pairs.delete(key);
        }
        out.changes.push({ userId: u.id, triggerId: f.triggerId, placeId: f.placeId, record: next, transition });
      }
      if (spent.length === 0) continue;
      if (u.pairs.size === 0) u.pairs = null;
      refreshActive(u);
    }
    return out;
  }

  /** Drop geofences; their records go too (reported as `record: null` so the host deletes them). */
  removeFences(keys: readonly string[]): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    let removed = 0;
    for (const k of keys) {
      const f = this.fences.get(k);
      if (f === undefined) continue;
      this.unindex(f);
      this.fences.delete(k);
      removed++;
    }
    if (removed === 0) return out;
    this.fenceVersion++;
    const gone = new Set(keys);
    for (const u of this.users.values()) {
      if (u.pairs === null) continue;
      for (const key of u.pairs.keys()) {
        if (!gone.has(key)) continue;
        const [triggerId, placeId] = splitKey(key);
        this.forget(u, key);
        out.changes.push({ userId: u.id, triggerId, placeId, record: null });
      }
      this.afterRecordsChanged(u);
    }
    return out;
  }

  /**
   * Set layers / timezone (and optionally the last applied time) of users. Leaving a layer drops
   * the user's inside/dwelling records of its geofences without firing; firedOnce records stay.
   */
  setUsers(users: readonly UserSeed[]): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    for (const s of users) {
      const u = this.slot(s.userId);
      u.layers = [...new Set(s.layers)];
      if (s.timezone) u.tz = s.timezone;
      if (s.lastAt !== undefined && s.lastAt > u.clock) {
        u.clock = s.lastAt;
        if (s.lastPoint) {
          u.lat = s.lastPoint.lat;
          u.lon = s.lastPoint.lon;
          u.acc = s.lastPoint.acc;
        }
      }
      u.nearVersion = -1;
      if (u.pairs === null) continue;
      for (const [key, rec] of u.pairs) {
        if (rec.state === 'firedOnce') continue;
        const f = this.fences.get(key);
        if (f !== undefined && u.layers.includes(f.layerId)) continue;
        const [triggerId, placeId] = splitKey(key);
        this.forget(u, key);
        out.changes.push({ userId: u.id, triggerId, placeId, record: null });
      }
      this.afterRecordsChanged(u);
    }
    return out;
  }

  // ---- points and ticks -----------------------------------------------------------------------

  applyPoints(points: readonly PointInput[]): ShardOutput {
    return this.applyBatch(toBatch(points));
  }

  /** Apply a batch: grouped per user, each user's points in device-time order. */
  applyBatch(b: PointBatch): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    const n = b.at.length;
    const order = groupByUser(b);
    for (let k = 0; k < n; ) {
      const uIdx = b.user[order[k]!]!;
      const u = this.slot(b.users[uIdx]!);
      for (; k < n && b.user[order[k]!] === uIdx; k++) {
        const i = order[k]!;
        this.applyPoint(u, i, b.at[i]!, b.lat[i]!, b.lon[i]!, b.acc[i]!, out);
      }
    }
    return out;
  }

  /** The earliest dwell deadline any user may have (a lower bound: Infinity when none). */
  get nextDeadline(): number {
    return this.minDeadline;
  }

  /** Fire every dwell deadline ≤ now, each at its deadline (deterministic firing time). */
  tick(now: number): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    if (now < this.minDeadline) return out;
    let min = Infinity;
    for (const u of this.deadlineUsers) {
      if (u.nextDeadline <= now) this.fireDue(u, now, out);
      if (u.nextDeadline < min) min = u.nextDeadline;
    }
    this.minDeadline = min;
    return out;
  }

  // ---- state out ------------------------------------------------------------------------------

  inspect(userId: string, filter: InspectFilter = {}): UserView | null {
    const u = this.users.get(userId);
    if (u === undefined) return null;
    const pairs = [];
    for (const [key, record] of u.pairs ?? []) {
      const [triggerId, placeId] = splitKey(key);
      if (filter.triggerId !== undefined && filter.triggerId !== triggerId) continue;
      if (filter.placeId !== undefined && filter.placeId !== placeId) continue;
      pairs.push({ triggerId, placeId, record });
    }
    return { userId, layers: u.layers.slice(), timezone: u.tz, lastAt: Number.isFinite(u.clock) ? u.clock : null, pairs };
  }

  stats(): ShardStats {
    const byState = { inside: 0, dwelling: 0, firedOnce: 0 };
    let records = 0;
    let pendingDeadlines = 0;
    for (const u of this.users.values()) {
      for (const r of u.pairs?.values() ?? []) {
        records++;
        byState[r.state]++;
        if (r.deadline !== undefined) pendingDeadlines++;
      }
    }
    return {
      users: this.users.size,
      fences: this.fences.size,
      records,
      byState,
      pendingDeadlines,
      ...this.counters,
      heapUsed: getHeapStatistics().used_heap_size,
    };
  }

  /** Every record held, for tests and for a host that wants to compare with its store. */
  *records(): IterableIterator<RecordSeed> {
    for (const u of this.users.values()) {
      for (const [key, record] of u.pairs ?? []) {
        const [triggerId, placeId] = splitKey(key);
        yield { userId: u.id, triggerId, placeId, record };
      }
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  private applyPoint(u: UserSlot, i: number, at: number, lat: number, lon: number, acc: number, out: ShardOutput): void {
    this.counters.points++;
    if (!(at > u.clock)) {
      this.counters.oldPoints++;
      return;
    }
    if (u.nextDeadline <= at) this.fireDue(u, at, out);
    u.clock = at;
    u.lat = lat;
    u.lon = lon;
    u.acc = acc;
    const effectsBefore = out.effects.length;

    // Pairs the user is in: the point may take them out (even far from every indexed box).
    // `act` is replaced, never mutated, when records change, so iterating it while moving is safe.
    const act = u.act;
    for (let j = 0; j < act.length; j++) {
      const key = act[j]!;
      const rec = u.pairs?.get(key);
      if (rec === undefined || at < rec.since) continue;
      const f = this.fences.get(key)!;
      const ev = this.scratch;
      ev.at = at;
      ev.zone = classifyZone(haversineM(lat, lon, f.lat, f.lon), f.radius, acc, this.h);
      if (needsMachine(rec, ev)) this.move(u, f, rec, { type: 'POINT', at, zone: ev.zone }, i, effectsBefore, out);
    }

    // Geofences near the point that the user is not in yet: only an in-point can start a pair.
    const near = this.nearFor(u, lat, lon);
    const box = u.nearBox;
    for (let j = 0, k = 0; j < near.length; j++, k += 4) {
      if (lat < box[k]! || lat > box[k + 1]! || lon < box[k + 2]! || lon > box[k + 3]!) continue;
      const e = near[j]!;
      if (e.wide && !entryContains(e, lat, lon)) continue;
      const f = e.fence;
      if (u.pairs !== null && u.pairs.has(f.key)) continue;
      if (classifyZone(haversineM(lat, lon, f.lat, f.lon), f.radius, acc, this.h) !== 'in') continue;
      this.move(u, f, undefined, { type: 'POINT', at, zone: 'in' }, i, effectsBefore, out);
    }
  }

  /** Fire the user's deadlines ≤ upTo in deadline order (ties by key, for determinism). */
  private fireDue(u: UserSlot, upTo: number, out: ShardOutput): void {
    for (;;) {
      let bestKey: string | undefined;
      let best = Infinity;
      for (const [key, rec] of u.pairs ?? []) {
        const d = rec.deadline;
        if (d !== undefined && d <= upTo && (d < best || (d === best && key < bestKey!))) {
          best = d;
          bestKey = key;
        }
      }
      if (bestKey === undefined) return;
      const rec = u.pairs!.get(bestKey)!;
      const f = this.fences.get(bestKey)!;
      this.move(u, f, rec, { type: 'TICK', at: best }, undefined, out.effects.length, out);
    }
  }

  /** Run one pair through `step` (which runs the machine) and account for the result. */
  private move(
    u: UserSlot,
    f: Geofence,
    rec: PairRecord | undefined,
    ev: StepEvent,
    point: number | undefined,
    effectsFrom: number,
    out: ShardOutput,
  ): void {
    this.counters.machineRuns++;
    const res: StepResult = step(rec, f, ev, this.gateFor(u));
    const next = res.record;
    if (next !== rec) {
      if (next === undefined) {
        u.pairs!.delete(f.key);
        if (u.pairs!.size === 0) u.pairs = null;
      } else {
        (u.pairs ??= new Map()).set(f.key, next);
      }
      const wasActive = rec !== undefined && rec.state !== 'firedOnce';
      const isActive = next !== undefined && next.state !== 'firedOnce';
      if (wasActive !== isActive) refreshActive(u);
      const change: RecordChange = { userId: u.id, triggerId: f.triggerId, placeId: f.placeId, record: next ?? null };
      if (res.transition) change.transition = res.transition;
      out.changes.push(change);
      if (rec?.deadline !== undefined || next?.deadline !== undefined) this.afterRecordsChanged(u);
    }
    for (const e of res.effects) {
      if (e.type === 'FIRE') (u.lastFired ??= new Map()).set(e.triggerId, e.at);
      // One visit per place and point, however many triggers the place has.
      if (e.type === 'VISIT' && hasVisit(out.effects, effectsFrom, u.id, e.placeId, e.at)) continue;
      // The effect's fields after the new ones: a spread first, then fields, costs ~1 µs a field in
      // V8 11 (see src/delivery/outbox.ts).
      const se: ShardEffect = point === undefined ? { userId: u.id, ...e } : { userId: u.id, point, ...e };
      out.effects.push(se);
    }
  }

  private gateFor(u: UserSlot): GateLookup {
    return (rule, at) => ({
      window: windowGate((rule as Geofence).window, at, u.tz),
      lastFiredAt: u.lastFired?.get(rule.triggerId) ?? null,
    });
  }

  /** The user's cached member geofences around (lat, lon), refreshed when stale or left. */
  private nearFor(u: UserSlot, lat: number, lon: number): FenceEntry<Geofence>[] {
    if (u.nearVersion === this.fenceVersion && lat >= u.nMinLat && lat <= u.nMaxLat && lon >= u.nMinLon && lon <= u.nMaxLon) {
      return u.near;
    }
    this.counters.indexQueries++;
    const dLat = this.nearHalfLat;
    const dLon = Math.min(180, dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6));
    u.nMinLat = lat - dLat;
    u.nMaxLat = lat + dLat;
    u.nMinLon = lon - dLon;
    u.nMaxLon = lon + dLon;
    u.nearVersion = this.fenceVersion;
    let found: FenceEntry<Geofence>[] | null = null;
    for (const layerId of u.layers) {
      const idx = this.byLayer.get(layerId);
      if (idx === undefined) continue;
      const part = idx.queryBox(u.nMinLat, u.nMinLon, u.nMaxLat, u.nMaxLon);
      if (part.length > 0) found = found === null ? part : found.concat(part);
    }
    if (found === null) {
      u.near = EMPTY_NEAR;
      u.nearBox = EMPTY_BOX;
      return EMPTY_NEAR;
    }
    const w = found.length;
    // Key order makes same-point outcomes (rate limit across places, visit dedupe) independent of
    // the tree's shape, so a restored shard decides exactly like the one it replaces.
    if (w > 1) found.sort(byFenceKey);
    u.near = w === 0 ? EMPTY_NEAR : found;
    const box: number[] = [];
    for (let j = 0; j < w; j++) {
      const e = found[j]!;
      // Wide entries pass the longitude test here and get the exact wrap-aware test after.
      box.push(e.minY, e.maxY, e.wide ? -Infinity : e.minX, e.wide ? Infinity : e.maxX);
    }
    u.nearBox = box;
    return u.near;
  }

  private slot(userId: string): UserSlot {
    let u = this.users.get(userId);
    if (u === undefined) {
      u = {
        id: userId,
        layers: [],
        tz: 'UTC',
        clock: -Infinity,
        lat: NaN,
        lon: NaN,
        acc: NaN,
        pairs: null,
        act: NO_KEYS,
        nextDeadline: Infinity,
        lastFired: null,
        nearVersion: -1,
        nMinLat: 0,
        nMaxLat: 0,
        nMinLon: 0,
        nMaxLon: 0,
        near: EMPTY_NEAR,
        nearBox: EMPTY_BOX,
      };
      this.users.set(userId, u);
    }
    return u;
  }

  private loadRecord(r: RecordSeed): void {
    const key = `${r.triggerId}:${r.placeId}`;
    if (!this.fences.has(key)) return;
    const u = this.slot(r.userId);
    (u.pairs ??= new Map()).set(key, r.record);
    refreshActive(u);
    this.afterRecordsChanged(u);
  }

  private loadLastFired(l: LastFiredSeed): void {
    const u = this.slot(l.userId);
    const m = (u.lastFired ??= new Map());
    if (!(m.get(l.triggerId)! >= l.at)) m.set(l.triggerId, l.at);
  }

  private unindex(f: Geofence): void {
    const idx = this.byLayer.get(f.layerId);
    if (idx === undefined) return;
    idx.remove([f.key]);
    if (idx.size === 0) this.byLayer.delete(f.layerId);
  }

  private forget(u: UserSlot, key: string): void {
    u.pairs!.delete(key);
    if (u.pairs!.size === 0) u.pairs = null;
    refreshActive(u);
  }

  /** Recompute the user's next deadline and keep the shard's deadline set in step. */
  private afterRecordsChanged(u: UserSlot): void {
    let next = Infinity;
    for (const r of u.pairs?.values() ?? []) if (r.deadline !== undefined && r.deadline < next) next = r.deadline;
    u.nextDeadline = next;
    if (next === Infinity) this.deadlineUsers.delete(u);
    else {
      this.deadlineUsers.add(u);
      if (next < this.minDeadline) this.minDeadline = next;
    }
  }
}

/** Rebuild the sorted list of active keys (key order makes same-point outcomes deterministic). */
function refreshActive(u: UserSlot): void {
  if (u.pairs === null) {
    u.act = NO_KEYS;
    return;
  }
  const act: string[] = [];
  for (const [key, r] of u.pairs) if (r.state !== 'firedOnce') act.push(key);
  u.act = act.length === 0 ? NO_KEYS : act.sort();
}

function byFenceKey(a: FenceEntry<Geofence>, b: FenceEntry<Geofence>): number {
  return a.fence.key < b.fence.key ? -1 : a.fence.key > b.fence.key ? 1 : 0;
}

function splitKey(key: string): [triggerId: string, placeId: string] {
  const c = key.indexOf(':');
  return [key.slice(0, c), key.slice(c + 1)];
}

function hasVisit(effects: ShardEffect[], from: number, userId: string, placeId: string, at: number): boolean {
  for (let k = from; k < effects.length; k++) {
    const e = effects[k]!;
    if (e.type === 'VISIT' && e.placeId === placeId && e.userId === userId && e.at === at) return true;
  }
  return false;
}

/**
 * Point indexes grouped by user (users in first-seen order) and sorted by device time within a
 * user, stable for equal times. Counting sort: linear, and the per-user sort runs only when that
 * user's points arrived out of order.
 */
function groupByUser(b: PointBatch): Int32Array {
  const n = b.at.length;
  const nu = b.users.length;
  const start = new Int32Array(nu + 1);
  for (let i = 0; i < n; i++) start[b.user[i]! + 1]!++;
  for (let u = 0; u < nu; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, nu);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[b.user[i]!]!++] = i;
  for (let u = 0; u < nu; u++) {
    const s = start[u]!;
    const e = start[u + 1]!;
    let sorted = true;
    for (let k = s + 1; k < e && sorted; k++) if (b.at[order[k]!]! < b.at[order[k - 1]!]!) sorted = false;
    if (!sorted) {
      const part = Array.from(order.subarray(s, e)).sort((x, y) => b.at[x]! - b.at[y]! || x - y);
      order.set(part, s);
    }
  }
  return order;
}
