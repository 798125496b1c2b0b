// Main-thread side of the shard workers. Users are split over N shards by a stable hash; each
// shard is owned by one thread (a Piscina pool with exactly one thread running one task at a time)
// and every request to a shard goes through that shard's queue, so a user's points are applied in
// the order they were handed over, also across a crash. One task per shard per call: points are
// batched in columns, never sent one by one. The engine stores nothing: the host persists the
// changes it returns and hands state back through `reseed` when a shard must be rebuilt.
import {
  PROTOCOL_VERSION,
  type BodiesOutput,
  type BodyRequest,
  type Geofence,
  type InspectFilter,
  type PointInput,
  type RecordChange,
  type ReplyOf,
  type ShardEffect,
  type ShardOptions,
  type ShardRequest,
  type ShardResponse,
  type ShardSeed,
  type ShardStats,
  type UserSeed,
  type UserView,
} from '../../workers/protocol.js';
import type { FenceDiff } from './geofences.js';
import { shardOf } from './shard-hash.js';
import { newRunner, type Runner } from './shard-runner.js';
import { EMPTY, groupBy, merge, mergeBodies, splitPoints, splitSeed, type ApplyResult } from './shard-split.js';

export type { ApplyResult } from './shard-split.js';

export interface EngineOptions {
  /** Number of shards (threads). Default 2, the cores of the reference box. */
  shards?: number;
  /** Run every shard in this thread (tests, benchmarks, tools). */
  inProcess?: boolean;
  /** Options handed to every shard (hysteresis, nearby cache, test hooks). */
  shard?: ShardOptions;
  /**
   * State of one shard from the store, to rebuild it after a crash (and at start when no seed is
   * given): its users, records and last firings. `fences` may be left out: the engine's own copy is
   * used. Must reflect every result this engine has returned for that shard.
   */
  reseed?: (shardIndex: number) => ShardSeed | Promise<ShardSeed>;
  /** Called when a shard is rebuilt (for logs and metrics). */
  onShardRebuilt?: (shardIndex: number, cause: unknown) => void;
}

/** An effect with `point` = index into the array given to `applyPoints` (absent for ticks). */
export type EngineEffect = ShardEffect;

type Kind = Exclude<ShardRequest['type'], 'load'>;
type Body<K extends Kind> = Omit<Extract<ShardRequest, { type: K }>, 'v' | 'generation' | 'type'>;

interface Shard {
  index: number;
  runner: Runner;
  generation: number;
  /** Tail of this shard's queue: every request waits for the previous one. */
  queue: Promise<unknown>;
  /** The earliest dwell deadline the shard reported with its last answer (Infinity: none). */
  nextDeadline: number;
  /** Requests in its queue, the running one included (the service's metrics). */
  queued: number;
}

class ShardFailure extends Error {}

export class Engine {
  readonly shardCount: number;
  private readonly options: EngineOptions;
  private readonly shards: Shard[] = [];
  /** The geofences every shard holds: the source for rebuilt shards. */
  private readonly registry = new Map<string, Geofence>();
  private started = false;
  private closed = false;
  /** Pairs shards released as they loaded (start, rebuild), not yet taken by the host to store. */
  private released: RecordChange[] = [];

  constructor(options: EngineOptions = {}) {
    this.options = options;
    this.shardCount = Math.max(1, Math.floor(options.shards ?? 2));
  }

  shardOf(userId: string): number {
    return shardOf(userId, this.shardCount);
  }

  /** The geofences the engine holds (main-thread copy), e.g. as `current` for geofences.ts diffs. */
  geofences(): IterableIterator<Geofence> {
    return this.registry.values();
  }

  /**
   * Start every shard. With a seed, its users, records and last firings are split by shard and its
   * fences go to all; without one, each shard is seeded from `reseed` (or empty).
   */
  async start(seed?: ShardSeed): Promise<void> {
    if (this.started) throw new Error('engine already started');
    this.started = true;
    for (const f of seed?.fences ?? []) this.registry.set(f.key, f);
    const parts = seed ? splitSeed(seed, this.shardCount) : undefined;
    for (let i = 0; i < this.shardCount; i++) {
      this.shards.push({ index: i, runner: this.newRunner(i), generation: 0, queue: Promise.resolve(), nextDeadline: Infinity, queued: 0 });
    }
    await Promise.all(
      this.shards.map(async (s) => {
        const part = parts ? parts[s.index]! : this.options.reseed ? await this.options.reseed(s.index) : {};
        for (const f of part.fences ?? []) this.registry.set(f.key, f);
        await this.load(s, part);
      }),
    );
  }

