// The engine's host on the main thread: it seeds the shards from the store, keeps their geofence
// indexes in step with the change feed, turns location updates into batches, feeds dwell
// deadlines as ticks, and persists what the shards return in the one order that survives a crash:
// firings first (idempotent by event id), then machine records, then the points themselves
// (history, last location). A location update is answered only after its batch went through all
// of that.
//
// Batches are pipelined in two stages: while batch N is being persisted, batch N+1 is already in
// the shards (measured: the main thread sat ~30% idle when evaluate, persist and reply ran in
// lockstep). Engine calls run one at a time, persists run one at a time and in the order of the
// engine calls, so the store follows the shards exactly as before; at most one batch waits for
// its persist while the next is evaluated. Ticks and membership changes are stages like batches;
// geofence changes wait for both stages to be empty. A shard rebuilt after a crash is seeded only
// once every result the engine returned before has been persisted.
import type { Firing, FiringPoint } from '../delivery/firings.js';
import { recordFirings } from '../delivery/firings.js';
import { apiError } from '../errors.js';
import type { Change } from '../services/changes.js';
import { longestLayerRateLimitS } from '../services/layers.js';
import type { ServiceContext } from '../services/context.js';
import { newestIndex, type LocationPoint } from '../schemas/location-points.js';
import { storedPoints, type LocationSink, type PointsInput } from '../services/locations.js';
import type { ApplicationDoc, LayerDoc, LocationDoc, PlaceDoc, TriggerDoc, TriggerHistoryDoc, UserDoc } from '../store/documents.js';
import { addHistory, saveLastLocations } from '../store/locations.js';
import {
  emptyBatch, locatingRow, rowOf, toBatch, type BodiesOutput, type BodyResult, type LastFiredSeed, type PointBatch, type PointInput, type RecordChange,
  type ShardOptions, type ShardSeed, type UserSeed, type UserView,
} from '../../workers/protocol.js';
import { randomUUID } from 'node:crypto';
import { Engine, type ApplyResult, type EngineEffect } from './engine.js';
import {
  expandAll, onLayerDeleted, onLayerSaved, onPlaceDeleted, onPlaceSaved, onTriggerDeleted, onTriggerSaved, type FenceDiff,
} from './geofences.js';
import { HostFences } from './host-fences.js';
import { MachineStates, type LastPoint } from './state-store.js';

export interface EngineHostOptions {
  shards?: number;
  /** Run the shards in this thread (tests); default: one worker thread per shard. */
  inProcess?: boolean;
  /** How often due dwell deadlines are looked for, ms. */
  tickIntervalMs?: number;
  shard?: ShardOptions;
}

interface KnownUser {
  appId: string;
  timezone: string;
}

/**
 * The points of one batch as the shards read them: columns of every row (effects index into
 * them), and the whole points at the rows the host needs (each request's newest, each firing's).
 */
interface BatchPoints {
  batch: PointBatch;
  full: Map<number, LocationPoint>;
}

