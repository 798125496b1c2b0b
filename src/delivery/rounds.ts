// The rounds the delivery loop has in flight: a fixed number of slots, each held from a round's
// start until its outcome is written, and one of its origin's (origin-limits.ts) until its HTTP
// phase ends. A callback queued long enough for its lease to near its end is leased again first.
import { setMaxListeners } from 'node:events';
import type { LeasedCallback } from '../store/firings.js';
import type { BatchSettings } from './batch-settings.js';
import { runBatch } from './batch-round.js';
import type { RoundOptions } from './callback-sender.js';
import { runRound, type RoundDeps } from './callback-round.js';
import type { OriginLimits } from './origin-limits.js';
import type { RecoveringReceivers } from './recovering-receivers.js';
import type { DeliveryReport } from './types.js';

/** A lease this far from running out is still surely its holder's (even with some clock skew between nodes). */
export const LEASE_MARGIN_MS = 10_000;

export interface RoundsOptions {
  /** Rounds at once. */
  concurrency: number;
  leaseMs: number;
  /** A new lease owner. */
  owner: () => string;
  round: Pick<RoundOptions, 'retries' | 'minDelayMs' | 'maxInlineRetryAfterMs'>;
  /** A slot or an origin's slot came free. */
  ended: () => void;
}

/** The HTTP phase of a round may start at once: the slot was taken before it started. */
const READY = Promise.resolve();

export class Rounds {
  private readonly abort = new AbortController();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly d: RoundDeps;

  constructor(
    deps: Omit<RoundDeps, 'signal'>,
    private readonly origins: OriginLimits,
    private readonly recovering: RecoveringReceivers,
    private readonly o: RoundsOptions,
  ) {
    // Rounds in flight each listen for the stop while they last: more than EventTarget's default
    // warning threshold of 10.
    setMaxListeners(0, this.abort.signal);
    this.d = { ...deps, signal: this.abort.signal };
  }

  get room(): number {
    return this.o.concurrency - this.inflight.size;
  }

  /**
   * Runs one round of the callbacks (one POST for a batch, `batched`), holding a slot until their
   * outcome is written and, unless `shared` is false, one of their origin's until the HTTP phase ends.
   */
  start(list: LeasedCallback[], batched: boolean, round = this.o.round, shared = true): Promise<DeliveryReport | undefined> {
    const first = list[0]!;
    const origin = this.origins.origin(first.url);
    let held = shared;
    if (shared) this.origins.enter(origin);
    const sent = () => {
      if (!held) return;
      held = false;
      this.origins.leave(origin);
      this.o.ended();
    };
    const now = this.d.now();
    const leased = list.length === 1
      ? this.renew(first, now).then((c) => (c ? [c] : []))
      : Promise.all(list.map((c) => this.renew(c, now))).then((cs) => cs.filter((c): c is LeasedCallback => c !== null));
    const p = leased
      .then((cs) => {
        if (cs.length === 0) return undefined;
        return batched ? runBatch(this.d, cs, round, READY, sent) : runRound(this.d, cs[0]!, round, READY, sent);
      })
      .then((report) => {
        if (report) this.recovering.roundEnded(origin, first.url, report.status);
        return report;
      })
      .finally(sent);
    const tracked = p
      .catch((err) => this.d.log.error({ err }, 'callback dispatch failed'))
      .finally(() => {
        this.inflight.delete(tracked);
        this.o.ended();
      });
    this.inflight.add(tracked);
    return p;
  }

  /**
   * trigger/run: leases one callback whether due or not and sends it once, whatever its origin's
   * share; as a batch of one to an application that takes batches, so its receiver always gets the
   * same shape. Null when it could not be leased (another loop has it, or this one is stopping).
   */
  async runNow(eventId: string, batches: BatchSettings): Promise<DeliveryReport | null> {
    if (this.abort.signal.aborted) return null;
    const now = this.d.now();
    const c = await this.d.firings.leaseOne(eventId, this.o.owner(), now + this.o.leaseMs, now);
    if (!c) return null;
    const batched = (await batches.read(c.app_id)) > 1;
    return (await this.start([c], batched, { retries: 0 }, false)) ?? null;
  }

  /** Aborts the rounds in flight: each hands its callbacks back. */
  stop(): void {
    this.abort.abort(new Error('delivery stopped'));
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  /** The callback's lease, renewed first when it is near its end (it waited in the queue). */
  private renew(c: LeasedCallback, now: number): Promise<LeasedCallback | null> {
    if (now + Math.min(LEASE_MARGIN_MS, this.o.leaseMs / 2) < c.lease_until) return Promise.resolve(c);
    return this.d.firings.leaseOne(c.event_id, this.o.owner(), now + this.o.leaseMs, now, c);
  }
}
