// One dispatch round of one leased callback: where it stands now (its application, user or trigger
// may be gone, its URL changed), the send (an attempt plus quick p-retry retries,
// callback-sender.ts) with every attempt logged, and its outcome from the retry schedule
// (retry-schedule.ts): one update of the firing and one attempt entry.
import type { AttemptClass, Metrics } from '../metrics/metrics.js';
import type { ApplicationDoc } from '../store/documents.js';
import type { AttemptRecord, FiringRepo, LeasedCallback, RoundEnd } from '../store/firings.js';
import { sendWithRetries, type AttemptOutcome, type CallbackRequest, type RoundOptions, type Sender } from './callback-sender.js';
import type { DocCache } from './doc-cache.js';
import { logFailedAttempt } from './firing-log.js';
import { PLACEHOLDER_USER_ID } from './payload.js';
import { CANCELLED } from './queued-callbacks.js';
import { roundEnd, type BackoffPolicy } from './retry-schedule.js';
import { signingSecrets } from './signing.js';
import type { DeliveryLog, DeliveryReport } from './types.js';

export interface RoundDeps {
  firings: FiringRepo;
  sender: Sender;
  docs: DocCache;
  now: () => number;
  policy: BackoffPolicy;
  random: () => number;
  /** Aborted when the loop stops: the round hands its callback back. */
  signal: AbortSignal;
  log: DeliveryLog;
  /** Every attempt counted by its outcome, every delivery's latency from its firing. */
  metrics: Metrics;
}

/** The bounded class of an attempt's outcome: its status class, or what failed when no status came back. */
export function attemptClass(o: AttemptOutcome): AttemptClass {
  const s = o.status;
  if (s !== undefined) return s >= 200 && s < 300 ? '2xx' : s >= 300 && s < 400 ? '3xx' : s >= 400 && s < 500 ? '4xx' : s >= 500 && s < 600 ? '5xx' : 'other';
  return o.kind === 'delivered' ? 'other' : (o.errorClass ?? 'other');
}

/** Why a round stops short of delivering: its application is gone, or its callback was cancelled. */
type Ended = { kind: 'app' } | { kind: 'cancelled'; reason: string };

/** The delivery log's entry of attempt `n` of `c`, which came back at `at`. */
export function attemptRecord(c: LeasedCallback, n: number, o: AttemptOutcome, at: number): AttemptRecord {
  const a: AttemptRecord = { event_id: c.event_id, attempt: n, app_id: c.app_id, at, duration_ms: o.durationMs, outcome: o.kind };
  if (o.status !== undefined) a.status_code = o.status;
  if (o.kind !== 'delivered') {
    a.error = o.error;
    if (o.errorClass !== undefined) a.error_class = o.errorClass;
  }
  if (o.body !== undefined) a.body = o.body;
  if (c.redelivery_by !== undefined) a.requested_by = c.redelivery_by;
  return a;
}

/**
 * Sends one leased callback and writes how the round ended; undefined when stopped mid-send (it
 * is handed back) or when its application was deleted meanwhile (nothing is written back). `http`
 * resolves when it may start its HTTP phase (its origin's slot is taken); `sent` is called when
 * that phase is over.
 */