interface Pending {
  userId: string;
  app: ApplicationDoc;
  user: UserDoc;
  input: PointsInput;
  now: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const NO_POINTS: BatchPoints = { batch: emptyBatch(0), full: new Map() };
const settled = () => undefined;

/** Deterministic, so that re-evaluating a batch after a crash yields the same id and no second firing. */
export const eventId = (userId: string, triggerId: string, placeId: string, on: string, at: number) =>
  `${userId}:${triggerId}:${placeId}:${on}:${at}`;

export class EngineHost implements LocationSink {
  readonly engine: Engine;
  readonly states: MachineStates;
  private readonly users = new Map<string, KnownUser>();
  /** Users whose membership is on its way to their shard. */
  private readonly joining = new Map<string, Promise<void>>();
  /** Memberships waiting for the next engine call, and that call. */
  private joinQueue: UserSeed[] = [];
  private joinCall: Promise<void> | undefined;
  /** The newest point applied per user: the `location` of a dwell fired by the clock. */
  private readonly lastPoints = new Map<string, FiringPoint>();
  /** Location updates not yet handed to the engine: the next batch. */
  private pending: Pending[] = [];
  /** A batch is in the engine stage (the next one gathers meanwhile). */
  private batchInEngine = false;
  /** Batches handed to the engine and not yet persisted (at most two: pipelining depth). */
  private batchesInFlight = 0;
  /** Tail of the engine stage: calls run one at a time. */
  private engineTail: Promise<unknown> = Promise.resolve();
  /** Tail of the persist stage: persists run one at a time, in the order of their engine calls. */
  private persistTail: Promise<unknown> = Promise.resolve();
  /** The persists queued before the engine call now running: what a rebuilt shard must wait for. */
  private persistedBeforeCall: Promise<unknown> = Promise.resolve();
  /** The engine's geofences by trigger, place and layer (set at start, follows every diff). */
  private fences = new HostFences();
  private timer: NodeJS.Timeout | undefined;
  /** A tick set for the shards' earliest dwell deadline, when it comes before the next poll. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineTimerAt = Infinity;
  private closed = false;

  constructor(private readonly ctx: ServiceContext, private readonly options: EngineHostOptions = {}) {
    this.states = new MachineStates(ctx.store);
    this.engine = new Engine({
      shards: options.shards ?? ctx.config.shards,
      inProcess: options.inProcess,
      shard: options.shard,
      // Every result returned before the failed call must be in the store first (see pipeline()).
      reseed: async (shard) => {
        await this.persistedBeforeCall.catch(settled);
        return this.seed((userId) => this.engine.shardOf(userId) === shard, false);
      },
    });
  }

  async start(): Promise<void> {
    const seed = await this.seed(() => true, true);
    await this.engine.start(seed);
    this.fences = new HostFences(this.engine.geofences());
    await this.persistReleased();
    ctxChanges(this.ctx, (change) => this.exclusive(() => this.onChange(change)));
    const every = this.options.tickIntervalMs ?? 250;
    this.timer = setInterval(() => void this.tick(this.ctx.now()).catch(() => undefined), every);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.drain(); // refuses what has not reached the engine
    await Promise.all([this.engineTail.catch(settled), this.persistTail.catch(settled)]);
    await this.engine.close();
  }

  // ---- seeding ----------------------------------------------------------------------------------

  /** Users, records and recent firings from the store (and, at start, every geofence). */
  private async seed(mine: (userId: string) => boolean, withFences: boolean): Promise<ShardSeed> {
    const { store } = this.ctx;
    const apps = await store.applications.find({}).toArray();
    const defaultLayer = new Map(apps.map((a) => [a._id, a.default_layer_id]));
    const subs = await store.subscriptions.col.find({}).toArray();
    const layersOf = new Map<string, string[]>();
    for (const s of subs) (layersOf.get(s.user_id) ?? layersOf.set(s.user_id, []).get(s.user_id)!).push(s.layer_id);
    const last = await store.collection<LocationDoc>('last_locations').find({}).toArray();
    const lastOf = new Map(last.map((l) => [l.user_id, l]));
    const users: UserSeed[] = [];
    for (const u of await store.users.col.find({}).toArray()) {
      if (!mine(u._id) || !defaultLayer.has(u.app_id)) continue;
      this.users.set(u._id, { appId: u.app_id, timezone: u.timezone });
      const seed: UserSeed = { userId: u._id, layers: [defaultLayer.get(u.app_id)!, ...(layersOf.get(u._id) ?? [])], timezone: u.timezone };
      const l = lastOf.get(u._id);
      if (l !== undefined) {
        seed.lastAt = l.date;
        seed.lastPoint = { lat: l.latitude, lon: l.longitude, acc: l.horizontal_accuracy };
      }
      users.push(seed);
    }
    const seed: ShardSeed = { users, records: await this.states.seeds(mine), lastFired: await this.recentFirings(users) };
    if (withFences) {
      const [triggers, places, layers] = await Promise.all([
        store.triggers.col.find({}).toArray(), store.places.col.find({}).toArray(), store.layers.col.find({}).toArray(),
      ]);
      seed.fences = expandAll({ triggers, places, layers: new Map(layers.map((l) => [l._id, l])) });
    }
    return seed;
  }

