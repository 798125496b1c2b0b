// Drains the outbox. Rows recordFirings has just written are handed over in memory (offer) and
// sent at once; a poll finds the rest (retries that fell due, rows of a process that died, rows
// written elsewhere) every pollMs, or at once when woken. Each row is leased with a compare-and-set
// on the row, sent (one round: an attempt plus quick p-retry retries), every attempt is recorded,
// and then the row is marked delivered, dead, or pending again with a persisted next_attempt_at
// from the long schedule (backoff.ts).
//
// Guarantees: at-least-once. A process that dies mid-send leaves the row leased; when the lease
// runs out the row is due again and is re-sent with the same event id (webhook-id), so the
// receiver can drop the duplicate. Leases are plain fields updated conditionally, so several
// dispatchers (several nodes, MongoDB) can share one outbox without sending a row twice at once;
// an offered row is leased the same way, so it is sent once even if a poll here or elsewhere saw it.
// Rows handed over to this dispatcher are written already leased to it (leaseNew, before the
// insert): no other dispatcher sees them due, and none needs a lease write of its own. A stop
// releases those not started yet. A crash leaves them (and rows mid-send) due when their lease
// runs out; on the embedded store, which one process owns, at once at the next start instead.
// The delivery log is written before the row's outcome: a row marked dead always has its last
// attempt in delivery_attempts. The attempt that delivers is not logged on its own: the row's
// outcome update carries it (delivered_at, last_status, last_duration_ms) and listAttempts adds it,
// so each delivered callback keeps one row fewer in the store (and in the embedded store's memory).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DEFAULT_CALLBACK_CONCURRENCY, defaultEndpointConcurrency } from '../config.js';
import type { ServiceContext } from '../services/context.js';
import type { ApplicationDoc, DeliveryStatus, OutboxDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { DEFAULT_BACKOFF, nextAttemptAt, type BackoffPolicy } from './backoff.js';
import { CallbackSender, sendWithRetries, type AttemptOutcome, type CallbackRequest, type RoundOptions, type Sender } from './callback-sender.js';
import { attempts, history, outbox } from './outbox.js';
import { PLACEHOLDER_USER_ID } from './payload.js';
import { CANCELLED } from './queued-callbacks.js';
import { runtimeOf, type DeliveryLog, type DeliveryReport, type DispatcherHandle } from './runtime.js';
import { EndpointSlots, OfferedRows, originOf } from './endpoint-slots.js';
import { ThreadedSender } from './sender-thread.js';
import { signingSecrets } from './signing.js';
import type { Resolver } from './ssrf-guard.js';

export interface DispatcherOptions {
  /** How often the outbox is polled when nothing wakes the dispatcher (ms). */
  pollMs?: number;
  /** How long a leased row belongs to this dispatcher before another may take it (ms). */
  leaseMs?: number;
  /**
   * Rows sent at the same time (default 192; the service passes CALLBACK_CONCURRENCY). Receivers
   * are mostly one origin per application; the sender's undici Agent opens a connection per
   * concurrent request, so this also caps those. A slot is held through the send and the outcome's
   * writes, which wait for a busy main thread: with 32, ~1,100 callbacks/s under batch load queued
   * for seconds (harness p99 5.1 s; 125 ms with 64); with 64, ~2,400/s at 96 connections did
   * (p99 9 s; 191 ms with 192).
   */
  concurrency?: number;
  /**
   * Callbacks to one origin in their HTTP phase at once, at most (default half of `concurrency`):
   * a receiver that hangs holds no more than that, and the other slots serve everyone else.
   */
  endpointConcurrency?: number;
  backoff?: Partial<BackoffPolicy>;
  /** The quick retries inside one round (p-retry). */
  round?: Pick<RoundOptions, 'retries' | 'minDelayMs' | 'maxInlineRetryAfterMs'>;
  /** Deadline of one HTTP attempt (ms). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Resolver behind the connect-time SSRF guard (tests); a sender with one runs in this thread. */
  resolve?: Resolver;
  /**
   * Send in a worker thread (default true): signing and HTTP off the thread that serves the API.
   * false keeps the sender in this thread.
   */
  senderThread?: boolean;
  /** Handed-over rows kept waiting for a free slot at most (default 10,000); past this the poll finds them. */
  queueLimit?: number;
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
    offer: (rows) => d.offer(rows),
    leaseNew: (rows, now) => d.leaseNew(rows, now),
    deliverNow: (id) => d.deliverNow(id),
    stop: async () => {
      if (rt.dispatcher === d) rt.dispatcher = undefined;
      await d.stop();
    },
  };
}

