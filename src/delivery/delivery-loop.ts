// The delivery loop: drains the outbox. Rows recordFirings has just written are handed over in
// memory (offer) and sent at once; a poll finds the rest (retries that fell due, rows of a process
// that died, rows written elsewhere) every pollMs, or at once when woken. Each row is leased
// (outbox-repo.ts), sent for one round (callback-round.ts), and left delivered, dead, or pending
// with a persisted next_attempt_at from the long schedule (retry-schedule.ts). Origins share the
// slots fairly (origin-limits.ts). An application that takes batches (callback_batch_max) gets the
// rows waiting here for one URL several at a time, in one POST (batch-round.ts); a batch holds one
// slot and one of its origin's.
//
// Guarantees: at-least-once. A process that dies mid-send leaves the row leased; when the lease
// runs out the row is due again and is re-sent with the same event id (webhook-id), so the
// receiver can drop the duplicate. Leases are conditional writes on the row, so several loops
// (several nodes, MongoDB) can share one outbox without sending a row twice at once; an offered
// row is leased the same way. Rows handed over to this loop are written already leased to it
// (leaseNew, before the insert): no other loop sees them due. A stop releases those not started
// yet. A crash leaves them (and rows mid-send) due when their lease runs out; on the embedded
// store, which one process owns, at once at the next start instead.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DEFAULT_CALLBACK_CONCURRENCY, defaultEndpointConcurrency } from '../config.js';
import type { OutboxDoc } from '../store/documents.js';
import type { RoundOptions } from './callback-sender.js';
import { runBatch } from './batch-round.js';
import { BatchSettings } from './batch-settings.js';
import { runRound, type RoundDeps } from './callback-round.js';
import { OfferedRows, OriginLimits } from './origin-limits.js';
import { PollPages } from './poll-pages.js';
import { LEASE_MARGIN_MS, type DueHead, type Leased } from './outbox-repo.js';
import { RecoveringReceivers } from './recovering-receivers.js';
import { DEFAULT_BACKOFF } from './retry-schedule.js';
import type { DeliveryReport, DispatcherHandle, LoopDeps, LoopOptions } from './types.js';

export type { LoopDeps, LoopOptions } from './types.js';

/**
 * Lease owners start with this process's id, then the loop's: on the embedded store a row leased
 * under another process id was left by a process that is gone. A constant identity, not state.
 */
const PROCESS_ID = randomUUID();

export class DeliveryLoop implements DispatcherHandle {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly queueLimit: number;
  private readonly abort = new AbortController();
  private readonly round: RoundDeps;
  private readonly inflight = new Set<Promise<unknown>>();
  /** Rows being leased or sent here: a poll that sees one of them leaves it. */
  private readonly claimed = new Set<string>();
  private readonly origins: OriginLimits;
  /** Rows offered and not started yet, per origin, oldest first. */
  private readonly offered: OfferedRows;
  /** An origin may start another row: it has fewer than its share in their HTTP phase. */
  private readonly ready = (origin: string) => !this.origins.full(origin);
  /** Rows leaseNew() leased before they were written: started without a lease write of their own. */
  private readonly preleased = new WeakSet<OutboxDoc>();
  private readonly id = `${PROCESS_ID}:${randomUUID()}`;
  private stopped = false;
  private kicked = false;
  /** Poll at the next chance: woken, or just started. */
  private woken = true;
  /** Rows a poll reads at most: doubled after a poll that found only rows of origins whose queue is full. */
  private readonly pages: PollPages;
  /** Rows of one origin queued here at most: the poll leaves the rest due, so other origins' rows get in. */
  private readonly originQueue: number;
  /** The last poll's page was full: more rows may be due once the queue runs low. */
  private morePending = false;
  /** performance.now() before which a full page is not polled for again: the last one queued nothing. */
  private quietUntil = 0;
  /** performance.now() before which a queue of rows that cannot start yet does not poll further. */
  private readonly recovering: RecoveringReceivers;
  private readonly batchSettings: BatchSettings;
  /** performance.now() at which the next poll is due. */
  private nextPollAt = 0;
  private sleeper?: () => void;
  private loop?: Promise<void>;

