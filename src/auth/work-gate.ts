// A bound on expensive work that anyone with a public API key can start: each scrypt check holds a
// libuv thread and 128 MiB for hundreds of ms, and the password grant needs only the client_id.
// Unbounded, a burst of logins filled the thread pool (delaying the DNS lookups every callback
// makes and the store's file work) and the memory. A few run at once, a few more wait; beyond
// that the caller is told to come back (429 with Retry-After), rather than queueing without end.
export class GateFullError extends Error {
  constructor() {
    super('too much of this work is waiting');
  }
}

export class WorkGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw new GateFullError();
      // The slot is handed over by the finishing run, so `running` stays counted meanwhile.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