type Leased = OutboxDoc & { lease_owner: string };

/** Why a row's round stops short of delivering: its application is gone, or its callback was cancelled. */
type Ended = { kind: 'app' } | { kind: 'cancelled'; reason: string };

/** Ids of the dispatchers running in this process (see releaseOrphans). */
const LIVE = new Set<string>();

/**
 * A lease this far from running out cannot have been taken over (even with some clock skew between
 * nodes), so a row's outcome and its history entry are written together; closer, history waits to
 * see whether the row was still ours.
 */
const LEASE_MARGIN_MS = 10_000;

class OutboxDispatcher implements DispatcherHandle {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly queueLimit: number;
  private readonly policy: BackoffPolicy;
  private readonly random: () => number;
  private readonly sender: Sender;
  private readonly abort = new AbortController();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Rows being leased or sent here: a poll that sees one of them leaves it. */
  private readonly claimed = new Set<string>();
  /** Rows offered and not started yet, per origin, oldest first. */
  private readonly offered = new OfferedRows();
  private readonly endpoints: EndpointSlots;
  /** An origin may start another row: it has fewer than its share in their HTTP phase. */
  private readonly ready = (origin: string) => !this.endpoints.full(origin);
  /** Rows leaseNew() leased before they were written: started without a lease write of their own. */
  private readonly preleased = new WeakSet<OutboxDoc>();
  private stopped = false;
  private kicked = false;
  /** Poll at the next chance: woken, or just started. */
  private woken = true;
  /** Origins whose due rows the last poll left (at their share): poll again when one of them frees. */
  private blockedOrigins = new Set<string>();
  /** Rows the last poll left for that reason: the next poll's page is that much longer. */
  private skipped = 0;
  /** The last poll filled every free slot: more rows may be due once the offered ones are out. */
  private morePending = false;
  /** performance.now() at which the next poll is due. */
  private nextPollAt = 0;
  private sleeper?: () => void;
  private loop?: Promise<void>;