  async upsertGeofences(fences: readonly Geofence[]): Promise<ApplyResult> {
    return this.applyFenceDiff({ upsert: [...fences], remove: [] });
  }

  async removeGeofences(keys: readonly string[]): Promise<ApplyResult> {
    return this.applyFenceDiff({ upsert: [], remove: [...keys] });
  }

  /** Apply a diff from geofences.ts on every shard; it takes effect for the next point. */
  async applyFenceDiff(diff: FenceDiff): Promise<ApplyResult> {
    for (const k of diff.remove) this.registry.delete(k);
    for (const f of diff.upsert) this.registry.set(f.key, f);
    const outs = await Promise.all(this.shards.map((s) => this.call(s, 'fences', { upsert: diff.upsert, remove: diff.remove })));
    return merge(outs);
  }

  /** Layers (default layer included) and timezone of one user. */
  async setMembership(userId: string, layerIds: readonly string[], timezone?: string): Promise<ApplyResult> {
    const seed: UserSeed = { userId, layers: [...layerIds] };
    if (timezone !== undefined) seed.timezone = timezone;
    return this.setUsers([seed]);
  }

  async setUsers(users: readonly UserSeed[]): Promise<ApplyResult> {
    const per = this.groupBy(users, (u) => u.userId);
    const outs = await Promise.all(per.map((list, i) => (list.length ? this.call(this.shards[i]!, 'users', { users: list }) : EMPTY)));
    return merge(outs);
  }

  /**
   * Evaluate points: split by shard into column batches, one task per shard, in parallel.
   * Effects carry `point`, the index of the point in `points`.
   */
  async applyPoints(points: readonly PointInput[]): Promise<ApplyResult> {
    const { batches, origin } = splitPoints(points, this.shardCount);
    const outs = await Promise.all(
      batches.map((b, i) => (b === null ? EMPTY : this.call(this.shards[i]!, 'points', { batch: b }))),
    );
    for (let i = 0; i < outs.length; i++) {
      const map = origin[i];
      if (!map) continue;
      for (const e of outs[i]!.effects) if (e.point !== undefined) e.point = map[e.point]!;
    }
    return merge(outs);
  }

  /**
   * Read and evaluate location/update bodies: each shard parses its users' bodies and applies the
   * accepted ones. Results come back in the order of `requests`; rows (effects' `point`, results,
   * `full`) index one batch, the shards' batches one after the other.
   */
  async applyBodies(requests: readonly BodyRequest[]): Promise<BodiesOutput> {
    const per = this.groupBy(requests.map((r, i) => ({ r, i })), (x) => x.r.userId);
    const outs = await Promise.all(per.map((list, i) => (list.length ? this.call(this.shards[i]!, 'bodies', { requests: list.map((x) => x.r) }) : null)));
    // One shard had them all, in their order (always so with one shard).
    const used = outs.filter((o): o is BodiesOutput => o !== null);
    if (used.length === 1) return used[0]!;
    return mergeBodies(per.map((list) => list.map((x) => x.i)), outs, requests.length);
  }

  /**
   * Fire every dwell deadline ≤ upTo (each at its deadline). Called by the host's scheduler, which
   * decides how far the clock may go (src/engine/dwell-clock.ts); `appliedAt`: its clock now.
   */
  async tick(upTo: number, appliedAt?: number): Promise<ApplyResult> {
    const body: Body<'tick'> = { now: upTo };
    if (appliedAt !== undefined) body.appliedAt = appliedAt;
    return merge(await Promise.all(this.shards.map((s) => this.call(s, 'tick', body))));
  }

  /** The user's pairs that are not outside, with their recent transitions. */
  async inspect(userId: string, filter?: InspectFilter): Promise<UserView | null> {
    const body: Body<'inspect'> = { userId };
    if (filter) body.filter = filter;
    return this.call(this.shards[this.shardOf(userId)]!, 'inspect', body);
  }

  async stats(): Promise<ShardStats[]> {
    return Promise.all(this.shards.map((s) => this.call(s, 'stats', {})));
  }

