// Everything one shard knows and does, as a plain class: the worker wraps one in module scope,
// tests and benchmarks use it in-process. It holds the geofence index replica, the users of the
// shard (layers, timezone, last applied time, rate-limit memory) and the records of the pairs
// that are not outside. Points and ticks go in; effects and record changes come out as data.
//
// Hot path per point: a 4-comparison check of the user's nearby cache (rbush queries of the user's
// layers only when the user left the cached box or geofences changed), a bbox test per cached
// candidate, a distance per candidate in the box and per active record (haversine for a circle,
// src/geo/shape.ts for a polygon or corridor), and `needsMachine` before any XState transition. A point that changes nothing allocates nothing here.
//
// Time rules applied on top of the machine (machines/README.md "Order and time"):
// - per user, points are applied in device-time order; one not newer than the last applied moves nothing;
// - before a point at t, the user's dwell deadlines ≤ t fire as ticks at their deadline, so the
//   outcome does not depend on whether the scheduler's tick or the (late, batched) point came first;
// - a pair never moves backwards: an event older than the record's `since` leaves it alone.
// How far a tick may go (the grace for late points) is the host's call: src/engine/dwell-clock.ts.
//
// The machine is the only writer of records: a rule or membership change is sent to the pairs it
// concerns as an event (RELEASE, LEAVE_LAYER, FORGET; machines/README.md) and goes through the same
// `move` as points and ticks.
import { needsMachine, type HostEvent, type PairEvent, type PairRecord } from '../machines/index.js';
import { metresToLatDeg } from '../src/geo/distance.js';
import { entryContains } from '../src/geo/fence-index.js';
import { fenceMeasureM, fenceZone } from '../src/geo/fence-zone.js';
import { resolveHysteresis, type Hysteresis, type Zone } from '../src/geo/hysteresis.js';
import {
  toBatch,
  type Geofence,
  type InspectFilter,
  type LastFiredSeed,
  type PointBatch,
  type PointInput,
  type RecordSeed,
  type ShardOptions,
  type ShardOutput,
  type ShardSeed,
  type ShardStats,
  type UserSeed,
  type UserView,
} from './protocol.js';
import { groupByUser } from './batch-order.js';
import { DeadlineSet } from './deadline-set.js';
import { FenceReplica } from './fence-replica.js';
import { machineTime, releaseEvent } from './one-time-release.js';
import { movedDeadline, movePair, type StepSite } from './pair-move.js';
import { TimelineRecorder } from './shard-timeline.js';
import { allRecords, inspectUser, shardStats } from './shard-view.js';
import { seedSpentIn, spentLeaving, spentNear, trackSpentStep } from './spent-pairs.js';
import { newSlot, refreshActive, type UserSlot } from './user-slot.js';

const DEFAULT_NEARBY_HALF_SIZE_M = 250;

export class ShardState {
  private readonly h: Hysteresis;
  private readonly replica: FenceReplica;
  /** The replica's geofences by key (the same map). */
  private readonly fences: ReadonlyMap<string, Geofence>;
  private readonly users = new Map<string, UserSlot>();
  private readonly deadlines = new DeadlineSet();
  private counters = { points: 0, oldPoints: 0, machineRuns: 0 };
  /** Reused for the no-change test of active pairs: `needsMachine` keeps no reference to it. */
  private readonly scratch: { type: 'POINT'; at: number; zone: Zone } = { type: 'POINT', at: 0, zone: 'out' };
  /** The decision timeline's recorder (shard-timeline.ts); null when the shard records none. */
  private readonly tl: TimelineRecorder | null;
  /**
   * Where the step under way happens: in a batch of bodies the row being applied and the row of the
   * user's last point applied before it (-1: none in this batch), and always when the point was
   * received or the tick applied (NaN: not told). Reset after each call.
   */
  private readonly site: StepSite = { row: -1, loc: -1, recv: NaN };

  constructor(options: ShardOptions = {}) {
    this.h = resolveHysteresis(options.hysteresis);
    this.tl = options.timeline === true ? new TimelineRecorder(this.h) : null;
    this.replica = new FenceReplica(this.h, metresToLatDeg(options.nearbyHalfSizeM ?? DEFAULT_NEARBY_HALF_SIZE_M));
    this.fences = this.replica.fences;
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
    for (const u of this.users.values()) seedSpentIn(u, this.fences, this.h);
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
    const released = this.replica.upsert(fences);
    return released === null ? { effects: [], changes: [] } : this.release(released);
  }

