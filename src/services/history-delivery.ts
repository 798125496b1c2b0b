// Where each trigger/history firing's delivery stands. The history row's own copy gives the status,
// attempts and last error (the delivery loop writes each failed attempt to it as it happens, even
// mid-round); a callback's outbox row adds the receiver's last HTTP status and, while a retry
// waits, when the next attempt is due.
import { outbox } from '../delivery/outbox.js';
import type { OutboxDoc, TriggerHistoryDoc } from '../store/documents.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { ServiceContext } from './context.js';

type CallbackState = Pick<OutboxDoc, '_id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error'>;

/** The outbox rows of the callbacks among `rows`, in one read. */
export async function callbackStates(ctx: ServiceContext, rows: readonly TriggerHistoryDoc[]): Promise<Map<string, CallbackState>> {
  const ids = rows.filter((r) => r.type === 'callback' && !r.gate).map((r) => r._id);
  if (ids.length === 0) return new Map();
  const found = await outbox(ctx)
    .find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1, attempts: 1, next_attempt_at: 1, last_status: 1, last_error: 1 } })
    .toArray();
  return new Map(found.map((d) => [d._id, d as CallbackState]));
}

/**
 * status, attempts, last_status (the receiver's last HTTP status), last_error while not delivered,
 * and next_attempt_at (+ `_ts`) while a retry waits (not while a round is under way).
 */
export function deliveryOf(r: TriggerHistoryDoc, row: CallbackState | undefined, timeZone: string) {
  const status = r.delivery?.status ?? row?.status ?? 'pending';
  const lastError = r.delivery?.last_error ?? row?.last_error;
  const waiting = status === 'pending' && row?.status === 'pending' && row.attempts > 0;
  return {
    status,
    attempts: r.delivery?.attempts ?? row?.attempts ?? 0,
    ...(row?.last_status !== undefined ? { last_status: row.last_status } : {}),
    ...(lastError && status !== 'delivered' ? { last_error: lastError } : {}),
    ...(waiting ? { next_attempt_at: isoDate(row.next_attempt_at, timeZone), next_attempt_at_ts: unixSeconds(row.next_attempt_at) } : {}),
  };
}
