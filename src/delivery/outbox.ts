// The durable outbox of callbacks. A firing's callback is a row here before the location update
// that caused it is acknowledged; the delivery loop drains it (its operations: outbox-repo.ts). `_id` is the event id: inserting the
// same firing twice (the engine replaying after a crash) is a no-op, and the id is also the
// `webhook-id` the receiver deduplicates on.
import type { DocCollection } from '../store/collection.js';
import type { DeliveryAttemptDoc, OutboxDoc, TriggerHistoryDoc } from '../store/documents.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import type { Store } from '../store/store.js';
import type { DeliveryRuntime } from './runtime.js';

type HasStore = { store: Store };

export const outbox = (s: HasStore) => s.store.collection<OutboxDoc>('outbox');
export const attempts = (s: HasStore) => s.store.collection<DeliveryAttemptDoc>('delivery_attempts');
export const history = (s: HasStore) => s.store.collection<TriggerHistoryDoc>('trigger_history');

export type NewCallback = Pick<OutboxDoc, '_id' | 'app_id' | 'trigger_id' | 'user_id' | 'place_id' | 'layer_id' | 'url' | 'payload'>;

/**
 * The outbox row of a new callback, due at `dueAt`. Written field by field: in V8 11 (Node 20) each
 * property added after a spread costs ~1 µs (the copy's map has no cached transitions), and
 * `{ ...row, status, … }` took ~10 µs per callback.
 */
export function outboxDoc(row: NewCallback, dueAt: number, now = dueAt): OutboxDoc {
  return {
    _id: row._id, app_id: row.app_id, trigger_id: row.trigger_id, user_id: row.user_id, place_id: row.place_id, layer_id: row.layer_id,
    url: row.url, payload: row.payload, status: 'pending', attempts: 0, rounds: 0, next_attempt_at: dueAt, lease_until: 0, created_at: now, updated_at: now,
  };
}

/**
 * Stores the callback, due now unless `dueAt` says later (trigger/run holds it back from the poll
 * while it sends the first attempt itself). False when that event is already in the outbox.
 */
export async function enqueueCallback(rt: DeliveryRuntime, row: NewCallback, opts: { wake?: boolean; dueAt?: number } = {}): Promise<boolean> {
  const now = rt.now();
  if ((await insertNew(rt.repo.outbox, [outboxDoc(row, opts.dueAt ?? now, now)])).size > 0) return false;
  if (opts.wake !== false) rt.dispatcher?.wake();
  return true;
}

/**
 * Inserts documents keyed by event id, all in one write; returns the ids that were already there.
 * Callers leave out what they know exists, so a duplicate means another writer got there in
 * between: then each is inserted on its own to find out which. (On MongoDB an insertMany stopped
 * by a duplicate has written the ones before it, which then count as already there too.)
 */
export async function insertNew<T extends { _id: string }>(col: DocCollection<T>, docs: T[]): Promise<Set<string>> {
  const existing = new Set<string>();
  if (docs.length === 0) return existing;
  try {
    await (docs.length === 1 ? col.insertOne(docs[0]!) : col.insertMany(docs));
    return existing;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    if (docs.length === 1) return existing.add(docs[0]!._id);
  }
  await Promise.all(docs.map(async (doc) => {
    try {
      await col.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      existing.add(doc._id);
    }
  }));
  return existing;
}

export function getCallback(ctx: HasStore, eventId: string): Promise<OutboxDoc | null> {
  return outbox(ctx).findOne({ _id: eventId });
}

/**
 * Every attempt of one event, in order: the delivery log. The attempts that did not deliver are
 * stored; the one that delivered is rebuilt from the row's outcome (not stored twice).
 */
export async function listAttempts(ctx: HasStore, eventId: string): Promise<DeliveryAttemptDoc[]> {
  const [logged, row] = await Promise.all([
    attempts(ctx).find({ event_id: eventId }, { sort: { attempt: 1, at: 1 } }).toArray(),
    getCallback(ctx, eventId),
  ]);
  // Rows delivered before this logged their last attempt themselves.
  if (row?.status !== 'delivered' || row.delivered_at === undefined || logged.some((a) => a.attempt === row.attempts)) return logged;
  const delivering: DeliveryAttemptDoc = {
    _id: `${row._id}:delivered`,
    event_id: row._id,
    app_id: row.app_id,
    attempt: row.attempts,
    at: row.delivered_at,
    duration_ms: row.last_duration_ms ?? 0,
    ...(row.last_status !== undefined ? { status_code: row.last_status } : {}),
    outcome: 'delivered',
  };
  return [...logged, delivering];
}