  /**
   * Each user's last firing per trigger that can still gate a point, so limits hold across a
   * restart: one within the longest rate limit before the user's last applied point. Measured on
   * the device clock (as the gate is), not the server's: a phone syncing points from hours ago
   * keeps its limits too. Users without an applied point have no firing to remember.
   */
  private async recentFirings(users: readonly UserSeed[]): Promise<LastFiredSeed[]> {
    let longest = 0;
    for (const f of this.fences.all()) longest = Math.max(longest, f.rateLimitS);
    if (longest === 0) longest = await longestLayerRateLimitS(this.ctx);
    if (longest === 0) return [];
    const since = new Map<string, number>();
    for (const u of users) if (u.lastAt !== undefined) since.set(u.userId, u.lastAt - longest * 1000);
    // Users in order of their window, in chunks: each query's lower bound is close to its users' own.
    const ordered = [...since.entries()].sort((a, b) => a[1] - b[1]);
    const history = this.ctx.store.collection<TriggerHistoryDoc>('trigger_history');
    const latest = new Map<string, LastFiredSeed>();
    for (let i = 0; i < ordered.length; i += 500) {
      const chunk = ordered.slice(i, i + 500);
      const rows = await history.find({ user_id: { $in: chunk.map(([id]) => id) }, date: { $gte: chunk[0]![1] } }).toArray();
      for (const r of rows) {
        if (r.run || r.date < since.get(r.user_id)!) continue;
        const k = `${r.user_id}:${r.trigger_id}`;
        if ((latest.get(k)?.at ?? -Infinity) < r.date) latest.set(k, { userId: r.user_id, triggerId: r.trigger_id, at: r.date });
      }
    }
    return [...latest.values()];
  }

  // ---- locations --------------------------------------------------------------------------------

  async ingest(app: ApplicationDoc, user: UserDoc, input: PointsInput, now: number): Promise<void> {
    if (this.closed) throw shuttingDown();
    const joining = this.ensureUser(app, user);
    if (joining) await joining;
    await new Promise<void>((resolve, reject) => {
      this.pending.push({ userId: user._id, app, user, input, now, resolve, reject });
      this.drain();
    });
  }

  /**
   * A user the shards do not know yet (created since start), or whose timezone changed: their
   * membership goes to the shard before any of their points. Undefined when there is nothing to
   * wait for; a second request of the user waits for the first one's.
   */
  private ensureUser(app: ApplicationDoc, user: UserDoc): Promise<void> | undefined {
    const known = this.users.get(user._id);
    if (known && known.timezone === user.timezone) return this.joining.get(user._id);
    this.users.set(user._id, { appId: app._id, timezone: user.timezone });
    const joining = (async () => {
      const subs = await this.ctx.store.subscriptions.list(app._id, { user_id: user._id });
      const layers = [app.default_layer_id, ...subs.map((s) => s.layer_id)];
      await this.join({ userId: user._id, layers, timezone: user.timezone });
    })();
    this.joining.set(user._id, joining);
    joining.then(
      () => this.joining.get(user._id) === joining && this.joining.delete(user._id),
      () => {
        // Not known after all: the next request tries again.
        if (this.joining.get(user._id) !== joining) return;
        this.joining.delete(user._id);
        this.users.delete(user._id);
      },
    );
    return joining;
  }

  /**
   * Sends a user's membership to their shard, together with every other user joining meanwhile:
   * one engine call for a burst of new phones, not one each (250 phones starting together queued
   * 250 calls in front of their first points).
   */
  private join(seed: UserSeed): Promise<void> {
    this.joinQueue.push(seed);
    this.joinCall ??= this.pipeline(
      () => {
        this.joinCall = undefined; // later joiners make the next call
        return this.engine.setUsers(this.joinQueue.splice(0));
      },
      (res) => this.persist(res, NO_POINTS),
    );
    return this.joinCall;
  }

  /**
   * Hands everything that arrived meanwhile to the engine as one batch, once the engine stage is
   * free and at most one batch still waits for its persist: no waiting when idle, large batches
   * under load.
   */
  private drain(): void {
    if (this.pending.length === 0) return;
    if (this.closed) {
      // Nothing of it reached the engine or was acknowledged: the phone sends it again.
      for (const p of this.pending.splice(0)) p.reject(shuttingDown());
      return;
    }
    if (this.batchInEngine || this.batchesInFlight >= 2) return;
    const batch = this.pending;
    this.pending = [];
    let results: BodyResult[] = [];
    this.batchInEngine = true;
    this.batchesInFlight++;
    const done = this.pipeline(
      async () => {
        try {
          const out = await this.evaluate(batch);
          results = out.results;
          return out;
        } finally {
          this.batchInEngine = false;
          queueMicrotask(() => this.drain());
        }
      },
      (res) => this.persistBatch(res, batch),
    );
    done.then(
      () => {
        // A request refused whole moved nothing: it gets its 400, the others their answer.
        batch.forEach((p, i) => {
          const r = results[i];
          if (r && 'error' in r) p.reject(apiError(r.code, r.error));
          else p.resolve();
        });
      },
      (err) => {
        // Nothing of a batch cut short by a shutdown was acknowledged: the phone sends it again.
        for (const p of batch) p.reject(this.closed ? shuttingDown() : err);
      },
    ).finally(() => {
      this.batchesInFlight--;
      this.drain();
    });
  }

