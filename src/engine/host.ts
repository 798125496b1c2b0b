// The engine's host on the main thread. It seeds the shards from the store (seeding.ts), keeps
// their geofence indexes in step with the change feed (fence-sync.ts), turns location updates into
// batches (ingest.ts), feeds dwell deadlines as ticks (dwell-clock.ts), and persists what the
// shards return in the one order that survives a crash (persist.ts), through two pipelined stages
// (pipeline.ts). This file wires those parts and owns the clock.
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { ShardOptions, UserView } from '../../workers/protocol.js';
import { clockFiresAt, tickCutoff, type DwellClock } from './dwell-clock.js';
import { Engine, type ApplyResult } from './engine.js';
import { FenceSync } from './fence-sync.js';
import { HostFences } from './host-fences.js';
import type { EngineContext, EnginePorts, HostState, PointsInput } from './host-state.js';
import { Intake } from './ingest.js';
import { persistResult } from './persist.js';
import { Stages } from './pipeline.js';
import { seedFromStore } from './seeding.js';
import { recordServiceStart } from './service-starts.js';
import { MachineStates } from './state-store.js';
import { TimelineWriter } from './timeline.js';
import { ReplayPool, type ReplayPoolOptions } from './replay-pool.js';
import type { ReplayOutput, ReplayRun } from '../services/context.js';

export type { EngineContext, EnginePorts } from './host-state.js';
export { eventId } from './persist.js';

export interface EngineHostOptions {
  shards?: number;
  /** Run the shards in this thread (tests); default: one worker thread per shard. */
  inProcess?: boolean;
  /** How often due dwell deadlines are looked for, ms. */
  tickIntervalMs?: number;
  /** The grace after a start for deadlines that passed while down, ms (default: the configuration's, dwell-clock.ts). */
  dwellGraceMs?: number;
  /** How long past a deadline the running clock waits for late points, ms (default: the configuration's). */
  dwellToleranceMs?: number;
  shard?: ShardOptions;
  /** Replay threads, time budget and limits (default: the configuration's; replay-pool.ts). */
  replay?: Partial<ReplayPoolOptions>;
}

export class EngineHost {
  readonly engine: Engine;
  readonly states: MachineStates;
  private readonly s: HostState;
  private readonly stages: Stages;
  private readonly intake: Intake;
  private readonly sync: FenceSync;
  private timer: NodeJS.Timeout | undefined;
  /** A tick set for the shards' earliest dwell deadline, when it comes before the next poll. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineTimerAt = Infinity;
  private closed = false;
  /** The dwell clock: no start yet (nothing fires) until this host takes points. */
  private readonly clock: DwellClock;
  /** The replays' threads and gate (trigger/replay). */
  readonly replays: ReplayPool;

  constructor(private readonly ctx: EngineContext, ports: EnginePorts, private readonly options: EngineHostOptions = {}) {
    this.clock = {
      starts: [],
      graceMs: options.dwellGraceMs ?? ctx.config.dwellGraceMs,
      toleranceMs: options.dwellToleranceMs ?? ctx.config.dwellToleranceMs,
    };
    this.states = new MachineStates(ctx.store);
    this.replays = new ReplayPool(
      { threads: ctx.config.replayThreads, timeoutMs: ctx.config.replayTimeoutMs, inProcess: options.inProcess, ...options.replay },
      { ...options.shard, testHooks: false },
    );
    this.stages = new Stages(() => this.scheduleDeadlineTick(), () => this.persistReleased());
    this.engine = new Engine({
      shards: options.shards ?? ctx.config.shards,
      inProcess: options.inProcess,
      shard: { timeline: ctx.config.timeline, ...options.shard },
      // Every result returned before the failed call must be in the store first (pipeline.ts).
      reseed: async (shard) => {
        await this.stages.persistedBeforeCall();
        return seedFromStore(this.s, (userId) => this.engine.shardOf(userId) === shard, false);
      },
    });
    const timeline = ctx.config.timeline ? new TimelineWriter(ctx.store, ctx.config.timelineMaxPerPair) : null;
    this.s = { ctx, ports, engine: this.engine, states: this.states, users: new Map(), fences: new HostFences(), timeline };
    this.intake = new Intake(this.s, this.stages, () => this.closed);
    ctx.metrics.read({ shardQueues: () => this.engine.queueDepths() });
    this.sync = new FenceSync(this.s, (res) => this.persistOutsidePipeline(res), (userId) => {
      this.s.users.delete(userId);
      this.intake.forget(userId);
    });
  }

  async start(): Promise<void> {
    const seed = await seedFromStore(this.s, () => true, true);
    await this.engine.start(seed);
    this.s.fences = new HostFences(this.engine.geofences());
    await this.persistReleased();
    this.ctx.changes.on((change) => this.stages.exclusive(() => this.sync.onChange(change)));
    this.clock.starts = await recordServiceStart(this.ctx.store, this.ctx.now(), this.clock.graceMs);
    this.scheduleDeadlineTick();
    const every = this.options.tickIntervalMs ?? 250;
    this.timer = setInterval(() => void this.tick(this.ctx.now()).catch(() => undefined), every);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.intake.drain(); // refuses what has not reached the engine
    await this.stages.idle();
    await this.s.timeline?.idle();
    await this.replays.close();
    await this.engine.close();
  }

  /**
   * Reads the points, evaluates them after the user's earlier ones and stores them with what they
   * caused; resolves when all is durable (services/locations.ts LocationSink).
   */
  ingest(app: ApplicationDoc, user: UserDoc, input: PointsInput, now: number): Promise<void> {
    return this.intake.ingest(app, user, input, now);
  }

  /** Fires the dwell deadlines the clock may fire at `now`: those the grace has passed for (dwell-clock.ts). */
  async tick(now: number): Promise<void> {
    if (this.closed) return;
    const upTo = tickCutoff(now, this.clock);
    if (upTo === -Infinity) {
      this.scheduleDeadlineTick();
      return;
    }
    await this.stages.pipeline(() => this.engine.tick(upTo, this.ctx.now()), (res) => persistResult(this.s, res, null));
  }

  /** A dry run of a track, in a replay thread with this host's shard options (replay-pool.ts). */
  replay(run: ReplayRun): Promise<ReplayOutput> {
    return this.replays.replay(run);
  }

  inspect(userId: string, filter?: { triggerId?: string; placeId?: string }): Promise<UserView | null> {
    return this.engine.inspect(userId, filter);
  }

  /** Stores the pairs the shards released as they loaded (see Engine.takeReleased). */
  private async persistReleased(): Promise<void> {
    const changes = this.engine.takeReleased();
    if (changes.length > 0) await persistResult(this.s, { effects: [], changes }, null);
  }

  /**
   * The result of an engine call made outside the pipeline (a structure change, a membership):
   * what a shard rebuilt during it released comes first, so an older release never overwrites
   * the call's own change of the same pair.
   */
  private async persistOutsidePipeline(res: ApplyResult): Promise<void> {
    await this.persistReleased();
    await persistResult(this.s, res, null);
  }

  /**
   * A dwell fired by the clock is late by up to the polling interval (250 ms: most of the
   * callback latency p99 of the load harness at half rate was dwell callbacks waiting for the
   * poll). Every shard answer carries the shard's earliest deadline; when the clock may fire it
   * (dwell-clock.ts) before the next poll, a timer ticks right then. The poll stays as the safety net.
   */
  private scheduleDeadlineTick(): void {
    if (this.closed) return;
    const at = clockFiresAt(this.engine.nextDeadline(), this.clock);
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
}

