// The durable outbox of callbacks. A firing's callback is a row here before the location update
// that caused it is acknowledged; the dispatcher drains it. `_id` is the event id: inserting the
// same firing twice (the engine replaying after a crash) is a no-op, and the id is also the
// `webhook-id` the receiver deduplicates on.
import type { ServiceContext } from '../services/context.js';
import type { DeliveryAttemptDoc, OutboxDoc, TriggerHistoryDoc } from '../store/documents.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import { runtimeOf } from './runtime.js';

export const outbox = (ctx: ServiceContext) => ctx.store.collection<OutboxDoc>('outbox');
export const attempts = (ctx: ServiceContext) => ctx.store.collection<DeliveryAttemptDoc>('delivery_attempts');
export const history = (ctx: ServiceContext) => ctx.store.collection<TriggerHistoryDoc>('trigger_history');

export type NewCallback = Pick<OutboxDoc, '_id' | 'app_id' | 'trigger_id' | 'user_id' | 'place_id' | 'layer_id' | 'url' | 'payload'>;

/**
 * Stores the callback, due now unless `dueAt` says later (trigger/run holds it back from the poll
 * while it sends the first attempt itself). False when that event is already in the outbox.
 */
export async function enqueueCallback(ctx: ServiceContext, row: NewCallback, opts: { wake?: boolean; dueAt?: number } = {}): Promise<boolean> {
  const now = ctx.now();
  const doc: OutboxDoc = {
    ...row, status: 'pending', attempts: 0, rounds: 0, next_attempt_at: opts.dueAt ?? now, lease_until: 0, created_at: now, updated_at: now,
  };
  try {
    await outbox(ctx).insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  if (opts.wake !== false) runtimeOf(ctx).dispatcher?.wake();
  return true;
}

export function getCallback(ctx: ServiceContext, eventId: string): Promise<OutboxDoc | null> {
  return outbox(ctx).findOne({ _id: eventId });
}

/** Every attempt of one event, in order: the delivery log. */
export function listAttempts(ctx: ServiceContext, eventId: string): Promise<DeliveryAttemptDoc[]> {
  return attempts(ctx).find({ event_id: eventId }, { sort: { attempt: 1, at: 1 } }).toArray();
}
