// A bound on expensive work that anyone with a public API key can start: each scrypt check holds a
// libuv thread and 128 MiB for hundreds of ms, and the password grant needs only the client_id.
// Unbounded, a burst of logins filled the thread pool (delaying the DNS lookups every callback
// makes and the store's file work) and the memory. A few run at once (async-mutex's semaphore, in
// arrival order), a few more wait; beyond that the caller is told to come back (429 with
// Retry-After), rather than queueing without end.
import { Semaphore } from 'async-mutex';

export class GateFullError extends Error {
  constructor() {
    super('too much of this work is waiting');
  }
}

export class WorkGate {
  private readonly slots: Semaphore;
  private waiting = 0;

  constructor(concurrency: number, private readonly maxWaiting: number) {
    this.slots = new Semaphore(concurrency);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    // Taken at once when a slot is free (the semaphore counts it synchronously), else queued.
    const queued = this.slots.isLocked();
    if (queued && this.waiting >= this.maxWaiting) throw new GateFullError();
    if (!queued) return this.slots.runExclusive(work);
    this.waiting++;
    // Nothing cancels the semaphore, so every queued run starts (and stops waiting) in turn.
    return this.slots.runExclusive(() => {
      this.waiting--;
      return work();
    });
  }
}
