// Checkpoints of the embedded store's WAL, moved off the main thread. SQLite's own automatic
// checkpoint runs inside the commit that crosses its threshold, fsync included, which stalled the
// service's event loop under a steady write load; the main connection turns it off, and once the
// WAL has grown past a few megabytes a thread with its own connection checkpoints it every second.
// Small databases (most tests) never start the thread.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerEntry, workerExecArgv } from '../../../workers/exec-argv.js';

const WORKER_FILE = workerEntry('checkpoint-worker', 'checkpoint-entry.cjs');
/** WAL size from which the thread starts. */
const START_BYTES = 4 * 1024 * 1024;
/** Commits between two looks at the WAL's size. */
const LOOK_EVERY = 64;

export class Checkpointer {
  private worker?: Worker;
  private commits = 0;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly onError: (message: string) => void = () => undefined,
    private readonly intervalMs = 1000,
  ) {}

  /** Told after each commit: starts the thread once the WAL is large. */
  committed(): void {
    if (this.worker || this.closed || ++this.commits % LOOK_EVERY !== 0) return;
    let size = 0;
    try {
      size = statSync(`${this.file}-wal`).size;
    } catch {
      return;
    }
    if (size < START_BYTES) return;
    const worker = new Worker(WORKER_FILE, { workerData: { file: this.file, intervalMs: this.intervalMs }, execArgv: workerExecArgv() });
    worker.unref();
    worker.on('message', (m: { error?: string }) => m.error && this.onError(m.error));
    worker.on('error', (err) => this.onError(err.message));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
