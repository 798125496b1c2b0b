// layer/subscription/:id (reference §4.5, §6.8): whether a user belongs to a layer, since when, and
// the meta information ("settings") the subscriber keeps there. The POST form, undocumented, sets
// `settings`; the application's default layer, which needs no subscription, keeps none.
import { apiError, notFound } from '../errors.js';
import { isoDate } from '../schemas/dates.js';
import type { Extra, LayerDoc, SubscriptionDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { requireVisibleLayer } from './layers.js';
import type { Viewer } from './viewer.js';

function view(layer: LayerDoc, sub: SubscriptionDoc | null, since: number | undefined, timeZone: string) {
  const at = sub?.date_subscribed ?? since;
  return {
    layer_id: layer._id,
    active: sub || since !== undefined ? 1 : 0,
    date_subscribed: at === undefined ? null : isoDate(at, timeZone),
    // The reference shows an empty array when there are none.
    settings: sub?.settings && Object.keys(sub.settings).length > 0 ? sub.settings : [],
  };
}

async function lookup(ctx: ServiceContext, viewer: Viewer, layerId: string, userId: string) {
  const layer = await requireVisibleLayer(ctx, viewer, layerId);
  const user = await ctx.store.users.get(viewer.appId, userId);
  if (!user) throw notFound('User');
  const sub = await ctx.store.subscriptions.get(viewer.appId, layer._id, userId);
  return { layer, user, sub };
}

/** GET: the subscription of `userId` (the caller for a user token). */
export async function layerSubscription(ctx: ServiceContext, viewer: Viewer, layerId: string, userId: string) {
  const { layer, user, sub } = await lookup(ctx, viewer, layerId, userId);
  return view(layer, sub, layer.type === 'default' ? user.created_at : undefined, viewer.timeZone);
}

/** POST: replaces the subscription's `settings`; the user must be subscribed. */
export async function setLayerSubscription(ctx: ServiceContext, viewer: Viewer, layerId: string, userId: string, settings: Extra | undefined) {
  const { layer, user, sub } = await lookup(ctx, viewer, layerId, userId);
  if (settings === undefined) return view(layer, sub, layer.type === 'default' ? user.created_at : undefined, viewer.timeZone);
  if (layer.type === 'default') throw apiError('invalid_input', 'The default layer needs no subscription and keeps no settings');
  if (!sub) throw apiError('invalid_input', 'The user is not subscribed to this layer: subscribe first (layer/subscribe)');
  await ctx.store.subscriptions.setSettings(viewer.appId, layer._id, userId, settings);
  return view(layer, { ...sub, settings }, undefined, viewer.timeZone);
}
