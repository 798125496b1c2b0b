// Fair shares of the delivery loop between receivers. The loop sends a fixed number of callbacks
// at once; without a share per receiver, one application whose endpoint hangs until the timeout
// would hold every slot, and every other application's callbacks would wait behind it. Each origin
// (scheme, host and port of the callback URL) has `perOrigin` slots for callbacks (or batches of
// them) in their HTTP phase, and rows waiting for a slot are taken from the origins in turn, oldest
// first within one. Plain counters: the loop starts a row only when its origin has a slot free, so
// it needs no promise or limiter per callback.
import type { LeasedCallback } from '../store/firings.js';

/** The origin a callback URL is sent to (the URL itself if it does not parse: its send fails anyway). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Origins known at once, at most, in the URL memo; past it the memo starts over. */
const MAX_URLS = 10_000;

/** Slots in use per origin that has callbacks in their HTTP phase, and who waits for one. */
export class OriginLimits {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  /** originOf by URL: parsing a URL for every row the loop looks at is not free. */
  private readonly origins = new Map<string, string>();

  constructor(readonly perOrigin: number) {}

  origin(url: string): string {
    let origin = this.origins.get(url);
    if (origin === undefined) {
      origin = originOf(url);
      if (this.origins.size >= MAX_URLS) this.origins.clear();
      this.origins.set(url, origin);
    }
    return origin;
  }

  /** The origin has its share in its HTTP phase (or waiting for it). */
  full(origin: string): boolean {
    return (this.active.get(origin) ?? 0) + (this.waiting.get(origin)?.length ?? 0) >= this.perOrigin;
  }

  /** Takes one of the origin's slots now, whether or not one is free (the caller asked full() first). */
  enter(origin: string): void {
    this.active.set(origin, (this.active.get(origin) ?? 0) + 1);
  }

  /** Gives a slot back: to the oldest waiting take(), else free. An origin with no slot in use keeps no entry. */
  leave(origin: string): void {
    const q = this.waiting.get(origin);
    const next = q?.shift();
    if (q?.length === 0) this.waiting.delete(origin);
    if (next) return next();
    const n = (this.active.get(origin) ?? 1) - 1;
    if (n <= 0) this.active.delete(origin);
    else this.active.set(origin, n);
  }

  /**
   * Takes one of the origin's slots now if it has one free, else once one frees, and holds it until
   * `phase` settles; `freed` is called once the slot is given back. Resolves when the slot is taken.
   */
  take(origin: string, phase: Promise<unknown>, freed?: () => void): Promise<void> {
    return new Promise<void>((taken) => {
      const go = () => {
        taken();
        void phase.catch(() => undefined).then(() => {
          this.leave(origin);
          freed?.();
        });
      };
      if ((this.active.get(origin) ?? 0) < this.perOrigin) {
        this.enter(origin);
        go();
        return;
      }
      const q = this.waiting.get(origin);
      if (q) q.push(go);
      else this.waiting.set(origin, [go]);
    });
  }
}

/** Leased callbacks not started yet: one queue per origin, served in turn. */
export class OriginQueues {
  private readonly queues = new Map<string, LeasedCallback[]>();
  private readonly ids = new Set<string>();
  size = 0;

  constructor(private readonly originOfUrl: (url: string) => string = originOf) {}

  push(row: LeasedCallback): void {
    const origin = this.originOfUrl(row.url);
    const q = this.queues.get(origin);
    if (q) q.push(row);
    else this.queues.set(origin, [row]);
    this.ids.add(row.event_id);
    this.size++;
  }

  /** Whether the row is waiting here. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Rows of the origin waiting here. */
  count(origin: string): number {
    return this.queues.get(origin)?.length ?? 0;
  }

  /** Whether a row of an origin that `ready` admits is waiting. */
  hasReady(ready: (origin: string) => boolean): boolean {
    for (const origin of this.queues.keys()) if (ready(origin)) return true;
    return false;
  }

  /** The oldest row of the next origin in turn that `ready` admits; that origin then goes last. */
  next(ready: (origin: string) => boolean): LeasedCallback | undefined {
    for (const [origin, q] of this.queues) {
      if (!ready(origin)) continue;
      const row = q.shift()!;
      this.ids.delete(row.event_id);
      this.size--;
      this.queues.delete(origin);
      if (q.length > 0) this.queues.set(origin, q);
      return row;
    }
    return undefined;
  }

  /**
   * Up to `n` more rows waiting for the origin of `row` (just taken) that `same` admits, oldest
   * first, taken out of the queue: the rows a batch sends along with it. Looks at the first
   * BATCH_SCAN rows of the queue only.
   */
  takeAlong(row: LeasedCallback, n: number, same: (r: LeasedCallback) => boolean): LeasedCallback[] {
    const q = this.queues.get(this.originOfUrl(row.url));
    if (!q || n <= 0) return [];
    const taken: LeasedCallback[] = [];
    const kept: LeasedCallback[] = [];
    const scan = Math.min(q.length, BATCH_SCAN);
    for (let i = 0; i < scan; i++) {
      const r = q[i]!;
      if (taken.length < n && same(r)) taken.push(r);
      else kept.push(r);
    }
    if (taken.length === 0) return taken;
    q.splice(0, scan, ...kept);
    for (const r of taken) this.ids.delete(r.event_id);
    this.size -= taken.length;
    if (q.length === 0) this.queues.delete(this.originOfUrl(row.url));
    return taken;
  }

  /** Every waiting row, emptying the queues. */
  drain(): LeasedCallback[] {
    const rows = [...this.queues.values()].flat();
    this.queues.clear();
    this.ids.clear();
    this.size = 0;
    return rows;
  }
}

/** Queued rows of one origin looked at, at most, for the rows of a batch. */
const BATCH_SCAN = 1_000;
