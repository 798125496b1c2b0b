// Drains the outbox. Polls for due rows (and is woken at once by an enqueue), takes a lease on each
// with a compare-and-set on the row, sends it (one round: an attempt plus quick p-retry retries),
// records every attempt, and then marks the row delivered, dead, or pending again with a
// persisted next_attempt_at from the long schedule (backoff.ts).
//
// Guarantees: at-least-once. A process that dies mid-send leaves the row leased; when the lease
// runs out the row is due again and is re-sent with the same event id (webhook-id), so the
// receiver can drop the duplicate. Leases are plain fields updated conditionally, so several
// dispatchers (several nodes, MongoDB) can share one outbox without sending a row twice at once.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../services/context.js';
import type { DeliveryStatus, OutboxDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { DEFAULT_BACKOFF, nextAttemptAt, type BackoffPolicy } from './backoff.js';
import { CallbackSender, sendWithRetries, type AttemptOutcome, type RoundOptions } from './callback-sender.js';
import { attempts, history, outbox } from './outbox.js';
import { runtimeOf, type DeliveryLog, type DeliveryReport, type DispatcherHandle } from './runtime.js';
import type { Resolver } from './ssrf-guard.js';

export interface DispatcherOptions {
  /** How often the outbox is polled when nothing wakes the dispatcher (ms). */
  pollMs?: number;
  /** How long a leased row belongs to this dispatcher before another may take it (ms). */
  leaseMs?: number;
  /** Rows sent at the same time. */
  concurrency?: number;
  backoff?: Partial<BackoffPolicy>;
  /** The quick retries inside one round (p-retry). */
  round?: Pick<RoundOptions, 'retries' | 'minDelayMs' | 'maxInlineRetryAfterMs'>;
  /** Deadline of one HTTP attempt (ms). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Resolver behind the connect-time SSRF guard (tests). */
  resolve?: Resolver;
  random?: () => number;
  log?: DeliveryLog;
}

export interface Dispatcher extends DispatcherHandle {
  /** Stops polling, aborts sends in flight (their rows are released for another try) and waits. */
  stop(): Promise<void>;
}

export function startDispatcher(ctx: ServiceContext, opts: DispatcherOptions = {}): Dispatcher {
  const d = new OutboxDispatcher(ctx, opts);
  const rt = runtimeOf(ctx);
  if (opts.log) rt.log = opts.log;
  rt.dispatcher = d;
  d.start();
  return {
    wake: () => d.wake(),
    deliverNow: (id) => d.deliverNow(id),
    stop: async () => {
      if (rt.dispatcher === d) rt.dispatcher = undefined;
      await d.stop();
    },
  };
}

type Leased = OutboxDoc & { lease_owner: string };

class OutboxDispatcher implements DispatcherHandle {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly policy: BackoffPolicy;
  private readonly random: () => number;
  private readonly sender: CallbackSender;
  private readonly abort = new AbortController();
  private readonly inflight = new Set<Promise<void>>();
  private stopped = false;
  private woken = false;
  private wakeSleeper?: () => void;
  private loop?: Promise<void>;

  constructor(private readonly ctx: ServiceContext, private readonly opts: DispatcherOptions) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.leaseMs = opts.leaseMs ?? 120_000;
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.policy = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.random = opts.random ?? Math.random;
    this.sender = new CallbackSender({
      allowPrivate: ctx.config.callbackAllowPrivate,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      resolve: opts.resolve,
      now: ctx.now,
    });
  }

  private get log(): DeliveryLog {
    return runtimeOf(this.ctx).log;
  }

  start() {
    this.loop = this.run();
  }

  wake() {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.woken = true;
  }

  async stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort(new Error('dispatcher stopped'));
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
    await this.sender.close();
  }

  private async run() {
    while (!this.stopped) {
      let full = false;
      try {
        full = await this.tick();
      } catch (err) {
        this.log.error({ err }, 'outbox poll failed');
      }
      if (this.stopped) break;
      if (this.inflight.size >= this.concurrency) await Promise.race([...this.inflight]);
      else if (!full) await this.sleep(this.pollMs);
    }
  }

  /** Leases and starts as many due rows as there is room for; true when the room was filled. */
  private async tick(): Promise<boolean> {
    const room = this.concurrency - this.inflight.size;
    if (room <= 0) return true;
    const now = this.ctx.now();
    const due = await outbox(this.ctx)
      .find({ status: { $in: ['pending', 'delivering'] }, next_attempt_at: { $lte: now } }, { sort: { next_attempt_at: 1 }, limit: room })
      .toArray();
    let started = 0;
    for (const row of due) {
      if (this.stopped) break;
      const leased = await this.lease(row, now);
      if (!leased) continue;
      started++;
      this.track(this.process(leased, this.opts.round ?? {}));
    }
    return started > 0 && started >= room;
  }

  private track(p: Promise<unknown>) {
    const tracked: Promise<void> = p
      .then(() => undefined, (err) => this.log.error({ err }, 'callback dispatch failed'))
      .finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }

  /**
   * Compare-and-set on the fields read: of several dispatchers that saw the row due, one wins.
   * While leased, next_attempt_at is the lease's end, so the row is due again only if its holder
   * dies without finishing.
   */
  private async lease(row: OutboxDoc, now: number): Promise<Leased | null> {
    const owner = randomUUID();
    const until = now + this.leaseMs;
    const res = await outbox(this.ctx).updateOne(
      { _id: row._id, status: row.status, next_attempt_at: row.next_attempt_at, lease_until: row.lease_until },
      { $set: { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: owner, updated_at: now }, $inc: { rounds: 1 } },
    );
    if (res.matchedCount === 0) return null;
    return { ...row, status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: owner, rounds: row.rounds + 1 };
  }

  async deliverNow(eventId: string): Promise<DeliveryReport | null> {
    if (this.stopped) return null;
    const now = this.ctx.now();
    const row = await outbox(this.ctx).findOne({ _id: eventId });
    // A pending row may be due later (held back for this call); a leased one only once its lease ran out.
    if (!row || (row.status !== 'pending' && row.status !== 'delivering') || (row.status === 'delivering' && row.next_attempt_at > now)) return null;
    const leased = await this.lease(row, now);
    if (!leased) return null;
    const p = this.process(leased, { retries: 0 });
    this.track(p);
    return (await p) ?? null;
  }

  /** Sends one leased row; says how it ended (undefined when stopped mid-send). */
  private async process(row: Leased, round: RoundOptions): Promise<DeliveryReport | undefined> {
    const app = await this.ctx.store.applications.findOne({ _id: row.app_id });
    if (!app) return this.finish(row, { kind: 'dead', error: 'the application no longer exists', durationMs: 0 });
    let attemptNo = row.attempts;
    let outcome: AttemptOutcome;
    try {
      outcome = await sendWithRetries(
        this.sender,
        // Serialised from the stored payload: the same bytes on every attempt.
        { eventId: row._id, url: row.url, body: JSON.stringify(row.payload), secret: app.webhook_secret },
        {
          ...round,
          signal: this.abort.signal,
          onAttempt: async (o) => {
            attemptNo++;
            if (o.status !== undefined) row.last_status = o.status;
            await this.recordAttempt(row, attemptNo, o);
          },
        },
      );
    } catch (err) {
      if (!this.abort.signal.aborted) throw err;
      // Shutting down mid-send: hand the row back now rather than after the lease. The request
      // may have reached the receiver; the resend carries the same webhook-id.
      await outbox(this.ctx).updateOne(
        { _id: row._id, lease_owner: row.lease_owner },
        { $set: { status: 'pending', next_attempt_at: this.ctx.now(), lease_until: 0, updated_at: this.ctx.now() } },
      );
      return;
    }
    row.attempts = attemptNo;
    return this.finish(row, outcome);
  }

  private async recordAttempt(row: Leased, attempt: number, o: AttemptOutcome): Promise<void> {
    const at = this.ctx.now();
    await attempts(this.ctx).insertOne({
      _id: newId(),
      event_id: row._id,
      app_id: row.app_id,
      attempt,
      at,
      duration_ms: o.durationMs,
      ...(o.status !== undefined ? { status_code: o.status } : {}),
      ...(o.kind !== 'delivered' ? { error: o.error } : {}),
      outcome: o.kind,
    });
    await outbox(this.ctx).updateOne(
      { _id: row._id, lease_owner: row.lease_owner },
      {
        $set: {
          attempts: attempt,
          updated_at: at,
          ...(o.status !== undefined ? { last_status: o.status } : {}),
          ...(o.kind !== 'delivered' ? { last_error: o.error } : {}),
        },
      },
    );
  }

  private async finish(row: Leased, o: AttemptOutcome): Promise<DeliveryReport> {
    const now = this.ctx.now();
    let status: DeliveryStatus;
    let set: Partial<OutboxDoc>;
    let lastError: string | undefined;
    if (o.kind === 'delivered') {
      status = 'delivered';
      set = { status, delivered_at: now, lease_until: 0 };
    } else {
      const next = o.kind === 'retry' ? nextAttemptAt(now, row.rounds, this.policy, o.retryAfterMs, this.random) : null;
      lastError = o.kind === 'retry' && next === null ? `gave up after ${row.rounds} rounds; last: ${o.error}` : o.error;
      status = next === null ? 'dead' : 'pending';
      set = { status, lease_until: 0, last_error: lastError, ...(next !== null ? { next_attempt_at: next } : {}) };
    }
    const res = await outbox(this.ctx).updateOne(
      { _id: row._id, lease_owner: row.lease_owner },
      { $set: { ...set, updated_at: now }, ...(o.kind === 'delivered' ? { $unset: { last_error: '' } } : {}) },
    );
    if (res.matchedCount === 0) {
      // The lease ran out and another dispatcher owns the row now; its outcome will be recorded.
      this.log.warn({ event_id: row._id }, 'callback lease lost before its outcome was saved');
      return { status: 'delivering', attempts: row.attempts, last_status: row.last_status, last_error: lastError };
    }
    await history(this.ctx).updateOne(
      { _id: row._id },
      {
        $set: {
          'delivery.status': status,
          'delivery.attempts': row.attempts,
          'delivery.updated_at': now,
          ...(lastError ? { 'delivery.last_error': lastError } : {}),
        },
      },
    );
    if (status === 'dead') this.log.warn({ event_id: row._id, app_id: row.app_id, error: lastError }, 'callback dead');
    return { status, attempts: row.attempts, last_status: row.last_status, last_error: lastError };
  }
}