export async function runRound(d: RoundDeps, c: LeasedCallback, round: RoundOptions, http: Promise<void>, sent: () => void): Promise<DeliveryReport | undefined> {
  const current = await standing(d.docs, c);
  if (current.kind === 'app') return finish(d, c, { kind: 'dead', error: 'the application no longer exists', durationMs: 0 });
  // Cancelled since it was stored: nothing more is sent, nor kept (queued-callbacks.ts).
  if (current.kind === 'cancelled') return finish(d, c, { kind: 'dead', error: current.reason, durationMs: 0 }, undefined, true);
  if (c.payload === undefined) return finish(d, c, { kind: 'dead', error: 'the row holds no payload', durationMs: 0 });
  let attemptNo = c.attempts;
  // An attempt that ends the round is written with the outcome, not on its own.
  let last: AttemptRecord | undefined;
  let outcome: AttemptOutcome;
  // Set when the application was deleted or the callback cancelled during the round: no quick retry follows.
  let ended: Ended | undefined;
  // The stored bytes, the same on every attempt.
  const req: CallbackRequest = { eventId: c.event_id, url: current.url, body: c.payload, secret: signingSecrets(current.app, d.now()) };
  const recheck = async (): Promise<Ended | undefined> => {
    const now = await standing(d.docs, c);
    if (now.kind !== 'send') return now;
    req.url = now.url;
    return undefined;
  };
  try {
    await http;
    outcome = await sendWithRetries(
      d.sender,
      req,
      // Field by field, not `{ ...round, signal, … }` (see docs/architecture.md on spreads in V8 11).
      {
        retries: round.retries,
        minDelayMs: round.minDelayMs,
        maxInlineRetryAfterMs: round.maxInlineRetryAfterMs,
        signal: d.signal,
        onAttempt: async (o) => {
          d.metrics.attempted(attemptClass(o));
          attemptNo++;
          logFailedAttempt(d.log, c, attemptNo, o);
          if (o.status !== undefined) c.last_status = o.status;
          const a = attemptRecord(c, attemptNo, o, d.now());
          if (o.kind !== 'retry') last = a;
          else if ((ended = await recheck())?.kind !== 'app') {
            c.attempts = attemptNo;
            await d.firings.attempted(c, a);
          }
        },
        // Asked again before each quick retry: a delete or a new URL may come while the round waits.
        proceed: async () => (ended ??= await recheck()) === undefined,
      },
    );
  } catch (err) {
    sent();
    if (!d.signal.aborted) throw err;
    // Shutting down mid-send: hand the callback back now rather than after the lease. The request
    // may have reached the receiver; the resend carries the same webhook-id.
    c.attempts = attemptNo;
    await d.firings.handBack(c, d.now(), last);
    return undefined;
  }
  // The receiver is done with it: its origin's share is free while the outcome is written.
  sent();
  c.attempts = attemptNo;
  // A deleted application took its callbacks and attempts with it: nothing is written back.
  if (ended?.kind === 'app') return undefined;
  if (ended?.kind === 'cancelled') return finish(d, c, { kind: 'dead', error: ended.reason, durationMs: 0 }, last, true);
  return finish(d, c, outcome, last);
}

/**
 * Where the callback stands now: its application deleted; cancelled (its user or trigger deleted,
 * or the trigger no longer a callback trigger); or to be sent, to the trigger's URL of the moment
 * (trigger/update may have changed it since it was stored). Asked when a round starts and before
 * each quick retry, from the runtime's cached documents, which a change drops.
 */
export async function standing(docs: DocCache, c: LeasedCallback): Promise<Ended | { kind: 'send'; app: ApplicationDoc; url: string }> {
  const app = await docs.app(c.app_id);
  if (!app) return { kind: 'app' };
  // trigger/run's stand-in user never exists, and is never gone.
  if (c.user_id !== PLACEHOLDER_USER_ID && !(await docs.user(c.app_id, c.user_id))) return { kind: 'cancelled', reason: CANCELLED.userDeleted };
  const trigger = await docs.trigger(c.app_id, c.trigger_id);
  if (!trigger) return { kind: 'cancelled', reason: CANCELLED.triggerDeleted };
  if (trigger.type !== 'callback') return { kind: 'cancelled', reason: CANCELLED.notCallback };
  return { kind: 'send', app, url: trigger.url };
}

/** The round's outcome, from the retry schedule: one update of the firing and its last attempt. */
export async function finish(d: RoundDeps, c: LeasedCallback, o: AttemptOutcome, last?: AttemptRecord, dropPayload = false): Promise<DeliveryReport> {
  const now = d.now();
  const scheduled = roundEnd(o, c.rounds, now, d.policy, d.random);
  const end: RoundEnd = scheduled.status === 'delivered'
    ? { status: 'delivered', at: last?.at ?? now, durationMs: o.durationMs }
    : scheduled.status === 'dead' ? { status: 'dead', lastError: scheduled.lastError, dropPayload } : scheduled;
  const lastError = end.status === 'delivered' ? undefined : end.lastError;
  if (!(await d.firings.finish(c, end, now, last))) {
    // The lease ran out and another loop owns the callback now; its outcome will be recorded.
    d.log.warn({ event_id: c.event_id }, 'callback lease lost before its outcome was saved');
    return { status: 'delivering', attempts: c.attempts, last_status: c.last_status, last_error: lastError };
  }
  if (end.status === 'delivered') d.metrics.delivered(end.at - c.created_at);
  if (end.status === 'dead') d.log.warn({ event_id: c.event_id, app_id: c.app_id, error: lastError }, 'callback dead');
  return { status: end.status, attempts: c.attempts, last_status: c.last_status, last_error: lastError };
}
