// Callbacks still in the outbox when what they are about changes. A deleted user's or trigger's end
// dead ("cancelled: …", without their payload), as do a trigger's once it no longer sends
// callbacks; a trigger's new URL is where its next attempts go (as a webhook endpoint's retries
// follow its current URL). Here the rows waiting for their next round change in the store; a row
// leased for a round (queued in the dispatcher's memory, in flight, or between quick retries) is
// the delivery loop's, which asks the same questions when the round starts and before each quick
// retry (callback-round.ts standing()).
import type { TriggerDoc } from '../store/documents.js';
import { history, outbox } from './outbox.js';
import type { DispatcherHandle, StoreAccess } from './types.js';

/** The last_error of a callback that will not be sent, by why. */
export const CANCELLED = {
  userDeleted: 'cancelled: the user was deleted',
  triggerDeleted: 'cancelled: the trigger was deleted',
  notCallback: 'cancelled: the trigger no longer sends callbacks',
} as const;

/**
 * user/delete: nothing more about the user leaves the service, and the outbox keeps nothing of
 * theirs: rows waiting for a round are cancelled, and rows dead already or leased for a round lose
 * their payload too. A round already leased holds the body in memory: an attempt in flight may
 * still reach the receiver.
 */
export async function cancelUserCallbacks(ctx: StoreAccess, appId: string, userId: string): Promise<void> {
  await cancelWaiting(ctx, appId, { user_id: userId }, CANCELLED.userDeleted);
  await outbox(ctx).updateMany({ app_id: appId, status: { $in: ['delivering', 'dead'] }, user_id: userId }, { $unset: { payload: '' } });
}

/** trigger/delete, and the deletes that take triggers with them (services/removal.ts). */
export function cancelTriggerCallbacks(ctx: StoreAccess, trigger: TriggerDoc, reason: string = CANCELLED.triggerDeleted): Promise<void> {
  return cancelWaiting(ctx, trigger.app_id, { trigger_id: trigger._id }, reason);
}

/**
 * trigger/update: the trigger's queued callbacks follow it. A new URL (checked like any new one,
 * services/triggers.ts) is set on the rows not delivered yet, leased ones too (their owner never
 * writes `url` back), so polls and endpoint shares see it; no longer a callback trigger, they are
 * cancelled. Those waiting for a round are due at once: a fixed URL should not wait out the backoff
 * (up to 12 h) that the broken one earned.
 */
export async function followTriggerUpdate(ctx: StoreAccess & { dispatcher?: DispatcherHandle }, before: TriggerDoc, after: TriggerDoc): Promise<void> {
  if (before.type !== 'callback') return;
  if (after.type !== 'callback') return cancelTriggerCallbacks(ctx, after, CANCELLED.notCallback);
  if (after.url === before.url) return;
  const now = ctx.now();
  await outbox(ctx).updateMany({ app_id: after.app_id, status: 'pending', trigger_id: after._id }, { $set: { url: after.url, next_attempt_at: now, updated_at: now } });
  await outbox(ctx).updateMany({ app_id: after.app_id, status: 'delivering', trigger_id: after._id }, { $set: { url: after.url } });
  ctx.dispatcher?.wake();
}

/**
 * Ends the rows of one user or trigger that wait for their next round: dead with `reason`, without
 * payload, and their trigger/history entries with them. Read first and then changed by id, so the
 * history changes for exactly those rows; one leased in between is left alone here, and its round
 * ends it the same way (the user or trigger is gone by then). Only find and updateMany: both
 * engines have them.
 */
async function cancelWaiting(ctx: StoreAccess, appId: string, scope: { user_id: string } | { trigger_id: string }, reason: string): Promise<void> {
  const waiting = await outbox(ctx).find({ app_id: appId, status: 'pending', ...scope }, { projection: { _id: 1 } }).toArray();
  const now = ctx.now();
  // A chunk at a time: each write is one synchronous step on the embedded store, and one bounded
  // command on MongoDB, however many rows a trigger with a failing receiver has piled up.
  for (let i = 0; i < waiting.length; i += CANCEL_CHUNK) {
    const ids = waiting.slice(i, i + CANCEL_CHUNK).map((r) => r._id);
    await outbox(ctx).updateMany(
      { _id: { $in: ids }, status: 'pending' },
      { $set: { status: 'dead', last_error: reason, lease_until: 0, updated_at: now }, $unset: { payload: '' } },
    );
    await history(ctx).updateMany(
      { _id: { $in: ids }, 'delivery.status': { $in: ['pending', 'delivering'] } },
      { $set: { 'delivery.status': 'dead', 'delivery.last_error': reason, 'delivery.updated_at': now } },
    );
  }
}

/** Rows cancelled per write. */
const CANCEL_CHUNK = 500;
