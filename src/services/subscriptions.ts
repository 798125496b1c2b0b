// Layer subscriptions (reference §6.8): a user gets a layer's places and triggers once subscribed.
// Every user is implicitly in the application's default layer, which needs no subscription.
import { apiError, notFound } from '../errors.js';
import type { LayerDoc } from '../store/documents.js';
import { subscriptionId } from '../store/repos/index.js';
import type { ServiceContext } from './context.js';
import { plainDate } from '../schemas/dates.js';
import { requestTimeZone } from './request-zone.js';

export async function requireLayer(ctx: ServiceContext, appId: string, layerId: string): Promise<LayerDoc> {
  const layer = await ctx.store.layers.get(appId, layerId);
  if (!layer) throw notFound('Layer');
  return layer;
}

/** The layer a user may be subscribed to (404 unknown, 403 not public when `publicOnly`). */
async function subscribableLayer(ctx: ServiceContext, appId: string, layerId: string, publicOnly: boolean) {
  const layer = await requireLayer(ctx, appId, layerId);
  if (publicOnly && layer.public !== 1 && layer.type !== 'default') {
    throw apiError('access_denied', `Layer ${layerId} is not public`);
  }
  return layer;
}

/** Fails as subscribeUser would for any of these layers: checked before a user is created with them. */
export async function checkSubscribable(ctx: ServiceContext, appId: string, layerIds: readonly string[], opts: { publicOnly?: boolean } = {}) {
  for (const layerId of layerIds) await subscribableLayer(ctx, appId, layerId, opts.publicOnly ?? false);
}

/**
 * `date_subscribed` keeps the reference's `YYYY-mm-dd hh:mm:ss` without an offset, in the request's
 * zone: `opts.headerZone` (the Timezone header's), else the subscribed user's profile zone.
 */
export async function subscribeUser(
  ctx: ServiceContext, appId: string, layerId: string, userId: string, opts: { publicOnly?: boolean; headerZone?: string } = {},
) {
  const layer = await subscribableLayer(ctx, appId, layerId, opts.publicOnly ?? false);
  const user = await ctx.store.users.get(appId, userId);
  if (!user) throw notFound('User');
  let sub = await ctx.store.subscriptions.get(appId, layerId, userId);
  if (!sub && layer.type !== 'default') {
    sub = await ctx.store.subscriptions.add({ _id: subscriptionId(layerId, userId), app_id: appId, layer_id: layerId, user_id: userId, date_subscribed: ctx.now() });
    await ctx.changes.publish({ kind: 'subscription', op: 'saved', appId, userId, layerId });
  }
  return { subscribed: '1', date_subscribed: plainDate(sub?.date_subscribed ?? user.created_at, requestTimeZone(opts.headerZone, user)) };
}

export async function unsubscribeUser(ctx: ServiceContext, appId: string, layerId: string, userId: string) {
  const layer = await requireLayer(ctx, appId, layerId);
  if (!(await ctx.store.users.get(appId, userId))) throw notFound('User');
  if (layer.type === 'default') throw apiError('cannot_unsubscribe', 'Every user belongs to the default layer: it cannot be unsubscribed from');
  if (await ctx.store.subscriptions.remove(appId, layerId, userId)) {
    await ctx.changes.publish({ kind: 'subscription', op: 'removed', appId, userId, layerId });
  }
  return { subscribed: '0' };
}

/** Layer ids a user belongs to: the default layer first, then the subscribed ones. */
export async function userLayerIds(ctx: ServiceContext, appId: string, defaultLayerId: string, userId: string): Promise<string[]> {
  const subs = await ctx.store.subscriptions.forUser(appId, userId);
  return [defaultLayerId, ...subs.map((s) => s.layer_id)];
}
