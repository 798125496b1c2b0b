// One dispatch round of a batch: several leased callbacks of one application to one callback URL, sent
// in one POST when the application asks for it (callback_batch_max > 1, docs/api.md "Callbacks").
// The body is a JSON array of the rows' stored payloads, byte for byte what each would be sent
// alone; it is signed once, over the whole body, with a webhook-id of the batch's own (derived from
// its events' ids, so the same batch keeps it through its quick retries). The outcome is the
// batch's and each row takes it on its own schedule: a 2xx delivers every event of the batch, a
// failure leaves each row to be retried (or dead) as it would be alone, and a later round may
// batch it with other rows. At-least-once as for single rows: an event may arrive again in
// another batch, with the same event_id.
import { createHash } from 'node:crypto';
import type { ApplicationDoc } from '../store/documents.js';
import type { AttemptRecord, LeasedCallback } from '../store/firings.js';
import { sendWithRetries, type AttemptOutcome, type CallbackRequest, type RoundOptions } from './callback-sender.js';
import { attemptClass, attemptRecord, finish, standing, type RoundDeps } from './callback-round.js';
import { logFailedAttempt } from './firing-log.js';
import { signingSecrets } from './signing.js';
import type { DeliveryReport } from './types.js';

/** The webhook-id of a batch: the same events in the same order have the same one. */
export function batchId(eventIds: readonly string[]): string {
  return `batch_${createHash('sha256').update(eventIds.join('\n')).digest('base64url').slice(0, 32)}`;
}

/** The POST body of a batch: a JSON array of the stored payloads, in order. */
export function batchBody(payloads: readonly string[]): string {
  return `[${payloads.join(',')}]`;
}

const dead = (error: string): AttemptOutcome => ({ kind: 'dead', error, durationMs: 0 });

/**
 * Sends the rows (leased, one application, one URL as written) in one POST and writes each row's
 * outcome. A row whose callback no longer stands (application, user or trigger gone) ends as it
 * would alone; one whose trigger now points elsewhere is handed back, due now, to go with its new
 * URL's rows. Returns the report of the batch's first row (undefined when stopped mid-send).
 */
export async function runBatch(d: RoundDeps, rows: LeasedCallback[], round: RoundOptions, http: Promise<void>, sent: () => void): Promise<DeliveryReport | undefined> {
  const go: LeasedCallback[] = [];
  const bodies: string[] = [];
  const early: Array<Promise<DeliveryReport | undefined>> = [];
  let app: ApplicationDoc | undefined;
  let url: string | undefined;
  for (const row of rows) {
    const s = await standing(d.docs, row);
    if (s.kind === 'app') early.push(finish(d, row, dead('the application no longer exists')));
    else if (s.kind === 'cancelled') early.push(finish(d, row, dead(s.reason), undefined, true));
    else if (row.payload === undefined) early.push(finish(d, row, dead('the row holds no payload')));
    else if (url !== undefined && s.url !== url) early.push(d.firings.release([row], d.now()).then(() => undefined));
    else {
      url = s.url;
      app = s.app;
      go.push(row);
      bodies.push(row.payload);
    }
  }
  if (go.length === 0 || !app || url === undefined) {
    sent();
    return (await Promise.all(early))[0];
  }
  const attemptNos = go.map((r) => r.attempts);
  // The attempt that ends the round, per row: written with the row's outcome.
  let lasts: AttemptRecord[] | undefined;
  // Set when a row's callback changed during the round (its application, user or trigger gone, a
  // new URL for some of them): no quick retry follows, and each row is looked at again at the end.
  let changed: 'app' | 'changed' | undefined;
  const req: CallbackRequest = { eventId: batchId(go.map((r) => r.event_id)), url, body: batchBody(bodies), secret: signingSecrets(app, d.now()) };
  const recheck = async (): Promise<'app' | 'changed' | undefined> => {
    let next: string | undefined;
    for (const row of go) {
      const s = await standing(d.docs, row);
      if (s.kind === 'app') return 'app';
      if (s.kind !== 'send' || (next !== undefined && s.url !== next)) return 'changed';
      next = s.url;
    }
    req.url = next!;
    return undefined;
  };
  let outcome: AttemptOutcome;
  try {
    await http;
    outcome = await sendWithRetries(d.sender, req, {
      retries: round.retries,
      minDelayMs: round.minDelayMs,
      maxInlineRetryAfterMs: round.maxInlineRetryAfterMs,
      signal: d.signal,
      onAttempt: async (o) => {
        // One POST: one attempt, however many events it carries.
        d.metrics.attempted(attemptClass(o));
        const at = d.now();
        const attempts = go.map((row, i) => {
          const n = ++attemptNos[i]!;
          logFailedAttempt(d.log, row, n, o);
          if (o.status !== undefined) row.last_status = o.status;
          return attemptRecord(row, n, o, at);
        });
        if (o.kind !== 'retry') lasts = attempts;
        // The application's callbacks and attempts go with it: nothing to record then.
        else if ((changed = await recheck()) !== 'app') {
          await Promise.all(go.map((row, i) => {
            row.attempts = attemptNos[i]!;
            return d.firings.attempted(row, attempts[i]!);
          }));
        }
      },
      proceed: async () => !changed && !(changed = await recheck()),
    });
  } catch (err) {
    sent();
    if (!d.signal.aborted) throw err;
    await Promise.all(go.map((row, i) => {
      row.attempts = attemptNos[i]!;
      return d.firings.handBack(row, d.now(), lasts?.[i]);
    }));
    await Promise.all(early);
    return undefined;
  }
  sent();
  const reports = await Promise.all(go.map(async (row, i) => {
    row.attempts = attemptNos[i]!;
    if (!changed) return finish(d, row, outcome, lasts?.[i]);
    const s = await standing(d.docs, row);
    // A deleted application took its rows and attempts with it: nothing is written back.
    if (s.kind === 'app') return undefined;
    if (s.kind === 'cancelled') return finish(d, row, dead(s.reason), lasts?.[i], true);
    return finish(d, row, outcome, lasts?.[i]);
  }));
  await Promise.all(early);
  return reports[0];
}
