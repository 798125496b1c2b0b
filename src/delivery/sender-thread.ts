// The callback sender in a worker thread (workers/sender-worker.ts), with the in-process sender's
// interface: the dispatcher keeps its leases, retries and store writes here and only hands each
// attempt's request over. The request carries this thread's clock, so signatures and Retry-After
// dates follow the service's clock (tests move it) rather than the worker's.
// A plain Worker with one message per event-loop turn each way, not Piscina: a Piscina task cost
// this thread ~70 µs (more than the HTTP request it replaced), a batched message a few.
import { Worker } from 'node:worker_threads';
import { workerEntry, workerExecArgv } from '../../workers/exec-argv.js';
import type { SenderResult, SenderTask } from '../../workers/sender-worker.js';
import type { AttemptOutcome, CallbackRequest, Sender, SenderOptions } from './callback-sender.js';

// Under tsx the thread starts from a CommonJS shim (see there); compiled, from the module itself.
const WORKER_FILE = workerEntry('sender-worker', 'sender-entry.cjs');

interface Pending {
  resolve(o: AttemptOutcome): void;
  reject(err: unknown): void;
  started: number;
  signal?: AbortSignal;
}

export class ThreadedSender implements Sender {
  private readonly now: () => number;
  private readonly init: Omit<SenderOptions, 'resolve' | 'now'>;
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private queue: SenderTask[] = [];
  private nextId = 1;
  private closed = false;
  /** Stop signals with this sender's listener on them (see watch()). */
  private readonly watched = new WeakSet<AbortSignal>();

  /** `resolve` (a function) cannot cross to the thread: a sender with one stays in process. */
  constructor(opts: Omit<SenderOptions, 'resolve'>) {
    const { now, ...init } = opts;
    this.now = now ?? Date.now;
    this.init = init;
    this.start();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_FILE, { workerData: this.init, execArgv: workerExecArgv() });
    worker.on('message', (results: SenderResult[]) => {
      for (const [id, outcome] of results) {
        const p = this.pending.get(id);
        this.pending.delete(id);
        p?.resolve(outcome);
      }
    });
    // A thread that dies fails what it held (as a dropped connection would: retried later, with
    // the same webhook-id) and is replaced at the next attempt.
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.resolve({ kind: 'retry', error: `sender thread: ${why}`.slice(0, 500), errorClass: 'other', durationMs: Math.round(performance.now() - p.started) });
      }
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  attempt(req: CallbackRequest, signal?: AbortSignal): Promise<AttemptOutcome> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.reject(new Error('callback sender closed'));
    if (!this.worker) this.start();
    const id = this.nextId++;
    if (this.queue.length === 0) setImmediate(() => this.flush());
    // Field by field, not `{ ...req, now }` (docs/architecture.md on spreads in V8 11).
    this.queue.push([id, { eventId: req.eventId, url: req.url, body: req.body, secret: req.secret, now: this.now() }]);
    return new Promise<AttemptOutcome>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, started: performance.now(), signal });
      if (signal) this.watch(signal);
    });
  }

  /**
   * A stop does not wait for the receiver: the caller hands the row back (the request may still
   * reach it; the resend carries the same webhook-id). One listener per signal for the sender's
   * life, not one per attempt: the dispatcher passes the same signal to every attempt, and with
   * ~200 in flight, adding and removing a listener each time walked a list that long.
   */
  private watch(signal: AbortSignal) {
    if (this.watched.has(signal)) return;
    this.watched.add(signal);
    signal.addEventListener('abort', () => {
      for (const [id, p] of this.pending) {
        if (p.signal !== signal) continue;
        this.pending.delete(id);
        p.reject(signal.reason);
      }
    }, { once: true });
  }

  private flush() {
    const batch = this.queue;
    this.queue = [];
    const live = batch.filter(([id]) => this.pending.has(id));
    if (live.length > 0) this.worker?.postMessage(live);
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