  /**
   * The engine's side of a batch. The shards read the long bodies: their JSON never becomes
   * objects on this thread. Points read here go as rows only and stay here whole; a batch of
   * nothing else (single points) goes as plain columns, the cheapest hand-off.
   */
  private evaluate(batch: readonly Pending[]): Promise<BodiesOutput> {
    if (batch.every((p) => 'points' in p.input)) return this.evaluateRead(batch);
    return this.engine.applyBodies(batch.map((p) => ({
      userId: p.userId,
      // A text input is { text } or { text, timeZone } (services/locations.ts PointsInput).
      ...('text' in p.input ? p.input : { rows: p.input.points.map(rowOf) }),
      now: p.now,
      all: Boolean(p.app.store_history),
    })));
  }

  private async evaluateRead(batch: readonly Pending[]): Promise<BodiesOutput> {
    const inputs: PointInput[] = [];
    const results: BodyResult[] = [];
    for (const p of batch) {
      const points = (p.input as { points: LocationPoint[] }).points;
      const first = inputs.length;
      for (const q of points) inputs.push({ userId: p.userId, ...rowOf(q) });
      results.push({ first, count: points.length, newest: first + newestIndex(points) });
    }
    const out = await this.engine.applyPoints(inputs);
    return { effects: out.effects, changes: out.changes, results, batch: toBatch(inputs), full: [] };
  }

  /** A batch's persist: the engine's results, then the points themselves, then the newest points. */
  private async persistBatch(out: BodiesOutput, requests: readonly Pending[]): Promise<void> {
    const points: BatchPoints = { batch: out.batch, full: new Map(out.full) };
    requests.forEach((p, i) => {
      const r = out.results[i]!;
      if ('points' in p.input && !('error' in r)) p.input.points.forEach((q, j) => points.full.set(r.first + j, q));
    });
    await this.persist(out, points);
    // After the records: the last location tells a restarted engine which points were applied.
    const history: LocationDoc[] = [];
    const lasts: LocationDoc[] = [];
    requests.forEach((p, i) => {
      const r = out.results[i]!;
      if ('error' in r) return;
      // Every point of a history-keeping application's request is here whole, else the newest.
      const stored = p.app.store_history
        ? storedPoints(p.app, p.user, rowsOf(points.full, r.first, r.count), r.newest - r.first, p.now)
        : storedPoints(p.app, p.user, [points.full.get(r.newest)!], 0, p.now);
      for (const d of stored.history) history.push(d);
      lasts.push(stored.last);
    });
    await Promise.all([addHistory(this.ctx.store, history), saveLastLocations(this.ctx.store, lasts)]);
    // Only now: a dwell fired while this batch was applied must not be located at a later point.
    const b = out.batch;
    const newest = new Map<string, number>();
    for (let k = 0; k < b.at.length; k++) {
      const userId = b.users[b.user[k]!]!;
      const n = newest.get(userId);
      if (n === undefined || b.at[n]! < b.at[k]!) newest.set(userId, k);
    }
    for (const [userId, k] of newest) {
      const known = this.lastPoints.get(userId);
      // Each user's newest row is the newest of one of its requests: here whole.
      if (!known || known.date < b.at[k]!) this.lastPoints.set(userId, firingPoint(points.full.get(k)!));
    }
  }

  async tick(now: number): Promise<void> {
    if (this.closed) return;
    await this.pipeline(() => this.engine.tick(now), (res) => this.persist(res, NO_POINTS));
  }

  // ---- stages -----------------------------------------------------------------------------------

