// Fair shares of the dispatcher between receivers. The dispatcher sends a fixed number of callbacks
// at once; without a share per receiver, one application whose endpoint hangs until the timeout
// would hold every slot, and every other application's callbacks would wait behind it. Each origin
// (scheme, host and port of the callback URL) may have at most `limit` callbacks in their HTTP
// phase, and rows waiting for a slot are taken from the origins in turn, oldest first within one.
import type { OutboxDoc } from '../store/documents.js';

const origins = new Map<string, string>();

/** The origin a callback URL is sent to (the URL itself if it does not parse: its send fails anyway). */
export function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    try {
      origin = new URL(url).origin;
    } catch {
      origin = url;
    }
    if (origins.size >= 10_000) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/** Callbacks in their HTTP phase, per origin. */
export class EndpointSlots {
  private readonly busy = new Map<string, number>();

  constructor(readonly limit: number) {}

  full(origin: string): boolean {
    return (this.busy.get(origin) ?? 0) >= this.limit;
  }

  /** Takes a slot (past the limit too: trigger/run sends at once whatever the share). */
  take(origin: string): void {
    this.busy.set(origin, (this.busy.get(origin) ?? 0) + 1);
  }

  release(origin: string): void {
    const n = (this.busy.get(origin) ?? 0) - 1;
    if (n > 0) this.busy.set(origin, n);
    else this.busy.delete(origin);
  }
}

/** Rows handed over and not started yet: one queue per origin, served in turn. */
export class OfferedRows {
  private readonly queues = new Map<string, OutboxDoc[]>();
  size = 0;

  push(row: OutboxDoc): void {
    const origin = originOf(row.url);
    const q = this.queues.get(origin);
    if (q) q.push(row);
    else this.queues.set(origin, [row]);
    this.size++;
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
    this.size = 0;
    return rows;
  }
}
