// Callbacks not sent yet when what they are about changes. A deleted trigger's end dead
// ("cancelled: …", without their payload), as do a trigger's once it no longer sends callbacks; a
// trigger's new URL is where its next attempts go (as a webhook endpoint's retries follow its
// current URL). A deleted user's firings are forgotten with their attempts. Here the callbacks
// waiting for their next round change in the store; one leased for a round (queued in the loop's
// memory, in flight, or between quick retries) is the loop's, which asks the same questions when
// the round starts and before each quick retry (callback-round.ts standing()).
import type { TriggerDoc } from '../store/documents.js';
import type { DispatcherHandle, StoreAccess } from './types.js';

/** The last_error of a callback that will not be sent, by why. */
export const CANCELLED = {
  userDeleted: 'cancelled: the user was deleted',
  triggerDeleted: 'cancelled: the trigger was deleted',
  notCallback: 'cancelled: the trigger no longer sends callbacks',
} as const;

/**
 * user/delete: nothing more about the user leaves the service, and nothing of theirs is kept:
 * their firings go, with their callbacks' payloads and attempts. A round already leased holds the
 * body in memory: an attempt in flight may still reach the receiver, and its round then ends it.
 */
export async function forgetUserFirings(ctx: StoreAccess, appId: string, userId: string): Promise<void> {
  await ctx.store.firings.forgetUser(appId, userId);
}

/** trigger/delete, and the deletes that take triggers with them (services/removal.ts). */
export async function cancelTriggerCallbacks(ctx: StoreAccess, trigger: TriggerDoc, reason: string = CANCELLED.triggerDeleted): Promise<void> {
  await ctx.store.firings.cancelWaiting(trigger.app_id, { trigger_id: trigger._id }, reason, ctx.now());
}

/**
 * trigger/update: the trigger's queued callbacks follow it. A new URL (checked like any new one,
 * services/triggers.ts) is set on the callbacks not delivered yet, leased ones too (their holder
 * never writes `url` back), so polls and endpoint shares see it; no longer a callback trigger, they
 * are cancelled. Those waiting for a round are due at once: a fixed URL should not wait out the
 * backoff (up to 12 h) that the broken one earned.
 */
export async function followTriggerUpdate(ctx: StoreAccess & { dispatcher?: DispatcherHandle }, before: TriggerDoc, after: TriggerDoc): Promise<void> {
  if (before.type !== 'callback') return;
  if (after.type !== 'callback') return cancelTriggerCallbacks(ctx, after, CANCELLED.notCallback);
  if (after.url === before.url) return;
  await ctx.store.firings.followUrl(after.app_id, after._id, after.url, ctx.now());
  ctx.dispatcher?.wake();
}
