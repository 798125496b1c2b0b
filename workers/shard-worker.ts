// Piscina worker entry: this thread owns one shard. The ShardState lives in module scope, so it
// survives between tasks; the pool has exactly one thread and runs one task at a time, which is
// what keeps each user's points in order. A worker that was respawned empty answers `not_seeded`
// (its generation does not match) instead of evaluating points against nothing.
import { readFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { bodiesOutput, readBodies } from './read-bodies.js';
import { ShardState } from './shard-state.js';
import { PROTOCOL_VERSION, type ShardRequest, type ShardResponse } from './protocol.js';
import { nameThisThread } from './thread-name.js';

export type ShardHandler = (req: ShardRequest) => ShardResponse;

/** The request handler with its own state: the worker uses one, the in-process engine one per shard. */
export function createShardHandler(): ShardHandler {
  let state: ShardState | null = null;
  let generation = 0;
  let testHooks = false;

  const ok = <T>(result: T): ShardResponse<T> => {
    const res: ShardResponse<T> = { v: PROTOCOL_VERSION, ok: true, result };
    const next = state?.nextDeadline ?? Infinity;
    if (next !== Infinity) res.nextDeadline = next;
    return res;
  };

  return (req) => {
    if (req?.v !== PROTOCOL_VERSION) {
      return { v: PROTOCOL_VERSION, ok: false, error: 'version_mismatch', message: `worker speaks v${PROTOCOL_VERSION}` };
    }
    if (req.type === 'load') {
      state = new ShardState(req.options);
      const released = state.load(req.seed);
      generation = req.generation;
      testHooks = req.options.testHooks === true;
      return ok({ loaded: true, changes: released.changes });
    }
    if (state === null || req.generation !== generation) {
      return { v: PROTOCOL_VERSION, ok: false, error: 'not_seeded', message: `worker holds generation ${generation}, asked ${req.generation}` };
    }
    switch (req.type) {
      case 'fences': {
        const out = state.removeFences(req.remove);
        // A trigger that stops being one-time releases records here.
        for (const c of state.upsertFences(req.upsert).changes) out.changes.push(c);
        return ok(out);
      }
      case 'users':
        return ok(state.setUsers(req.users));
      case 'points':
        return ok(state.applyBatch(req.batch));
      case 'bodies': {
        const read = readBodies(req.requests);
        const before = state.appliedPoints;
        const out = state.applyBatch(read.batch, true);
        return ok(bodiesOutput(out, read, req.requests, state.appliedPoints - before));
      }
      case 'tick':
        return ok(state.tick(req.now, req.appliedAt));
      case 'inspect':
        return ok(state.inspect(req.userId, req.filter));
      case 'stats': {
        const stats = state.stats();
        const cpu = threadCpuMs();
        if (cpu !== undefined) stats.threadCpuMs = cpu;
        return ok(stats);
      }
      case 'crash':
        if (!testHooks) return { v: PROTOCOL_VERSION, ok: false, error: 'bad_request', message: 'test hooks are off' };
        // Simulates a crashed thread (e.g. out of memory) for the recovery tests.
        process.exit(13);
    }
    return { v: PROTOCOL_VERSION, ok: false, error: 'bad_request', message: 'unknown request type' };
  };
}

/** User + system CPU time of the calling thread, from /proc (clock ticks of 10 ms). */
export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}

// The engine's Piscina pool names its shard's thread; anywhere else (the in-process engine of the
// tests, the benchmarks) there is no such name and the importing thread keeps its own.
const threadName = (workerData as { threadName?: unknown } | null)?.threadName;
if (typeof threadName === 'string') nameThisThread(threadName);

export default createShardHandler();