  constructor(private readonly deps: LoopDeps, private readonly opts: LoopOptions = {}) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.leaseMs = opts.leaseMs ?? 120_000;
    this.concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CALLBACK_CONCURRENCY);
    this.origins = new OriginLimits(Math.max(1, opts.endpointConcurrency ?? defaultEndpointConcurrency(this.concurrency)));
    this.offered = new OfferedRows((url) => this.origins.origin(url));
    this.queueLimit = opts.queueLimit ?? 10_000;
    this.originQueue = 4 * this.origins.perOrigin;
    this.pages = new PollPages(this.originQueue + this.concurrency);
    // Rounds in flight each listen for the stop while they last: more than EventTarget's default
    // warning threshold of 10.
    setMaxListeners(0, this.abort.signal);
    this.recovering = new RecoveringReceivers(deps.repo, deps.now, deps.log, () => this.wake());
    this.batchSettings = new BatchSettings(deps.docs);
    this.round = {
      repo: deps.repo, sender: deps.sender, docs: deps.docs, now: deps.now, log: deps.log, signal: this.abort.signal,
      policy: { ...DEFAULT_BACKOFF, ...opts.backoff }, random: opts.random ?? Math.random,
    };
  }

  start(): void {
    this.loop ??= this.run();
  }

  wake(): void {
    this.woken = true;
    this.kick();
  }

  /**
   * Leases new rows before they are written, as many as the queue of offered rows takes: the same
   * fields a lease sets, with a fresh owner each.
   */
  leaseNew(rows: OutboxDoc[], now: number): void {
    if (this.stopped) return;
    const n = Math.min(rows.length, this.queueLimit - this.offered.size);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      const until = now + this.leaseMs;
      Object.assign(row, { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: this.newOwner(), rounds: row.rounds + 1, updated_at: now });
      this.preleased.add(row);
    }
  }

  offer(rows: OutboxDoc[]): void {
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

  async deliverNow(eventId: string): Promise<DeliveryReport | null> {
    if (this.stopped || this.claimed.has(eventId)) return null;
    const now = this.deps.now();
    const row = await this.deps.repo.findOne(eventId);
    // A pending row may be due later (held back for this call); a leased one only once its lease ran out.
    if (!row || (row.status !== 'pending' && row.status !== 'delivering') || (row.status === 'delivering' && row.next_attempt_at > now)) return null;
    if (this.claimed.has(eventId)) return null;
    // trigger/run sends at once, whatever its origin's share; as a batch of one to an application
    // that takes batches, so its receiver always gets the same shape.
    const batched = (await this.batchSettings.read(row.app_id)) > 1;
    if (this.stopped || this.claimed.has(eventId)) return null;
    return (await this.startRows([row], { retries: 0 }, false, batched)) ?? null;
  }

  /** Stops polling, aborts sends in flight (their rows are handed back) and waits for them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const held = this.offered.drain().filter((r) => this.preleased.has(r));
    this.abort.abort(new Error('delivery stopped'));
    this.kick();
    await this.loop;
    await Promise.allSettled([...this.inflight, this.release(held)]);
  }

  /** Rows leased by leaseNew() and never started: due again now, as if never leased. */
  private release(rows: OutboxDoc[]): Promise<void> {
    return this.deps.repo.release(rows, this.deps.now()).catch((err) => this.deps.log.error({ err }, 'releasing handed-over callbacks failed'));
  }

  private kick(): void {
    if (this.sleeper) this.sleeper();
    else this.kicked = true;
  }

  private get room(): number {
    return this.concurrency - this.inflight.size;
  }

  private newOwner(): string {
    return `${this.id}:${randomUUID()}`;
  }

  /**
   * On the embedded store every loop that can hold a lease lives in this process, so a row leased
   * under another process's id was left by a process that died: due now, not when its lease runs out.
   */
  private async releaseOrphans(): Promise<void> {
    if (!this.deps.ownsStore) return;
    const now = this.deps.now();
    const orphans = (await this.deps.repo.leasedRows(now)).filter((r) => !String(r.lease_owner).startsWith(`${PROCESS_ID}:`));
    await this.deps.repo.dueNow(orphans, now);
    if (orphans.length > 0) this.deps.log.info({ count: orphans.length }, 'callbacks left leased by a stopped process are due again');
  }

  private async run(): Promise<void> {
    try {
      await this.releaseOrphans();
    } catch (err) {
      this.deps.log.error({ err }, 'releasing orphaned callbacks failed');
    }
    while (!this.stopped) {
      try {
        await this.fill();
      } catch (err) {
        this.deps.log.error({ err }, 'outbox poll failed');
      }
      if (this.stopped) break;
      await this.idle();
    }
  }

  /** Starts rows while there is room: due rows from the store when a poll is due, then offered ones. */
  private async fill(): Promise<void> {
    // The poll goes first when due, so a steady stream of offered rows cannot starve retries; a
    // backlog of offered rows is not re-polled for.
    const search = this.woken || this.blocked();
    if (this.room > 0 && (search || performance.now() >= this.nextPollAt || this.runningLow())) await this.poll(search);
    const round = this.opts.round ?? {};
    while (this.room > 0 && !this.stopped) {
      const row = this.offered.next(this.ready);
      if (!row) break;
      if (this.claimed.has(row._id)) continue;
      const max = this.batchSettings.known(row.app_id) ?? (await this.batchSettings.read(row.app_id));
      if (this.stopped) {
        if (this.preleased.has(row)) await this.release([row]);
        break;
      }
      if (max <= 1) {
        void this.startRows([row], round);
        continue;
      }
      // A batch: this row and more of the same application to the same URL, waiting here.
      const more = this.offered.takeAlong(row, max - 1, (r) => r.app_id === row.app_id && r.url === row.url && !this.claimed.has(r._id));
      void this.startRows([row, ...more], round, true, true);
    }
  }

  /** More rows may be due and the queue is low: refill it (the base page). */
  private runningLow(): boolean {
    return this.morePending && performance.now() >= this.quietUntil && this.offered.size <= this.concurrency;
  }

  /**
   * More rows may be due and the queue holds only rows of receivers whose slots are all taken: look
   * further for other receivers' rows, as often as poll-pages.ts allows. (Polling for every slot
   * that freed read a long backlog's heads once per callback sent.)
   */
  private blocked(): boolean {
    const now = performance.now();
    return this.morePending && now >= this.quietUntil && now >= this.pages.searchFrom && !this.offered.hasReady(this.ready);
  }

  /**
   * Reads a page of due rows, leases those it queues in one write and queues them with the offered
   * ones (per origin, in turn). An origin with `originQueue` rows queued gets no more: its rows stay
   * due. How far it reads is poll-pages.ts's: further when it looks for other receivers' rows
   * (`search`: the queue holds only rows of busy receivers, or the loop was woken). The queue is
   * refilled when it runs low, not for every slot that frees: each row is read about once per round.
   */
  private async poll(search: boolean): Promise<void> {
    this.woken = false;
    this.morePending = false;
    this.nextPollAt = performance.now() + this.pollMs;
    const room = this.queueLimit - this.offered.size;
    if (room <= 0) return;
    const limit = this.pages.limit(search);
    const due = await this.deps.repo.dueHeads(this.deps.now(), limit);
    const take: DueHead[] = [];
    const queued = new Map<string, number>();
    let skipped = 0;
    // Rows taken for origins that had none queued here: what a look further is for.
    let fresh = 0;
    for (const row of due) {
      if (take.length >= room) break;
      if (this.claimed.has(row._id) || this.offered.has(row._id)) continue;
      const origin = this.origins.origin(row.url);
      const n = queued.get(origin) ?? this.offered.count(origin);
      if (n >= this.originQueue) {
        skipped++;
        continue;
      }
      if (!queued.has(origin) && n === 0) fresh++;
      queued.set(origin, n + 1);
      take.push(row);
    }
    this.pages.polled(search, limit, due.length, skipped, fresh, performance.now());
    // Rows left due for a full origin queue are pending too: without this a backlog of one receiver
    // waited a whole poll interval for each queue's worth.
    this.morePending = due.length >= limit || skipped > 0;
    if (take.length === 0) {
      this.quietUntil = performance.now() + QUIET_MS;
      return;
    }
    const rows = await this.deps.repo.rows(take.map((r) => r._id));
    const now = this.deps.now();
    const leased = await this.deps.repo.leaseMany(rows, this.newOwner(), now + this.leaseMs, now);
    if (this.stopped) {
      await this.release(leased);
      return;
    }
    for (const row of leased) {
      this.preleased.add(row);
      this.offered.push(row);
    }
  }

  /** Until there is something to do: a kick (offer, wake, a round finished) or the next poll. */
  private idle(): Promise<void> {
    const room = this.room > 0;
    if (room && (this.woken || this.runningLow() || this.blocked() || this.offered.hasReady(this.ready))) return Promise.resolve();
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
      const at = this.morePending ? Math.min(this.nextPollAt, Math.max(this.quietUntil, this.offered.size <= this.concurrency ? 0 : this.pages.searchFrom)) : this.nextPollAt;
      if (room) timer = setTimeout(done, Math.max(0, at - performance.now()));
      this.sleeper = done;
    });
  }

  /**
   * Leases the rows and runs their round (one POST for a batch, `batched`), holding a slot from now
   * until their outcome is written, and one of their origin's (`shared`) until the HTTP phase ends.
   */
  private startRows(rows: OutboxDoc[], round: RoundOptions, shared = true, batched = false): Promise<DeliveryReport | undefined> {
    for (const r of rows) this.claimed.add(r._id);
    const first = rows[0]!;
    const origin = this.origins.origin(first.url);
    // The origin's slot, held until the HTTP phase ends; once it is free, its waiting rows may go.
    let held = shared;
    if (shared) this.origins.enter(origin);
    const sent = () => {
      if (!held) return;
      held = false;
      this.origins.leave(origin);
      this.kick();
    };
    const now = this.deps.now();
    const leased = rows.length === 1 ? this.lease(first, now).then((l) => (l ? [l] : [])) : Promise.all(rows.map((r) => this.lease(r, now))).then((ls) => ls.filter((l) => l !== null));
    const p = leased
      .then((ls) => {
        if (ls.length === 0) return undefined;
        return batched ? runBatch(this.round, ls, round, READY, sent) : runRound(this.round, ls[0]!, round, READY, sent);
      })
      .then((report) => {
        if (report) this.recovering.roundEnded(origin, first.url, report.status);
        return report;
      })
      .finally(() => {
        sent();
        for (const r of rows) this.claimed.delete(r._id);
      });
    const tracked = p
      .catch((err) => this.deps.log.error({ err }, 'callback dispatch failed'))
      .finally(() => {
        this.inflight.delete(tracked);
        this.kick();
      });
    this.inflight.add(tracked);
    return p;
  }

  /**
   * A row written leased (leaseNew) is ours while its lease is far from running out; else (or any
   * other row) the conditional lease decides, from the fields as read or as written.
   */
  private lease(row: OutboxDoc, now: number): Promise<Leased | null> {
    const ours = this.preleased.has(row) && now + Math.min(LEASE_MARGIN_MS, this.leaseMs / 2) < row.lease_until;
    return ours ? Promise.resolve({ ...row } as Leased) : this.deps.repo.lease(row, this.newOwner(), now + this.leaseMs, now);
  }
}

/** The HTTP phase of a round may start at once: the loop took its origin's slot before starting it. */
const READY = Promise.resolve();

/** After a full page that queued nothing, the next such poll waits this long (ms). */
const QUIET_MS = 100;
