// The replay (POST /1/trigger/replay) on the main thread's side: it checks what it can before any
// work (the pairs of the scope, points × pairs when the points are known), takes a place in the
// gate (replays in flight per application and in all), and hands the replay to a small pool of
// threads, `gt-replay` (workers/replay-worker.ts, running replay-run.ts), so location updates,
// callbacks and /health keep their event loop. A replay past its time budget is stopped (the
// thread checks its deadline between chunks of points; a thread that does not answer in time is
// ended), and a thread idle for a while ends, its heap with it. The answer is the page of the
// timeline asked for, as documents; nothing of a replay is kept here once it has answered.
import { Piscina } from 'piscina';
import { apiError, ApiError } from '../errors.js';
import { MAX_REPLAY_PAIRS, MAX_REPLAY_POINTS, MAX_REPLAY_STEPS } from '../schemas/timeline.js';
import type { ReplayOutput, ReplayRun } from '../services/context.js';
import { timeKey } from '../store/ids.js';
import { workerEntry, workerExecArgv } from '../../workers/exec-argv.js';
import type { ShardOptions } from '../../workers/protocol.js';
import { ReplayGate } from './replay-gate.js';
import { REPLAY_PROTOCOL_VERSION, runReplay, scopedDocs, scopeFences, workRefusal, type ReplayLimits, type ReplayReply, type ReplayTask } from './replay-run.js';
import { timelineDoc, timelineRow } from './timeline.js';

export interface ReplayPoolOptions {
  /** Replay threads at most (the configuration's REPLAY_THREADS). */
  threads: number;
  /** The time budget of a replay from its acceptance (its wait for a thread included), ms. */
  timeoutMs: number;
  /** Replays in flight per application, and in all (those beyond the threads wait for one). */
  perApp: number;
  total: number;
  /** A thread idle this long ends, ms. */
  idleMs: number;
  /** The most heap a replay thread may grow, MB: past it the thread dies and the replay is refused. */
  maxHeapMb: number;
  /** Run replays in this thread (the tests' in-process engine). */
  inProcess: boolean;
  limits: ReplayLimits;
}

export function replayPoolOptions(opts: Partial<ReplayPoolOptions> = {}): ReplayPoolOptions {
  const threads = Math.max(1, Math.floor(opts.threads ?? 1));
  return {
    threads,
    timeoutMs: opts.timeoutMs ?? 30_000,
    perApp: opts.perApp ?? 2,
    total: opts.total ?? 4 * threads,
    idleMs: opts.idleMs ?? 10_000,
    maxHeapMb: opts.maxHeapMb ?? 512,
    inProcess: opts.inProcess ?? false,
    limits: opts.limits ?? { points: MAX_REPLAY_POINTS, pairs: MAX_REPLAY_PAIRS, steps: MAX_REPLAY_STEPS },
  };
}

const WORKER_FILE = workerEntry('replay-worker');
/** A thread gets this long past the deadline to answer by itself before it is ended. */
const HARD_STOP_GRACE_MS = 2_000;

export class ReplayPool {
  readonly options: ReplayPoolOptions;
  private readonly gate: ReplayGate;
  private pool: Piscina | null = null;
  private closed = false;

  constructor(options: Partial<ReplayPoolOptions>, private readonly shard: ShardOptions = {}) {
    this.options = replayPoolOptions(options);
    this.gate = new ReplayGate(this.options.perApp, this.options.total);
  }

  async replay(run: ReplayRun): Promise<ReplayOutput> {
    if (this.closed) throw apiError('service_unavailable', 'The service is shutting down', { 'retry-after': '1' });
    const { limits } = this.options;
    const scope = { layerIds: run.layerIds, select: run.select };
    const fences = scopeFences(run.docs, scope);
    // The pairs now, and the work too when the points are known; a GPX or GeoJSON text is counted as the thread reads it.
    const refusal = workRefusal('rows' in run.track ? run.track.rows.length : 0, fences.length, limits);
    if (refusal) throw refusal;
    const leave = this.gate.enter(run.appId);
    try {
      const task: ReplayTask = {
        v: REPLAY_PROTOCOL_VERSION,
        userId: run.userId,
        timezone: run.timezone,
        docs: scopedDocs(run.docs, fences),
        scope,
        track: run.track,
        startStates: run.startStates,
        page: run.page,
        limits,
        deadline: Date.now() + this.options.timeoutMs,
        shard: this.shard,
      };
      const reply = await this.run(task);
      if (!reply.ok) throw reply.error === 'timeout' ? this.tooLong() : apiError(reply.error, reply.description);
      const r = reply.result;
      const offset = run.page.offset;
      return {
        // Ids from the inputs only (the entry's place in the whole timeline): the same request gives the same ids.
        entries: r.page.map((t, i) => timelineDoc(timelineRow(t, run.appId, t.at), `${timeKey(t.at)}-replay-${String(offset + i).padStart(6, '0')}`)),
        total: r.total,
        fired: r.fired,
        points: r.points,
        pairs: r.pairs,
        counts: r.counts,
        finalStates: r.finalStates,
        closest: r.closest,
      };
    } finally {
      leave();
    }
  }

  /** Replays in flight (waiting or running): of one application, or in all. */
  inFlight(appId?: string): number {
    return this.gate.inFlight(appId);
  }

  /** Replay threads alive now. */
  threads(): number {
    return this.pool?.threads.length ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }

  private async run(task: ReplayTask): Promise<ReplayReply> {
    if (this.options.inProcess) return runReplay(task);
    try {
      return (await this.threadPool().run(task, { signal: AbortSignal.timeout(this.options.timeoutMs + HARD_STOP_GRACE_MS) })) as ReplayReply;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw apiError('service_unavailable', `The replay needed more memory than a replay may use (${this.options.maxHeapMb} MB) and was stopped: narrow its scope or its track`);
      }
      if (this.closed) throw apiError('service_unavailable', 'The service is shutting down', { 'retry-after': '1' });
      if ((err as Error).name === 'AbortError') throw this.tooLong();
      throw err;
    }
  }

  private tooLong(): ApiError {
    const s = Math.round(this.options.timeoutMs / 100) / 10;
    return apiError(
      'service_unavailable',
      `The replay did not finish within its time budget (${s} s) and was stopped: narrow its scope (layer_ids, place_ids, trigger_ids) or its track, or try again when the service is less busy`,
    );
  }

  /** The threads start with the first replay, not with the service. */
  private threadPool(): Piscina {
    if (this.pool) return this.pool;
    const o = this.options;
    const pool = new Piscina({
      filename: WORKER_FILE.href,
      minThreads: 0,
      maxThreads: o.threads,
      idleTimeout: o.idleMs,
      // The gate admits `total`: those beyond the threads wait here.
      maxQueue: Math.max(1, o.total - o.threads),
      concurrentTasksPerWorker: 1,
      execArgv: workerExecArgv(),
      resourceLimits: { maxOldGenerationSizeMb: o.maxHeapMb },
    });
    // A thread that dies (out of memory, ended at its deadline) fails its task, which answers for it.
    pool.on('error', () => {});
    this.pool = pool;
    return pool;
  }
}