  /** one_time went from 1 to 0: the spent pairs of `keys` are sent a RELEASE (one-time-release.ts). */
  private release(keys: ReadonlySet<string>): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    for (const u of this.users.values()) {
      this.sendPairs(u, (f, rec) => (keys.has(f.key) ? releaseEvent(u, f, rec, this.h) : null), out);
    }
    return out;
  }

  /** Drop geofences; their pairs are sent a FORGET (reported as `record: null` so the host deletes them). */
  removeFences(keys: readonly string[]): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    const gone = new Set(keys.filter((k) => this.fences.has(k)));
    if (gone.size === 0) return out;
    for (const u of this.users.values()) {
      this.sendPairs(u, (f, rec) => (gone.has(f.key) ? { type: 'FORGET', at: machineTime(u, rec) } : null), out);
    }
    this.replica.remove(keys);
    return out;
  }

  /**
   * Set layers / timezone (and optionally the last applied time) of users. The user's pairs of
   * layers they are not on are sent a LEAVE_LAYER: inside/dwelling ones go without firing,
   * firedOnce ones stay.
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
      this.sendPairs(u, (f, rec) => (u.layers.includes(f.layerId) ? null : { type: 'LEAVE_LAYER', at: machineTime(u, rec) }), out);
    }
    return out;
  }

  // ---- points and ticks -----------------------------------------------------------------------

  applyPoints(points: readonly PointInput[]): ShardOutput {
    return this.applyBatch(toBatch(points));
  }

  /**
   * Apply a batch: grouped per user, each user's points in device-time order. `located` (a batch of
   * bodies): changes name the row of the point that moved them, firings no point caused the row
   * that locates them (protocol.ts RecordChange.row, ShardEffect.loc).
   */
  applyBatch(b: PointBatch, located = false): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    const n = b.at.length;
    const order = groupByUser(b);
    const site = this.site;
    for (let k = 0; k < n; ) {
      const uIdx = b.user[order[k]!]!;
      const u = this.slot(b.users[uIdx]!);
      site.loc = -1;
      for (; k < n && b.user[order[k]!] === uIdx; k++) {
        const i = order[k]!;
        if (located) site.row = i;
        this.received(b.recv[i]!);
        this.applyPoint(u, i, b.at[i]!, b.lat[i]!, b.lon[i]!, b.acc[i]!, out);
      }
    }
    this.leaveSite();
    return out;
  }

  /** The earliest dwell deadline any user may have (a lower bound: Infinity when none). */
  get nextDeadline(): number {
    return this.deadlines.next;
  }

  /** Fire every dwell deadline ≤ now, each at its deadline (deterministic firing time); `appliedAt`: the host's clock. */
  tick(now: number, appliedAt = NaN): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    this.received(appliedAt);
    this.deadlines.due(now, (u) => this.fireDue(u, now, out));
    this.leaveSite();
    return out;
  }

  private received(at: number): void {
    this.site.recv = at;
    if (this.tl !== null) this.tl.recv = at;
  }

  private leaveSite(): void {
    this.site.row = -1;
    this.site.loc = -1;
    this.received(NaN);
  }

  // ---- state out ------------------------------------------------------------------------------

  inspect(userId: string, filter: InspectFilter = {}): UserView | null {
    const u = this.users.get(userId);
    return u === undefined ? null : inspectUser(u, filter);
  }

  /** Points applied since the shard started: newer than their user's last applied point. */
  get appliedPoints(): number {
    return this.counters.points - this.counters.oldPoints;
  }

  stats(): ShardStats {
    return shardStats(this.users, this.fences.size, { ...this.counters, indexQueries: this.replica.indexQueries });
  }

  /** Every record held, for tests and for a host that wants to compare with its store. */
  records(): IterableIterator<RecordSeed> {
    return allRecords(this.users.values());
  }

  // ---- internals ------------------------------------------------------------------------------

  private applyPoint(u: UserSlot, i: number, at: number, lat: number, lon: number, acc: number, out: ShardOutput): void {
    this.counters.points++;
    // Older than the last applied point, or that point sent again: moves nothing. A point as old
    // but elsewhere (an SDK stamping whole seconds) is applied, in arrival order.
    if (!(at >= u.clock) || (at === u.clock && lat === u.lat && lon === u.lon && acc === u.acc)) {
      this.counters.oldPoints++;
      // A stale point is worth an entry; the last applied point sent again (a retry) is not.
      if (this.tl !== null && at < u.clock) this.tl.stalePoint(out, u, this.fences, this.nearFor(u, lat, lon), this.h, at, lat, lon, acc);
      return;
    }
    if (u.nextDeadline <= at) this.fireDue(u, at, out);
    // Later firings of this user's in the batch no point causes are located here.
    if (this.site.row >= 0) this.site.loc = i;
    u.clock = at;
    u.lat = lat;
    u.lon = lon;
    u.acc = acc;
    const effectsBefore = out.effects.length;
    const tl = this.tl;
    tl?.point(at, lat, lon, acc);

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
      const d = fenceMeasureM(f, lat, lon, this.h);
      ev.zone = fenceZone(f, d, acc, this.h);
      tl?.pair(ev.zone, d);
      if (needsMachine(rec, ev)) this.move(u, f, rec, { type: 'POINT', at, zone: ev.zone }, i, effectsBefore, out);
      else tl?.unmoved(out, u, f, rec.state, ev.zone, d, at);
    }
    // Spent one-time pairs move no machine: leaving one the user is inside of may be a gated firing (spent-pairs.ts).
    if (u.spentIn !== null) spentLeaving(out, u, this.fences, this.h, at, lat, lon, acc, i, this.site.recv, tl);

    // Geofences near the point that the user is not in yet: only an in-point can start a pair.
    const near = this.nearFor(u, lat, lon);
    const box = u.nearBox;
    for (let j = 0, k = 0; j < near.length; j++, k += 4) {
      if (lat < box[k]! || lat > box[k + 1]! || lon < box[k + 2]! || lon > box[k + 3]!) continue;
      const e = near[j]!;
      if (e.wide && !entryContains(e, lat, lon)) continue;
      const f = e.fence;
      const held = u.pairs === null ? undefined : u.pairs.get(f.key);
      if (held !== undefined) {
        // A spent one-time pair entered again may be a gated firing; the others were seen above.
        if (held.state === 'firedOnce') spentNear(out, u, f, held, this.h, at, lat, lon, acc, i, this.site.recv, tl);
        continue;
      }
      const d = fenceMeasureM(f, lat, lon, this.h);
      const zone = fenceZone(f, d, acc, this.h);
      if (zone !== 'in') {
        tl?.unmoved(out, u, f, 'outside', zone, d, at);
        continue;
      }
      tl?.pair(zone, d);
      this.move(u, f, undefined, { type: 'POINT', at, zone: 'in' }, i, effectsBefore, out);
    }
  }

  /** The geofences near a point (the user's nearby cache); a new lookup ends the timeline's episodes of places left behind. */
  private nearFor(u: UserSlot, lat: number, lon: number) {
    const before = u.near;
    const near = this.replica.nearFor(u, lat, lon);
    if (near !== before && this.tl !== null) this.tl.nearChanged(u, near);
    return near;
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
      this.tl?.noPoint(best);
      this.move(u, f, rec, { type: 'TICK', at: best }, undefined, out.effects.length, out);
    }
  }

  /** Run one pair through `step` (which runs the machine) and account for the result (pair-move.ts). */
  private move(u: UserSlot, f: Geofence, rec: PairRecord | undefined, ev: PairEvent, point: number | undefined, effectsFrom: number, out: ShardOutput): void {
    this.counters.machineRuns++;
    const site = this.site;
    // A tick reached inside a batch moves the pair: no row moved it; its firing is located.
    const row = site.row;
    if (ev.type !== 'POINT') site.row = -1;
    const res = movePair(u, f, rec, ev, point, effectsFrom, out, site);
    site.row = row;
    trackSpentStep(u, f.key, rec, ev, res);
    this.tl?.step(out, u, f, rec, res);
    if (movedDeadline(rec, res)) this.deadlines.update(u);
  }

  /**
   * Send each of the user's pairs the event `eventFor` gives it (null: none), in record order, and
   * record what the machine returns. The events are chosen first: sending them changes the records.
   */
  private sendPairs(u: UserSlot, eventFor: (f: Geofence, rec: PairRecord) => HostEvent | null, out: ShardOutput): void {
    if (u.pairs === null) return;
    const sends: Array<[Geofence, PairRecord, HostEvent]> = [];
    for (const [key, rec] of u.pairs) {
      const f = this.fences.get(key)!;
      const ev = eventFor(f, rec);
      if (ev !== null && needsMachine(rec, ev)) sends.push([f, rec, ev]);
    }
    for (const [f, rec, ev] of sends) {
      this.tl?.noPoint(ev.at);
      this.move(u, f, rec, ev, undefined, out.effects.length, out);
    }
  }

  private slot(userId: string): UserSlot {
    let u = this.users.get(userId);
    if (u === undefined) {
      u = newSlot(userId);
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
    this.deadlines.update(u);
  }

  private loadLastFired(l: LastFiredSeed): void {
    const u = this.slot(l.userId);
    const m = (u.lastFired ??= new Map());
    if (!(m.get(l.triggerId)! >= l.at)) m.set(l.triggerId, l.at);
  }
}