  /**
   * One engine call and the persist of its result. The call runs after every earlier engine call;
   * the persist after every earlier persist, so the store receives results in engine order.
   */
  private pipeline<R extends ApplyResult>(call: () => Promise<R>, persist: (res: R) => Promise<void>): Promise<void> {
    const before = this.persistTail;
    const result = this.engineTail.then(async () => {
      this.persistedBeforeCall = before;
      const res = await call();
      this.scheduleDeadlineTick();
      return res;
    });
    this.engineTail = result.catch(settled);
    // A shard rebuilt during the call released pairs as it loaded: stored ahead of the call's results.
    const done = Promise.all([result, before.catch(settled)]).then(async ([res]) => {
      await this.persistReleased();
      await persist(res);
    });
    this.persistTail = done.catch(settled);
    return done;
  }

  /** Stores the pairs the shards released as they loaded (see Engine.takeReleased). */
  private async persistReleased(): Promise<void> {
    const changes = this.engine.takeReleased();
    if (changes.length > 0) await this.persist({ effects: [], changes }, NO_POINTS);
  }

  /**
   * The result of an engine call made outside the pipeline (a structure change, a membership):
   * what a shard rebuilt during it released comes first, so an older release never overwrites
   * the call's own change of the same pair.
   */
  private async persistOutsidePipeline(res: ApplyResult): Promise<void> {
    await this.persistReleased();
    await this.persist(res, NO_POINTS);
  }

