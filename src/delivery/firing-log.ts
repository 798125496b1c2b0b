// The log lines of what fired and of callback attempts that failed: ids, outcome and status only.
// Never the callback body, the signing secret, a token or a URL's query (which may hold a key).
import type { NewFiring } from '../store/firings.js';
import type { AttemptOutcome } from './callback-sender.js';
import type { DeliveryLog } from './types.js';

/** One info line per firing newly recorded (`skip`: ids another writer stored first). */
export function logFirings(log: DeliveryLog, rows: readonly NewFiring[], skip: ReadonlySet<string>): void {
  for (const r of rows) {
    if (r.unlisted || skip.has(r.event_id)) continue;
    const fields = { event_id: r.event_id, app_id: r.app_id, user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, triggered_on: r.triggered_on, type: r.type };
    if (r.gate) log.info({ ...fields, gate: r.gate }, 'firing gated');
    else log.info(fields, 'trigger fired');
  }
}

interface AttemptOf {
  event_id: string;
  app_id: string;
  trigger_id: string;
  user_id: string;
}

/** A warn line for an attempt that did not deliver (a quick retry, or the last of its round). */
export function logFailedAttempt(log: DeliveryLog, row: AttemptOf, attempt: number, o: AttemptOutcome): void {
  if (o.kind === 'delivered') return;
  log.warn({
    event_id: row.event_id, app_id: row.app_id, trigger_id: row.trigger_id, user_id: row.user_id, attempt,
    ...(o.status !== undefined ? { status: o.status } : {}), error: withoutQueries(o.error), will_retry: o.kind === 'retry',
  }, 'callback attempt failed');
}

/** URLs in an error (a redirect's target) lose their query and fragment. */
export const withoutQueries = (text: string) => text.replace(/(\bhttps?:\/\/[^\s?#]*)[?#]\S*/gi, '$1?[redacted]');
