// The outbox queue: due callbacks taken from the store, leased, and held per origin until the loop
// has a slot for them. It is the one way callbacks reach the loop: whoever stores or reschedules
// callbacks signals it, and it reads the store.
//
// Two reads, both of due callbacks in due order (store/firings.ts dueHeads):
// - New ones, after a signal: from where the previous such read stopped (a cursor in due order),
//   so a signal reads what became due since, never a backlog again.
// - From the start, every pollMs, or sooner while more are known to be due: when the queue runs
//   low, or when it holds only callbacks of receivers whose slots are all taken (then further, as
//   poll-pages.ts allows, to reach other receivers' callbacks behind one receiver's backlog).
// An origin with `originQueue` callbacks queued gets no more: the rest stay due in the store, so
// other origins' callbacks get in. Every callback queued is leased (a conditional write): of several
// loops (several nodes on MongoDB) only one holds it.
import type { DueHead, DuePosition, FiringRepo, LeasedCallback } from '../store/firings.js';
import { OriginQueues, type OriginLimits } from './origin-limits.js';
import { PollPages } from './poll-pages.js';

export interface QueueOptions {
  pollMs: number;
  leaseMs: number;
  /** Callbacks queued at most. */
  queueLimit: number;
  /** The queue counts as low at this size (the loop's concurrency). */
  low: number;
}

/** After a read from the start that queued nothing, the next such read waits this long (ms). */
const QUIET_MS = 100;

export class OutboxQueue {
  private readonly queued: OriginQueues;
  private readonly pages: PollPages;
  /** Callbacks of one origin queued at most. */
  private readonly originQueue: number;
  /** New callbacks may be due: stored, rescheduled, or the loop just started. */
  private signalled = true;
  /** Where the read of new callbacks stopped, in due order. */
  private cursor?: DuePosition;
  /** The last read from the start left due callbacks in the store. */
  private more = false;
  /** performance.now() before which a read from the start that found nothing is not repeated. */
  private quietUntil = 0;
  /** performance.now() of the next timed read from the start. */
  private nextPoll = 0;

  constructor(
    private readonly firings: FiringRepo,
    private readonly origins: OriginLimits,
    private readonly owner: () => string,
    private readonly now: () => number,
    private readonly o: QueueOptions,
  ) {
    this.queued = new OriginQueues((url) => origins.origin(url));
    this.originQueue = 4 * origins.perOrigin;
    this.pages = new PollPages(this.originQueue + o.low);
  }

  get size(): number {
    return this.queued.size;
  }

  /** Callbacks were stored or made due: the next refill reads them. */
  signal(): void {
    this.signalled = true;
  }

  has(eventId: string): boolean {
    return this.queued.has(eventId);
  }

  hasReady(ready: (origin: string) => boolean): boolean {
    return this.queued.hasReady(ready);
  }

  /** The oldest callback of the next origin in turn that `ready` admits. */
  next(ready: (origin: string) => boolean): LeasedCallback | undefined {
    return this.queued.next(ready);
  }

  /** Up to `n` more queued callbacks of `c`'s origin that `same` admits (a batch's). */
  takeAlong(c: LeasedCallback, n: number, same: (x: LeasedCallback) => boolean): LeasedCallback[] {
    return this.queued.takeAlong(c, n, same);
  }

  /** Every queued callback, taken out (the loop stops: they are released). */
  drain(): LeasedCallback[] {
    return this.queued.drain();
  }

  /** performance.now() from which refill() has something to do without a signal (0: now). */
  dueAt(ready: (origin: string) => boolean): number {
    if (this.signalled) return 0;
    if (!this.more) return this.nextPoll;
    const low = this.queued.size <= this.o.low;
    const further = this.queued.hasReady(ready) ? Infinity : this.pages.searchFrom;
    return Math.min(this.nextPoll, Math.max(this.quietUntil, low ? 0 : further));
  }

  /** Reads what is due (see above) into the queue, as far as there is room. */
  async refill(ready: (origin: string) => boolean): Promise<void> {
    if (this.signalled && this.queued.size < this.o.queueLimit) await this.readNew();
    const t = performance.now();
    if (this.queued.size >= this.o.queueLimit) return;
    const moreWanted = this.more && t >= this.quietUntil;
    const search = moreWanted && t >= this.pages.searchFrom && !this.queued.hasReady(ready);
    if (t >= this.nextPoll || search || (moreWanted && this.queued.size <= this.o.low)) await this.readFromStart(search);
  }

  private async readNew(): Promise<void> {
    this.signalled = false;
    const limit = Math.min(this.o.queueLimit - this.queued.size, this.pages.limit(false));
    const now = this.now();
    const heads = await this.firings.dueHeads(now, limit, this.cursor);
    if (heads.length >= limit) {
      // A full page: more wait behind its last one.
      const last = heads[heads.length - 1]!;
      this.cursor = { at: last.next_attempt_at, seq: last.seq };
      this.signalled = true;
    } else {
      // Everything due by `now` was read. Callbacks are stored due at the time of the write that
      // stores them (delivery/firings.ts), so any stored later is due at `now` or after.
      this.cursor = { at: now, seq: -1 };
    }
    if (heads.length === 0) return;
    const { take, skipped } = this.choose(heads, limit);
    if (skipped > 0) this.more = true;
    await this.lease(take);
  }

  private async readFromStart(search: boolean): Promise<void> {
    const t = performance.now();
    this.nextPoll = t + this.o.pollMs;
    const limit = this.pages.limit(search);
    const heads = await this.firings.dueHeads(this.now(), limit);
    const { take, skipped, fresh } = this.choose(heads, this.o.queueLimit - this.queued.size);
    this.pages.polled(search, limit, heads.length, skipped, fresh, performance.now());
    this.more = heads.length >= limit || skipped > 0;
    if (take.length === 0) {
      this.quietUntil = performance.now() + QUIET_MS;
      return;
    }
    await this.lease(take);
  }

  /**
   * The heads to queue, in order, as far as `room` and each origin's share go: `skipped` were left
   * for full origin queues, `fresh` taken for origins that had none queued.
   */
  private choose(heads: DueHead[], room: number) {
    const take: string[] = [];
    const counts = new Map<string, number>();
    let skipped = 0;
    let fresh = 0;
    for (const h of heads) {
      if (take.length >= room) break;
      if (this.queued.has(h.event_id)) continue;
      const origin = this.origins.origin(h.url);
      const n = counts.get(origin) ?? this.queued.count(origin);
      if (n >= this.originQueue) {
        skipped++;
        continue;
      }
      if (n === 0 && !counts.has(origin)) fresh++;
      counts.set(origin, n + 1);
      take.push(h.event_id);
    }
    return { take, skipped, fresh };
  }

  /** Leases the chosen ones in one write under a new owner and queues those won, in order. */
  private async lease(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const now = this.now();
    const won = await this.firings.leaseDue(ids, this.owner(), now + this.o.leaseMs, now);
    if (won.length === 0) return;
    const order = new Map(ids.map((id, i) => [id, i]));
    won.sort((a, b) => order.get(a.event_id)! - order.get(b.event_id)!);
    for (const c of won) this.queued.push(c);
  }
}