  /**
   * A dwell fired by the clock is late by up to the polling interval (250 ms: most of the
   * callback latency p99 of the load harness at half rate was dwell callbacks waiting for the
   * poll). Every shard answer carries the shard's earliest deadline; when that comes before the
   * next poll, a timer ticks right at it. The poll stays as the safety net.
   */
  private scheduleDeadlineTick(): void {
    if (this.closed) return;
    const at = this.engine.nextDeadline();
    if (this.deadlineTimer && this.deadlineTimerAt <= at) return;
    const delay = at - this.ctx.now();
    if (!(delay < (this.options.tickIntervalMs ?? 250))) return;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimerAt = at;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = undefined;
      this.deadlineTimerAt = Infinity;
      void this.tick(this.ctx.now()).catch(() => undefined);
    }, Math.max(1, Math.ceil(delay)));
    this.deadlineTimer.unref();
  }

  /** Runs `fn` alone: after every queued engine call and persist, and before any later one. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = Promise.all([this.engineTail, this.persistTail]).then(() => {
      this.persistedBeforeCall = Promise.resolve();
      return fn();
    });
    this.engineTail = run.catch(settled);
    this.persistTail = run.catch(settled);
    return run;
  }

  // ---- persistence ------------------------------------------------------------------------------

  /** Firings first (idempotent by event id), then visits, then records: a crash in between replays safely. */
  private async persist(res: ApplyResult, points: BatchPoints): Promise<void> {
    if (res.effects.length === 0 && res.changes.length === 0) return;
    const firings: Firing[] = [];
    const visits = new Map<string, { appId: string; placeId: string }>();
    for (const e of res.effects) {
      const appId = this.users.get(e.userId)?.appId;
      if (!appId) continue;
      if (e.type === 'FIRE') {
        firings.push({
          event_id: eventId(e.userId, e.triggerId, e.placeId, e.triggeredOn, e.at),
          app_id: appId, user_id: e.userId, trigger_id: e.triggerId, place_id: e.placeId,
          layer_id: this.fences.get(`${e.triggerId}:${e.placeId}`)?.layerId ?? '',
          triggered_on: e.triggeredOn, delay_s: e.delaySeconds, at: e.at,
          location: await this.locationOf(e, points),
        });
      } else if (e.type === 'VISIT') {
        visits.set(`${e.userId}:${e.placeId}:${e.at}`, { appId, placeId: e.placeId });
      }
    }
    // Each user's firings in the engine's order; users side by side (each write waits for a
    // group-commit turn, so one chain of them made a batch's persist as long as all its firings).
    if (firings.length) await recordFirings(this.ctx.delivery, firings);
    await this.countVisits(visits.values());
    const moving = pointsOfMovedUsers(points.batch, res.changes);
    await this.states.apply((u) => this.users.get(u)?.appId, res.changes, (c) => lastPointOf(c, points.batch, moving), this.ctx.now());
  }

  /** One `$inc` per place with its visits of the batch, all written together. */
  private async countVisits(visits: Iterable<{ appId: string; placeId: string }>): Promise<void> {
    const perPlace = new Map<string, { appId: string; n: number }>();
    for (const v of visits) {
      const c = perPlace.get(v.placeId);
      if (c) c.n++;
      else perPlace.set(v.placeId, { appId: v.appId, n: 1 });
    }
    await Promise.all([...perPlace].map(([placeId, c]) => this.ctx.store.places.col.updateOne({ _id: placeId, app_id: c.appId }, { $inc: { visits: c.n } })));
  }

  /**
   * The point behind a firing: the one that caused it, or for a dwell deadline (a tick, also one
   * reached inside a batch) the user's newest point at or before the firing time, which is the
   * last point that kept the user inside, never a later one that may already be far away.
   */
  private async locationOf(e: EngineEffect, points: BatchPoints): Promise<FiringPoint> {
    const cause = e.point !== undefined ? points.full.get(e.point) : undefined;
    if (cause) return firingPoint(cause);
    const applied = this.lastPoints.get(e.userId);
    // The shard sent this row whole too (read-bodies.ts).
    const row = locatingRow(points.batch, e.userId, e.at);
    const best = row >= 0 ? points.full.get(row) : undefined;
    if (best && !(applied && applied.date <= e.at && applied.date >= best.at)) return firingPoint(best);
    if (applied) return applied;
    const last = await this.ctx.store.collection<LocationDoc>('last_locations').findOne({ _id: e.userId });
    if (last) return { date: last.date, latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy, raw: last.raw, uuid: last.uuid };
    return { date: e.at, latitude: 0, longitude: 0 };
  }

  // ---- geofence changes -------------------------------------------------------------------------

  private async onChange(change: Change): Promise<void> {
    const { store } = this.ctx;
    let diff: FenceDiff | undefined;
    switch (change.kind) {
      case 'trigger': {
        const t = change.doc;
        if (change.op === 'removed') {
          diff = onTriggerDeleted(t._id, this.fences.ofTrigger(t._id));
          await this.states.removeWhere({ trigger_id: t._id });
        } else {
          const places = t.on_layer ? await store.places.list(t.app_id, { layer_id: t.layer_id }) : await placesById(this.ctx, t);
          diff = onTriggerSaved(t, places, await this.layerMap(t.app_id, places), this.fences.ofTrigger(t._id));
        }
        break;
      }
      case 'place': {
        const p = change.doc;
        if (change.op === 'removed') {
          diff = onPlaceDeleted(p._id, this.fences.ofPlace(p._id));
          await this.states.removeWhere({ place_id: p._id });
        } else {
          // Two indexed reads, not one `$or`: the embedded store matched that against every trigger
          // of the application, for every place saved (1.7 of 6 s of main thread in bench:api).
          const [own, layerWide] = await Promise.all([
            store.triggers.list(p.app_id, { place_id: p._id }),
            store.triggers.list(p.app_id, { layer_id: p.layer_id, on_layer: true }),
          ]);
          const triggers = [...own, ...layerWide.filter((t) => t.place_id !== p._id)];
          diff = onPlaceSaved(p, triggers, await this.layerMap(p.app_id, [p]), this.fences.ofPlace(p._id));
        }
        break;
      }
      case 'layer':
        diff = change.op === 'removed'
          ? onLayerDeleted(change.doc._id, this.fences.ofLayer(change.doc._id))
          : onLayerSaved(change.doc, this.fences.ofLayer(change.doc._id));
        break;
      case 'subscription':
        await this.refreshMembership(change.appId, change.userId);
        return;
      case 'user': {
        await this.persistOutsidePipeline(await this.engine.setMembership(change.doc._id, [], change.doc.timezone));
        this.users.delete(change.doc._id);
        this.joining.delete(change.doc._id);
        this.lastPoints.delete(change.doc._id);
        await this.states.removeWhere({ user_id: change.doc._id });
        return;
      }
    }
    if (!diff || (diff.upsert.length === 0 && diff.remove.length === 0)) return;
    const relayered = this.relayered(diff);
    this.fences.apply(diff); // as the engine's own copy: updated before the shards are
    await this.persistOutsidePipeline(await this.engine.applyFenceDiff(diff));
    // A place moved to another layer: its pairs now belong to that layer's members only. Users
    // who are not members lose their records there without firing, as on unsubscribing.
    const users = new Map<string, string>();
    for (const f of relayered) {
      for (const s of await this.states.find({ trigger_id: f.triggerId, place_id: f.placeId })) users.set(s.user_id, s.app_id);
    }
    for (const [userId, appId] of users) await this.refreshMembership(appId, userId);
  }

  /** Geofences of the diff that exist already under another layer. */
  private relayered(diff: FenceDiff): FenceDiff['upsert'] {
    if (diff.upsert.length === 0) return [];
    return diff.upsert.filter((n) => {
      const f = this.fences.get(n.key);
      return f !== undefined && f.layerId !== n.layerId;
    });
  }

  /** The user's layers and timezone from the store, handed to their shard (records outside them go). */
  private async refreshMembership(appId: string, userId: string): Promise<void> {
    const { store } = this.ctx;
    const user = await store.users.get(appId, userId);
    const app = await store.applications.findOne({ _id: appId });
    if (!user || !app) return;
    this.users.set(user._id, { appId: app._id, timezone: user.timezone });
    const subs = await store.subscriptions.list(app._id, { user_id: user._id });
    await this.persistOutsidePipeline(await this.engine.setMembership(user._id, [app.default_layer_id, ...subs.map((s) => s.layer_id)], user.timezone));
  }

  private async layerMap(appId: string, places: readonly PlaceDoc[]): Promise<Map<string, LayerDoc>> {
    const ids = [...new Set(places.map((p) => p.layer_id))];
    const layers = await this.ctx.store.layers.list(appId, { _id: { $in: ids } } as never);
    return new Map(layers.map((l) => [l._id, l]));
  }

  // ---- inspection -------------------------------------------------------------------------------

  inspect(userId: string, filter?: { triggerId?: string; placeId?: string }): Promise<UserView | null> {
    return this.engine.inspect(userId, filter);
  }
}

