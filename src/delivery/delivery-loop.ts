// The delivery loop: signal, drain, wait. Whoever stores or reschedules callbacks signals it
// (wake); each turn the outbox queue (outbox-queue.ts) reads and leases what is due, the loop
// starts queued callbacks while it has slots (rounds.ts), then waits for a signal, a round's end or
// the queue's next read.
//
// Guarantees: at-least-once. A process that dies mid-send leaves the callback leased; when the
// lease runs out it is due again and is re-sent with the same event id (webhook-id), so the
// receiver can drop the duplicate. Leases are conditional writes, so several loops (several nodes,
// MongoDB) share one outbox without sending a callback twice at once. A stop releases the queued
// callbacks and hands back those in flight. On the embedded store, which one process owns, the
// leases a dead process left are due at once at the next start.
import { randomUUID } from 'node:crypto';
import { DEFAULT_CALLBACK_CONCURRENCY, defaultEndpointConcurrency } from '../config.js';
import { BatchSettings } from './batch-settings.js';
import { OriginLimits } from './origin-limits.js';
import { OutboxQueue } from './outbox-queue.js';
import { RecoveringReceivers } from './recovering-receivers.js';
import { DEFAULT_BACKOFF } from './retry-schedule.js';
import { Rounds } from './rounds.js';
import type { DeliveryReport, DispatcherHandle, LoopDeps, LoopOptions } from './types.js';
import { Wake } from './wake.js';

export type { LoopDeps, LoopOptions } from './types.js';

/**
 * Lease owners start with this process's id, then the loop's: on the embedded store a callback
 * leased under another process id was left by a process that is gone. A constant identity, not state.
 */
const PROCESS_ID = randomUUID();

export class DeliveryLoop implements DispatcherHandle {
  private readonly wakeUp = new Wake();
  private readonly origins: OriginLimits;
  private readonly queue: OutboxQueue;
  private readonly rounds: Rounds;
  private readonly batches: BatchSettings;
  private readonly id = `${PROCESS_ID}:${randomUUID()}`;
  /** An origin may start another callback: it has fewer than its share in their HTTP phase. */
  private readonly ready = (origin: string) => !this.origins.full(origin);
  private stopped = false;
  private loop?: Promise<void>;
  private readonly recovering: RecoveringReceivers;

  constructor(private readonly deps: LoopDeps, opts: LoopOptions = {}) {
    const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CALLBACK_CONCURRENCY);
    const leaseMs = opts.leaseMs ?? 120_000;
    this.origins = new OriginLimits(Math.max(1, opts.endpointConcurrency ?? defaultEndpointConcurrency(concurrency)));
    const owner = () => `${this.id}:${randomUUID()}`;
    this.queue = new OutboxQueue(deps.firings, this.origins, owner, deps.now, {
      pollMs: opts.pollMs ?? 1_000, leaseMs, queueLimit: opts.queueLimit ?? 10_000, low: concurrency,
    });
    this.batches = new BatchSettings(deps.docs);
    const recovering = (this.recovering = new RecoveringReceivers(deps.firings, deps.now, deps.log, () => this.wake()));
    this.rounds = new Rounds({
      firings: deps.firings, sender: deps.sender, docs: deps.docs, now: deps.now, log: deps.log, metrics: deps.metrics,
      policy: { ...DEFAULT_BACKOFF, ...opts.backoff }, random: opts.random ?? Math.random,
    }, this.origins, recovering, { concurrency, leaseMs, owner, round: opts.round ?? {}, ended: () => this.wakeUp.kick() });
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Receivers (origins) whose last round ended in a retry. */
  failingReceivers(): number {
    return this.recovering.failingOrigins;
  }

  /** Callbacks were stored or made due: the queue reads the store at the loop's next turn. */
  wake(): void {
    this.queue.signal();
    this.wakeUp.kick();
  }

  async deliverNow(eventId: string): Promise<DeliveryReport | null> {
    if (this.stopped || this.queue.has(eventId)) return null;
    return this.rounds.runNow(eventId, this.batches);
  }

  /** Stops reading the outbox, hands back the callbacks in flight and releases the queued ones. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.rounds.stop();
    this.wakeUp.kick();
    await this.loop;
    await Promise.allSettled([this.rounds.settled(), this.release(this.queue.drain())]);
  }

  private async run(): Promise<void> {
    await this.releaseOrphans();
    while (!this.stopped) {
      try {
        if (this.rounds.room > 0) await this.queue.refill(this.ready);
        await this.drain();
      } catch (err) {
        this.deps.log.error({ err }, 'outbox poll failed');
      }
      if (this.stopped) break;
      const at = this.queue.dueAt(this.ready);
      // More to read at once (a long run of new callbacks): after the I/O that waits, not before.
      if (this.rounds.room > 0 && at <= performance.now()) await new Promise((r) => setImmediate(r));
      else await this.wakeUp.wait(this.rounds.room > 0 ? at : Infinity);
    }
  }

  /** Starts queued callbacks while there are slots: alone, or a batch for an application that takes them. */
  private async drain(): Promise<void> {
    while (this.rounds.room > 0 && !this.stopped) {
      const c = this.queue.next(this.ready);
      if (!c) return;
      const max = this.batches.known(c.app_id) ?? (await this.batches.read(c.app_id));
      if (this.stopped) {
        await this.release([c]);
        return;
      }
      if (max <= 1) this.rounds.start([c], false);
      else this.rounds.start([c, ...this.queue.takeAlong(c, max - 1, (x) => x.app_id === c.app_id && x.url === c.url)], true);
    }
  }

  private release(list: Parameters<LoopDeps['firings']['release']>[0]): Promise<void> {
    return this.deps.firings.release(list, this.deps.now()).catch((err) => this.deps.log.error({ err }, 'releasing queued callbacks failed'));
  }

  /**
   * On the embedded store every loop that can hold a lease lives in this process, so a callback
   * leased under another process's id was left by a process that died: due now, not when its lease runs out.
   */
  private async releaseOrphans(): Promise<void> {
    if (!this.deps.ownsStore) return;
    try {
      const n = await this.deps.firings.orphansDue(`${PROCESS_ID}:`, this.deps.now());
      if (n > 0) this.deps.log.info({ count: n }, 'callbacks left leased by a stopped process are due again');
    } catch (err) {
      this.deps.log.error({ err }, 'releasing orphaned callbacks failed');
    }
  }
}
