// How a shard runs: a Piscina pool with exactly one thread running one task at a time (the thread
// owns the shard), or, for tests and tools, the same handler in this thread.
import { Piscina } from 'piscina';
import { workerEntry, workerExecArgv } from '../../workers/exec-argv.js';
import type { ShardRequest, ShardResponse } from '../../workers/protocol.js';
import { createShardHandler } from '../../workers/shard-worker.js';

export interface Runner {
  run(req: ShardRequest): Promise<ShardResponse>;
  close(): Promise<void>;
  /** Kill the thread now, whatever it is doing (tests of crash recovery). */
  terminate(): Promise<void>;
}

const WORKER_FILE = workerEntry('shard-worker');

export function newRunner(index: number, inProcess: boolean): Runner {
  if (inProcess) {
    const handle = createShardHandler();
    return { run: async (req) => handle(structuredClone(req)), close: async () => {}, terminate: async () => {} };
  }
  const pool = new Piscina({
    filename: WORKER_FILE.href,
    minThreads: 1,
    maxThreads: 1,
    concurrentTasksPerWorker: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
    execArgv: workerExecArgv(),
    // The name the operating system shows for this shard's thread (workers/thread-name.ts).
    workerData: { threadName: `gt-shard-${index}` },
  });
  // A thread that dies between tasks is replaced by Piscina with an empty one; the generation
  // check catches that on the next request, so the event only needs to be swallowed here.
  pool.on('error', () => {});
  return {
    run: (req) => pool.run(req) as Promise<ShardResponse>,
    close: () => pool.destroy(),
    terminate: async () => {
      await Promise.all(pool.threads.map((t) => t.terminate()));
    },
  };
}