/** Retryable: the points were not taken, and a restarted engine will take them. */
const shuttingDown = () => apiError('service_unavailable', 'The trigger engine is restarting; send these points again', { 'retry-after': '1' });

async function placesById(ctx: ServiceContext, t: TriggerDoc): Promise<PlaceDoc[]> {
  if (!t.place_id) return [];
  const p = await ctx.store.places.get(t.app_id, t.place_id);
  return p ? [p] : [];
}

function ctxChanges(ctx: ServiceContext, listener: (c: Change) => Promise<void>) {
  ctx.changes.on(listener);
}

/** A point as a firing's `location`; a point that is not stored gets its uuid here, once. */
function firingPoint(p: LocationPoint): FiringPoint {
  p.uuid ??= randomUUID();
  return {
    date: p.at, latitude: p.latitude, longitude: p.longitude, horizontal_accuracy: p.accuracy,
    speed: p.speed ?? null, altitude: p.altitude ?? null, heading: p.heading ?? null, vertical_accuracy: p.vertical_accuracy ?? null,
    raw: p.raw, uuid: p.uuid,
  };
}

/** For each user whose record a point moved, the indexes of the user's points in the batch. */
function pointsOfMovedUsers(batch: PointBatch, changes: readonly RecordChange[]): Map<string, number[]> {
  const byUser = new Map<string, number[]>();
  for (const c of changes) if (c.record?.lastPointAt !== undefined && !byUser.has(c.userId)) byUser.set(c.userId, []);
  if (byUser.size === 0) return byUser;
  for (let i = 0; i < batch.at.length; i++) byUser.get(batch.users[batch.user[i]!]!)?.push(i);
  return byUser;
}

/** Rows first … first + count − 1 of the whole points. */
function rowsOf(full: ReadonlyMap<number, LocationPoint>, first: number, count: number): LocationPoint[] {
  const out: LocationPoint[] = [];
  for (let k = first; k < first + count; k++) out.push(full.get(k)!);
  return out;
}

/** The point that moved the pair (its record's lastPointAt), for the inspector. */
function lastPointOf(c: RecordChange, batch: PointBatch, byUser: ReadonlyMap<string, number[]>): LastPoint | undefined {
  const at = c.record?.lastPointAt;
  const mine = byUser.get(c.userId);
  if (at === undefined || !mine) return undefined;
  // The last of the user's points with that time (as a later duplicate would have been applied last).
  for (let j = mine.length - 1; j >= 0; j--) {
    const k = mine[j]!;
    if (batch.at[k] === at) return { date: at, latitude: batch.lat[k]!, longitude: batch.lon[k]!, horizontal_accuracy: batch.acc[k]! };
  }
  return undefined;
}
