// Fair shares of the delivery loop between receivers. The loop sends a fixed number of callbacks
// at once; without a share per receiver, one application whose endpoint hangs until the timeout
// would hold every slot, and every other application's callbacks would wait behind it. Each origin
// (scheme, host and port of the callback URL) has a p-limit of `perOrigin` callbacks in their HTTP
// phase, and rows waiting for a slot are taken from the origins in turn, oldest first within one.
import pLimit, { type LimitFunction } from 'p-limit';
import type { OutboxDoc } from '../store/documents.js';

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

/** A p-limit per origin that has callbacks in their HTTP phase. */
export class OriginLimits {
  private readonly limits = new Map<string, LimitFunction>();
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
    const limit = this.limits.get(origin);
    return limit !== undefined && limit.activeCount + limit.pendingCount >= this.perOrigin;
  }

  /**
   * Takes one of the origin's slots now if it has one free, else once one frees, and holds it until
   * `phase` settles; `freed` is called once the slot is free again. Resolves when the slot is taken.
   */
  take(origin: string, phase: Promise<unknown>, freed?: () => void): Promise<void> {
    let limit = this.limits.get(origin);
    if (!limit) {
      limit = pLimit(this.perOrigin);
      this.limits.set(origin, limit);
    }
    const l = limit;
    return new Promise<void>((taken) => {
      void l(() => {
        taken();
        return phase.catch(() => undefined);
      }).finally(() => {
        // An origin without callbacks in flight keeps no limiter.
        if (l.activeCount === 0 && l.pendingCount === 0 && this.limits.get(origin) === l) this.limits.delete(origin);
        freed?.();
      });
    });
  }
}

/** Rows handed over and not started yet: one queue per origin, served in turn. */
export class OfferedRows {
  private readonly queues = new Map<string, OutboxDoc[]>();
  private readonly ids = new Set<string>();
  size = 0;

  constructor(private readonly originOfUrl: (url: string) => string = originOf) {}

  push(row: OutboxDoc): void {
    const origin = this.originOfUrl(row.url);
    const q = this.queues.get(origin);
    if (q) q.push(row);
    else this.queues.set(origin, [row]);
    this.ids.add(row._id);
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
  next(ready: (origin: string) => boolean): OutboxDoc | undefined {
    for (const [origin, q] of this.queues) {
      if (!ready(origin)) continue;
      const row = q.shift()!;
      this.ids.delete(row._id);
      this.size--;
      this.queues.delete(origin);
      if (q.length > 0) this.queues.set(origin, q);
      return row;
    }
    return undefined;
  }

  /** Every waiting row, emptying the queues. */
  drain(): OutboxDoc[] {
    const rows = [...this.queues.values()].flat();
    this.queues.clear();
    this.ids.clear();
    this.size = 0;
    return rows;
  }
}