  constructor(private readonly ctx: ServiceContext, private readonly opts: DispatcherOptions) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.leaseMs = opts.leaseMs ?? 120_000;
    this.concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CALLBACK_CONCURRENCY);
    this.endpoints = new EndpointSlots(Math.max(1, opts.endpointConcurrency ?? defaultEndpointConcurrency(this.concurrency)));
    this.queueLimit = opts.queueLimit ?? 10_000;
    this.policy = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.random = opts.random ?? Math.random;
    // Attempts of the in-process sender, and rounds in their quick retries (p-retry), each listen
    // for the stop while they last: as many as there are rows in flight, more than EventTarget's
    // default warning threshold of 10. (The sender thread's proxy keeps one listener in all.)
    setMaxListeners(0, this.abort.signal);
    const senderOpts = {
      allowPrivate: ctx.config.callbackAllowPrivate,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      now: ctx.now,
    };
    this.sender = opts.senderThread === false || opts.resolve
      ? new CallbackSender({ ...senderOpts, resolve: opts.resolve })
      : new ThreadedSender(senderOpts);
  }

  private get log(): DeliveryLog {
    return runtimeOf(this.ctx).log;
  }

  start() {
    this.loop = this.run();
  }

  wake() {
    this.woken = true;
    this.kick();
  }

  /**
   * Leases new rows before they are written, as many as the queue of offered rows takes: the same
   * fields lease() sets, with a fresh owner each. (Leasing only those that could start at once
   * cost a lease write per row whenever sends were behind: ~40% more outbox writes under load.)
   */
  leaseNew(rows: OutboxDoc[], now: number) {
    if (this.stopped) return;
    const n = Math.min(rows.length, this.queueLimit - this.offered.size);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      const until = now + this.leaseMs;
      Object.assign(row, { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: this.newOwner(), rounds: row.rounds + 1, updated_at: now });
      this.preleased.add(row);
    }
  }

  offer(rows: OutboxDoc[]) {
    if (this.stopped) {
      void this.release(rows.filter((r) => this.preleased.has(r)));
      return;
    }
    const room = this.queueLimit - this.offered.size;
    if (rows.length > room) {
      this.morePending = true;
      // Leased for this queue when written, but the queue filled up since: due again now.
      void this.release(rows.slice(room).filter((r) => this.preleased.has(r)));
    }
    for (let i = 0; i < rows.length && i < room; i++) this.offered.push(rows[i]!);
    this.kick();
  }

  async stop() {
    if (this.stopped) return;
    this.stopped = true;
    const held = this.offered.drain().filter((r) => this.preleased.has(r));
    this.abort.abort(new Error('dispatcher stopped'));
    this.kick();
    await this.loop;
    await Promise.allSettled([...this.inflight, this.release(held)]);
    await this.sender.close();
  }

  /** Rows leased by leaseNew() and never started: due again now, as if never leased. */
  private async release(rows: OutboxDoc[]): Promise<void> {
    const now = this.ctx.now();
    await Promise.all(rows.map((r) => outbox(this.ctx).updateOne(
      { _id: r._id, lease_owner: r.lease_owner },
      { $set: { status: 'pending', next_attempt_at: now, lease_until: 0, rounds: r.rounds - 1, updated_at: now } },
    ))).catch((err) => this.log.error({ err }, 'releasing handed-over callbacks failed'));
  }

  private kick() {
    if (this.sleeper) this.sleeper();
    else this.kicked = true;
  }

  private get room(): number {
    return this.concurrency - this.inflight.size;
  }

  /** Lease owners start with the dispatcher's id: a row whose owner's dispatcher is gone is orphaned. */
  private readonly id = randomUUID();

  private newOwner(): string {
    return `${this.id}:${randomUUID()}`;
  }

  /**
   * On the embedded store every dispatcher that can hold a lease lives in this process, so a row
   * leased by none of them was left by a process that died: due now, not when its lease runs out.
   */
  private async releaseOrphans(): Promise<void> {
    if (this.ctx.store.engine.kind !== 'embedded') return;
    const now = this.ctx.now();
    const leased = await outbox(this.ctx).find({ status: 'delivering', next_attempt_at: { $gt: now } }, { projection: { _id: 1, lease_owner: 1 } }).toArray();
    const orphans = leased.filter((r) => !LIVE.has(String(r.lease_owner).split(':')[0]!));
    await Promise.all(orphans.map((r) => outbox(this.ctx).updateOne({ _id: r._id, lease_owner: r.lease_owner }, { $set: { next_attempt_at: now } })));
    if (orphans.length > 0) this.log.info({ count: orphans.length }, 'callbacks left leased by a stopped process are due again');
  }

  private async run() {
    LIVE.add(this.id);
    try {
      await this.releaseOrphans();
    } catch (err) {
      this.log.error({ err }, 'releasing orphaned callbacks failed');
    }
    try {
      await this.serve();
    } finally {
      LIVE.delete(this.id);
    }
  }

  private async serve() {
    while (!this.stopped) {
      try {
        await this.fill();
      } catch (err) {
        this.log.error({ err }, 'outbox poll failed');
      }
      if (this.stopped) break;
      await this.idle();
    }
  }

  /** Starts rows while there is room: due rows from the store when a poll is due, then offered ones. */
  private async fill(): Promise<void> {
    // The poll goes first when due, so a steady stream of offered rows cannot starve retries; a
    // backlog of offered rows is not re-polled for (each poll sorts every due row).
    const due = this.woken || performance.now() >= this.nextPollAt || (this.morePending && this.offered.size === 0);
    if (this.room > 0 && due) await this.poll();
    while (this.room > 0 && !this.stopped) {
      const row = this.offered.next(this.ready);
      if (!row) break;
      if (!this.claimed.has(row._id)) void this.startRow(row, this.opts.round ?? {});
    }
  }

  private async poll(): Promise<void> {
    this.woken = false;
    this.morePending = false;
    this.nextPollAt = performance.now() + this.pollMs;
    const room = this.room;
    // Rows of an origin at its share stay due and come first in the next page too: that page is
    // longer by twice as many, so the rows of other origins behind them still get a turn.
    const limit = pageFor(room, this.skipped);
    this.blockedOrigins = new Set();
    this.skipped = 0;
    const due = await outbox(this.ctx)
      .find({ status: { $in: ['pending', 'delivering'] }, next_attempt_at: { $lte: this.ctx.now() } }, { sort: { next_attempt_at: 1 }, limit })
      .toArray();
    let started = 0;
    for (const row of due) {
      if (this.stopped || this.room <= 0) break;
      if (this.claimed.has(row._id)) continue;
      const origin = originOf(row.url);
      if (this.endpoints.full(origin)) {
        this.blockedOrigins.add(origin);
        this.skipped++;
        continue;
      }
      void this.startRow(row, this.opts.round ?? {});
      started++;
    }
    // A full page: there may be more due rows, so look again as soon as there is room. The same
    // when rows were left for their origin's share and the page may have cut off others, as long
    // as the next page is longer (at the cap, a page of left rows would be polled for in a loop).
    const cutOff = this.skipped > 0 && due.length >= limit && pageFor(this.room, this.skipped) > limit;
    if ((started > 0 && started >= room) || (cutOff && this.room > 0)) this.morePending = true;
  }

  /** Until there is something to do: a kick (offer, wake, a send finished) or the next poll. */
  private idle(): Promise<void> {
    const room = this.room > 0;
    if (room && (this.woken || (this.morePending && this.offered.size === 0) || this.offered.hasReady(this.ready))) return Promise.resolve();
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        this.kicked = false;
        resolve();
      };
      if (room) timer = setTimeout(done, Math.max(0, this.nextPollAt - performance.now()));
      this.sleeper = done;
    });
  }

  /**
   * Leases the row and sends it, taking a slot from now until its outcome is written, and one of
   * its origin's share until the HTTP phase ends.
   */
  private startRow(row: OutboxDoc, round: RoundOptions): Promise<DeliveryReport | undefined> {
    this.claimed.add(row._id);
    const origin = originOf(row.url);
    this.endpoints.take(origin);
    let sending = true;
    const sent = () => {
      if (!sending) return;
      sending = false;
      this.endpoints.release(origin);
      if (this.blockedOrigins.has(origin)) this.woken = true;
      this.kick();
    };
    const now = this.ctx.now();
    // A row written leased (leaseNew) is ours while its lease is far from running out; else (or
    // any other row) the compare-and-set decides, from the fields as read or as written.
    const ours = this.preleased.has(row) && now + LEASE_MARGIN_MS < row.lease_until;
    const p = (ours ? Promise.resolve({ ...row } as Leased) : this.lease(row, now))
      .then((leased) => (leased ? this.process(leased, round, sent) : undefined))
      .finally(() => {
        sent();
        this.claimed.delete(row._id);
      });
    const tracked = p
      .catch((err) => this.log.error({ err }, 'callback dispatch failed'))
      .finally(() => {
        this.inflight.delete(tracked);
        this.kick();
      });
    this.inflight.add(tracked);
    return p;
  }

  /**
   * Compare-and-set on the fields read: of several dispatchers that saw the row due, one wins.
   * While leased, next_attempt_at is the lease's end, so the row is due again only if its holder
   * dies without finishing.
   */
  private async lease(row: OutboxDoc, now: number): Promise<Leased | null> {
    const owner = this.newOwner();
    const until = now + this.leaseMs;
    const res = await outbox(this.ctx).updateOne(
      { _id: row._id, status: row.status, next_attempt_at: row.next_attempt_at, lease_until: row.lease_until },
      { $set: { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: owner, updated_at: now }, $inc: { rounds: 1 } },
    );
    if (res.matchedCount === 0) return null;
    // Object.assign, not a spread followed by new fields (see outboxDoc on spreads in V8 11).
    return Object.assign({}, row, { status: 'delivering' as const, lease_until: until, next_attempt_at: until, lease_owner: owner, rounds: row.rounds + 1 });
  }

  async deliverNow(eventId: string): Promise<DeliveryReport | null> {
    if (this.stopped || this.claimed.has(eventId)) return null;
    const now = this.ctx.now();
    const row = await outbox(this.ctx).findOne({ _id: eventId });
    // A pending row may be due later (held back for this call); a leased one only once its lease ran out.
    if (!row || (row.status !== 'pending' && row.status !== 'delivering') || (row.status === 'delivering' && row.next_attempt_at > now)) return null;
    if (this.claimed.has(eventId)) return null;
    return (await this.startRow(row, { retries: 0 })) ?? null;
  }

  /** Sends one leased row; says how it ended (undefined when stopped mid-send or not leased). */
  private async process(row: Leased, round: RoundOptions, sent: () => void): Promise<DeliveryReport | undefined> {
    const current = await this.standing(row);
    if (current.kind === 'app') return this.finish(row, { kind: 'dead', error: 'the application no longer exists', durationMs: 0 });
    // Cancelled since the row was written: nothing more is sent, nor kept (queued-callbacks.ts).
    if (current.kind === 'cancelled') return this.finish(row, { kind: 'dead', error: current.reason, durationMs: 0 }, undefined, true);
    if (row.payload === undefined) return this.finish(row, { kind: 'dead', error: 'the row holds no payload', durationMs: 0 });
    let attemptNo = row.attempts;
    // An attempt that ends the round is written with the row's outcome, not on its own.
    let last: Attempt | undefined;
    let outcome: AttemptOutcome;
    // Set when the application was deleted or the callback cancelled during the round: no quick retry follows.
    let ended: Ended | undefined;
    // The stored bytes, the same on every attempt (an older row holds the object: serialised here).
    const req: CallbackRequest = {
      eventId: row._id, url: current.url, body: typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload), secret: signingSecrets(current.app, this.ctx.now()),
    };
    try {
      outcome = await sendWithRetries(
        this.sender,
        req,
        // Field by field, not `{ ...round, signal, … }` (see outboxDoc on spreads in V8 11).
        {
          retries: round.retries,
          minDelayMs: round.minDelayMs,
          maxInlineRetryAfterMs: round.maxInlineRetryAfterMs,
          signal: this.abort.signal,
          onAttempt: async (o) => {
            attemptNo++;
            if (o.status !== undefined) row.last_status = o.status;
            const attempt = { n: attemptNo, outcome: o, at: this.ctx.now() };
            if (o.kind !== 'retry') last = attempt;
            else if ((ended = await this.recheck(row, req))?.kind !== 'app') await this.recordAttempt(row, attempt);
          },
          // Asked again before each quick retry: a delete or a new URL may come while the round waits.
          proceed: async () => (ended ??= await this.recheck(row, req)) === undefined,
        },
      );
    } catch (err) {
      sent();
      if (!this.abort.signal.aborted) throw err;
      // Shutting down mid-send: hand the row back now rather than after the lease. The request
      // may have reached the receiver; the resend carries the same webhook-id.
      if (last) await this.insertAttempt(row, last);
      await outbox(this.ctx).updateOne(
        { _id: row._id, lease_owner: row.lease_owner },
        { $set: { status: 'pending', next_attempt_at: this.ctx.now(), lease_until: 0, attempts: attemptNo, updated_at: this.ctx.now() } },
      );
      return;
    }
    // The receiver is done with it: its origin's share is free while the outcome is written.
    sent();
    row.attempts = attemptNo;
    // A deleted application took its rows and attempts with it: nothing is written back.
    if (ended?.kind === 'app') return undefined;
    if (ended?.kind === 'cancelled') return this.finish(row, { kind: 'dead', error: ended.reason, durationMs: 0 }, undefined, true);
    return this.finish(row, outcome, last);
  }

  /**
   * Where the row's callback stands now: its application deleted; cancelled (its user or trigger
   * deleted, or the trigger no longer a callback trigger); or to be sent, to the trigger's URL of
   * the moment (trigger/update may have changed it since the row was written). Asked when a round
   * starts and before each quick retry, from the runtime's cached documents, which a change drops.
   */
  private async standing(row: Leased): Promise<Ended | { kind: 'send'; app: ApplicationDoc; url: string }> {
    const docs = runtimeOf(this.ctx).docs;
    const app = await docs.app(row.app_id);
    if (!app) return { kind: 'app' };
    // trigger/run's stand-in user never exists, and is never gone.
    if (row.user_id !== PLACEHOLDER_USER_ID && !(await docs.user(row.app_id, row.user_id))) return { kind: 'cancelled', reason: CANCELLED.userDeleted };
    const trigger = await docs.trigger(row.app_id, row.trigger_id);
    if (!trigger) return { kind: 'cancelled', reason: CANCELLED.triggerDeleted };
    if (trigger.type !== 'callback') return { kind: 'cancelled', reason: CANCELLED.notCallback };
    return { kind: 'send', app, url: trigger.url };
  }

  /** Between two attempts of a round: why it ends, or undefined with `req` pointed at the trigger's current URL. */
  private async recheck(row: Leased, req: CallbackRequest): Promise<Ended | undefined> {
    const current = await this.standing(row);
    if (current.kind !== 'send') return current;
    req.url = current.url;
    return undefined;
  }

  private insertAttempt(row: Leased, a: Attempt): Promise<unknown> {
    const o = a.outcome;
    return attempts(this.ctx).insertOne({
      _id: newId(),
      event_id: row._id,
      app_id: row.app_id,
      attempt: a.n,
      at: a.at,
      duration_ms: o.durationMs,
      ...(o.status !== undefined ? { status_code: o.status } : {}),
      ...(o.kind !== 'delivered' ? { error: o.error } : {}),
      outcome: o.kind,
    });
  }

  /**
   * An attempt another may follow: logged, then counted on the row (what a new owner starts from)
   * and in trigger/history, which would otherwise show no attempt until the round ends (three
   * attempts against a receiver that hangs take over 30 s).
   */
  private async recordAttempt(row: Leased, a: Attempt): Promise<void> {
    await this.insertAttempt(row, a);
    const error = a.outcome.kind !== 'delivered' ? a.outcome.error : undefined;
    const res = await outbox(this.ctx).updateOne(
      { _id: row._id, lease_owner: row.lease_owner },
      {
        $set: {
          attempts: a.n,
          updated_at: a.at,
          ...(a.outcome.status !== undefined ? { last_status: a.outcome.status } : {}),
          ...(error !== undefined ? { last_error: error } : {}),
        },
      },
    );
    // Only while the row is still ours: a new owner's writes are the newer ones.
    if (res.matchedCount === 0) return;
    await history(this.ctx).updateOne(
      { _id: row._id },
      { $set: { 'delivery.attempts': a.n, 'delivery.updated_at': a.at, ...(error !== undefined ? { 'delivery.last_error': error } : {}) } },
    );
  }

  /**
   * Writes how the round ended: its last attempt (if not yet logged), then the row and its history
   * entry. `dropPayload`: a dead row keeps no payload either (it was cancelled).
   */
  private async finish(row: Leased, o: AttemptOutcome, last?: Attempt, dropPayload = false): Promise<DeliveryReport> {
    const now = this.ctx.now();
    let status: DeliveryStatus;
    let set: Partial<OutboxDoc>;
    let lastError: string | undefined;
    if (o.kind === 'delivered') {
      status = 'delivered';
      set = { status, delivered_at: last?.at ?? now, lease_until: 0, last_duration_ms: o.durationMs };
    } else {
      const next = o.kind === 'retry' ? nextAttemptAt(now, row.rounds, this.policy, o.retryAfterMs, this.random) : null;
      lastError = o.kind === 'retry' && next === null ? `gave up after ${row.rounds} rounds; last: ${o.error}` : o.error;
      status = next === null ? 'dead' : 'pending';
      set = { status, lease_until: 0, last_error: lastError, ...(next !== null ? { next_attempt_at: next } : {}) };
    }
    // The log first: a crash between the two leaves the row leased (re-sent later), never marked
    // dead without its attempt. A delivering attempt is written with the row itself.
    if (last && o.kind !== 'delivered') await this.insertAttempt(row, last);
    // Added to `set` itself, not spread into a new object (see outboxDoc on spreads in V8 11).
    set.attempts = row.attempts;
    if (row.last_status !== undefined) set.last_status = row.last_status;
    set.updated_at = now;
    // A delivered row's payload is not sent again; a dead one keeps it for inspection, unless dropPayload.
    let unset: Partial<Record<keyof OutboxDoc, ''>> | undefined;
    if (o.kind === 'delivered') unset = { last_error: '', payload: '' };
    else if (dropPayload) unset = { payload: '' };
    const updateRow = () => outbox(this.ctx).updateOne({ _id: row._id, lease_owner: row.lease_owner }, unset ? { $set: set, $unset: unset } : { $set: set });
    const updateHistory = () => history(this.ctx).updateOne(
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
    // History mirrors the row: together while the lease surely is still ours, else only if it was.
    const together = now + LEASE_MARGIN_MS < row.lease_until;
    const [res] = together ? await Promise.all([updateRow(), updateHistory()]) : [await updateRow()];
    if (res.matchedCount === 0) {
      // The lease ran out and another dispatcher owns the row now; its outcome will be recorded.
      this.log.warn({ event_id: row._id }, 'callback lease lost before its outcome was saved');
      return { status: 'delivering', attempts: row.attempts, last_status: row.last_status, last_error: lastError };
    }
    if (!together) await updateHistory();
    if (status === 'dead') this.log.warn({ event_id: row._id, app_id: row.app_id, error: lastError }, 'callback dead');
    return { status, attempts: row.attempts, last_status: row.last_status, last_error: lastError };
  }
}

/** A poll's page: the free slots, and twice the rows the last poll left for their origin's share. */
const pageFor = (room: number, skipped: number) => room + Math.min(2 * skipped, 10_000);

interface Attempt {
  n: number;
  outcome: AttemptOutcome;
  at: number;
}