  /** Test hook (needs `shard.testHooks`): make a shard's thread exit as if it crashed. */
  async crashShard(index: number): Promise<void> {
    const s = this.shards[index]!;
    await (s.queue = s.queue.then(() => s.runner.run(this.request(s, 'crash', {})).catch(() => undefined)));
  }

  /** Test hook: terminate a shard's thread immediately, even in the middle of a task. */
  async terminateShardThread(index: number): Promise<void> {
    await this.shards[index]!.runner.terminate();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.shards.map(async (s) => {
      await s.queue.catch(() => undefined);
      await s.runner.close();
    }));
  }

  // ---- shards -----------------------------------------------------------------------------------

  private newRunner(index: number): Runner {
    return newRunner(index, this.options.inProcess === true);
  }

  private request<K extends Kind>(s: Shard, type: K, body: Body<K>): ShardRequest {
    // The body after the envelope's fields, not spread first (docs/architecture.md, Conventions, on spreads in V8 11).
    return { type, v: PROTOCOL_VERSION, generation: s.generation, ...body } as ShardRequest;
  }

  /** Queue a request on its shard; on a crash or an empty worker, rebuild the shard and retry once. */
  private call<K extends Kind>(s: Shard, type: K, body: Body<K>): Promise<ReplyOf[K]> {
    if (!this.started || this.closed) return Promise.reject(new Error('engine is not running'));
    s.queued++;
    const task = s.queue.then(async () => {
      try {
        return this.answer<ReplyOf[K]>(s, await s.runner.run(this.request(s, type, body)));
      } catch (cause) {
        await this.rebuild(s, cause);
        return this.answer<ReplyOf[K]>(s, await s.runner.run(this.request(s, type, body)));
      } finally {
        s.queued--;
      }
    });
    s.queue = task.catch(() => undefined);
    return task;
  }

  /** The result of an answer, noting the shard's next deadline it carries. */
  private answer<T>(s: Shard, r: ShardResponse): T {
    const result = unwrap<T>(r);
    s.nextDeadline = r.ok ? (r.nextDeadline ?? Infinity) : Infinity;
    return result;
  }

  /** Requests queued per shard, the running one included. */
  queueDepths(): number[] {
    return this.shards.map((s) => s.queued);
  }

  /**
   * The earliest dwell deadline of any shard, as of their last answers (a lower bound): the host
   * ticks then. Infinity when no shard holds one.
   */
  nextDeadline(): number {
    let min = Infinity;
    for (const s of this.shards) if (s.nextDeadline < min) min = s.nextDeadline;
    return min;
  }

  private async rebuild(s: Shard, cause: unknown): Promise<void> {
    const old = s.runner;
    s.runner = this.newRunner(s.index);
    await old.close().catch(() => undefined);
    const seed = this.options.reseed ? await this.options.reseed(s.index) : {};
    await this.load(s, seed);
    this.options.onShardRebuilt?.(s.index, cause);
  }

  private async load(s: Shard, seed: ShardSeed): Promise<void> {
    s.generation++;
    const full: ShardSeed = { ...seed, fences: seed.fences ?? [...this.registry.values()] };
    const req: ShardRequest = {
      v: PROTOCOL_VERSION,
      type: 'load',
      generation: s.generation,
      shardIndex: s.index,
      options: this.options.shard ?? {},
      seed: full,
    };
    const loaded = this.answer<ReplyOf['load']>(s, await s.runner.run(req));
    for (const c of loaded.changes) this.released.push(c);
  }

  /**
   * The pairs shards released as they loaded since the last call (a trigger made recurring while
   * the shard was down or rebuilt, workers/shard-state.ts load): the host stores them before the
   * results of the call that was running, which come after the load.
   */
  takeReleased(): RecordChange[] {
    return this.released.length === 0 ? [] : this.released.splice(0);
  }

  private groupBy<T>(items: readonly T[], user: (t: T) => string): T[][] {
    return groupBy(items, user, this.shardCount);
  }
}

function unwrap<T>(r: ShardResponse): T {
  if (r.ok) return r.result as T;
  // Any refusal means the worker is not the one we seeded (or speaks another version): rebuild.
  throw new ShardFailure(`shard refused the request: ${r.error}: ${r.message}`);
}

