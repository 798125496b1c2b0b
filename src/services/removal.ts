// Cascading deletes (reference §4.4, §4.5): a place takes its triggers with it, a layer its places,
// triggers and subscriptions. Each removed document is announced to the engine after it is gone,
// and a removed trigger's callbacks still queued are cancelled.
import { cancelTriggerCallbacks } from '../delivery/queued-callbacks.js';
import type { PlaceDoc, TriggerDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

/**
 * Removes these triggers of the app; returns how many there were. Their callbacks are cancelled
 * after the triggers are gone, so one written by a firing racing this is cancelled when the
 * dispatcher finds its trigger missing. (Only callback triggers have any: a trigger that stopped
 * being one had its callbacks cancelled then.) `cancel: false`: the caller removes the whole outbox
 * of the application anyway (admin/app/delete).
 */
export async function removeTriggers(ctx: ServiceContext, appId: string, docs: readonly TriggerDoc[], { cancel = true } = {}): Promise<number> {
  if (docs.length === 0) return 0;
  await ctx.store.triggers.removeMany(appId, docs.map((d) => d._id));
  for (const doc of docs) await ctx.changes.publish({ kind: 'trigger', op: 'removed', doc });
  if (cancel) for (const doc of docs) if (doc.type === 'callback') await cancelTriggerCallbacks(ctx, doc);
  return docs.length;
}

/**
 * Removes these places of the app, with their triggers. Triggers go first, so a crash in between
 * leaves bare places, never triggers on a missing place; a second sweep catches a trigger created
 * on one of these places while they were being removed.
 */
export async function removePlaces(ctx: ServiceContext, appId: string, places: readonly PlaceDoc[], opts: { cancel?: boolean } = {}): Promise<number> {
  if (places.length === 0) return 0;
  const ids = places.map((p) => p._id);
  await removeTriggers(ctx, appId, await ctx.store.triggers.onPlaces(appId, ids), opts);
  await ctx.store.places.removeMany(appId, ids);
  for (const doc of places) await ctx.changes.publish({ kind: 'place', op: 'removed', doc });
  await removeTriggers(ctx, appId, await ctx.store.triggers.onPlaces(appId, ids), opts);
  return places.length;
}
