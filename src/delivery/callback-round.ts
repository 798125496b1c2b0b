// One dispatch round of one leased outbox row: where its callback stands now (its application,
// user or trigger may be gone, its URL changed), the send (an attempt plus quick p-retry retries,
// callback-sender.ts) with every attempt recorded, and the row's outcome from the retry schedule
// (retry-schedule.ts) written through the outbox repository.
import type { ApplicationDoc } from '../store/documents.js';
import { sendWithRetries, type AttemptOutcome, type CallbackRequest, type RoundOptions, type Sender } from './callback-sender.js';
import type { DocCache } from './doc-cache.js';
import { logFailedAttempt } from './firing-log.js';
import type { Attempt, Leased, OutboxRepo } from './outbox-repo.js';
import { PLACEHOLDER_USER_ID } from './payload.js';
import { CANCELLED } from './queued-callbacks.js';
import { roundEnd, type BackoffPolicy } from './retry-schedule.js';
import { signingSecrets } from './signing.js';
import type { DeliveryLog, DeliveryReport } from './types.js';

export interface RoundDeps {
  repo: OutboxRepo;
  sender: Sender;
  docs: DocCache;
  now: () => number;
  policy: BackoffPolicy;
  random: () => number;
  /** Aborted when the loop stops: the round hands its row back. */
  signal: AbortSignal;
  log: DeliveryLog;
}

/** Why a row's round stops short of delivering: its application is gone, or its callback was cancelled. */
type Ended = { kind: 'app' } | { kind: 'cancelled'; reason: string };

/**
 * Sends one leased row and writes how the round ended; undefined when stopped mid-send (the row is
 * handed back) or when its application was deleted meanwhile (nothing is written back). `http`
 * resolves when the row may start its HTTP phase (its origin's slot is taken); `sent` is called
 * when that phase is over.
 */
export async function runRound(d: RoundDeps, row: Leased, round: RoundOptions, http: Promise<void>, sent: () => void): Promise<DeliveryReport | undefined> {
  const current = await standing(d.docs, row);
  if (current.kind === 'app') return finish(d, row, { kind: 'dead', error: 'the application no longer exists', durationMs: 0 });
  // Cancelled since the row was written: nothing more is sent, nor kept (queued-callbacks.ts).
  if (current.kind === 'cancelled') return finish(d, row, { kind: 'dead', error: current.reason, durationMs: 0 }, undefined, true);
  if (row.payload === undefined) return finish(d, row, { kind: 'dead', error: 'the row holds no payload', durationMs: 0 });
  let attemptNo = row.attempts;
  // An attempt that ends the round is written with the row's outcome, not on its own.
  let last: Attempt | undefined;
  let outcome: AttemptOutcome;
  // Set when the application was deleted or the callback cancelled during the round: no quick retry follows.
  let ended: Ended | undefined;
  // The stored bytes, the same on every attempt (an older row holds the object: serialised here).
  const req: CallbackRequest = {
    eventId: row._id, url: current.url, body: typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload), secret: signingSecrets(current.app, d.now()),
  };
  const recheck = async (): Promise<Ended | undefined> => {
    const now = await standing(d.docs, row);
    if (now.kind !== 'send') return now;
    req.url = now.url;
    return undefined;
  };
  try {
    await http;
    outcome = await sendWithRetries(
      d.sender,
      req,
      // Field by field, not `{ ...round, signal, … }` (see outboxDoc on spreads in V8 11).
      {
        retries: round.retries,
        minDelayMs: round.minDelayMs,
        maxInlineRetryAfterMs: round.maxInlineRetryAfterMs,
        signal: d.signal,
        onAttempt: async (o) => {
          attemptNo++;
          logFailedAttempt(d.log, row, attemptNo, o);
          if (o.status !== undefined) row.last_status = o.status;
          const attempt = { n: attemptNo, outcome: o, at: d.now() };
          if (o.kind !== 'retry') last = attempt;
          else if ((ended = await recheck())?.kind !== 'app') await d.repo.recordAttempt(row, attempt);
        },
        // Asked again before each quick retry: a delete or a new URL may come while the round waits.
        proceed: async () => (ended ??= await recheck()) === undefined,
      },
    );
  } catch (err) {
    sent();
    if (!d.signal.aborted) throw err;
    // Shutting down mid-send: hand the row back now rather than after the lease. The request
    // may have reached the receiver; the resend carries the same webhook-id.
    await d.repo.handBack(row, attemptNo, last, d.now());
    return undefined;
  }
  // The receiver is done with it: its origin's share is free while the outcome is written.
  sent();
  row.attempts = attemptNo;
  // A deleted application took its rows and attempts with it: nothing is written back.
  if (ended?.kind === 'app') return undefined;
  if (ended?.kind === 'cancelled') return finish(d, row, { kind: 'dead', error: ended.reason, durationMs: 0 }, undefined, true);
  return finish(d, row, outcome, last);
}

/**
 * Where the row's callback stands now: its application deleted; cancelled (its user or trigger
 * deleted, or the trigger no longer a callback trigger); or to be sent, to the trigger's URL of
 * the moment (trigger/update may have changed it since the row was written). Asked when a round
 * starts and before each quick retry, from the runtime's cached documents, which a change drops.
 */
export async function standing(docs: DocCache, row: Leased): Promise<Ended | { kind: 'send'; app: ApplicationDoc; url: string }> {
  const app = await docs.app(row.app_id);
  if (!app) return { kind: 'app' };
  // trigger/run's stand-in user never exists, and is never gone.
  if (row.user_id !== PLACEHOLDER_USER_ID && !(await docs.user(row.app_id, row.user_id))) return { kind: 'cancelled', reason: CANCELLED.userDeleted };
  const trigger = await docs.trigger(row.app_id, row.trigger_id);
  if (!trigger) return { kind: 'cancelled', reason: CANCELLED.triggerDeleted };
  if (trigger.type !== 'callback') return { kind: 'cancelled', reason: CANCELLED.notCallback };
  return { kind: 'send', app, url: trigger.url };
}

/** The round's outcome on the row, from the retry schedule. */
export async function finish(d: RoundDeps, row: Leased, o: AttemptOutcome, last?: Attempt, dropPayload = false): Promise<DeliveryReport> {
  const now = d.now();
  const end = roundEnd(o, row.rounds, now, d.policy, d.random);
  const lastError = end.status === 'delivered' ? undefined : end.lastError;
  if (!(await d.repo.finish(row, end, o, now, last, dropPayload))) {
    // The lease ran out and another loop owns the row now; its outcome will be recorded.
    d.log.warn({ event_id: row._id }, 'callback lease lost before its outcome was saved');
    return { status: 'delivering', attempts: row.attempts, last_status: row.last_status, last_error: lastError };
  }
  if (end.status === 'dead') d.log.warn({ event_id: row._id, app_id: row.app_id, error: lastError }, 'callback dead');
  return { status: end.status, attempts: row.attempts, last_status: row.last_status, last_error: lastError };
}
