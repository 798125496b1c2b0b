// Layers (reference §4.5, §6.5, §6.8): create with key de-dup, update, delete with everything on
// them, info with bounds and place counts, and the lists a user or the application sees.
import { apiError, notFound } from '../errors.js';
import type { Extra, Flag, LayerDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { Changes } from '../store/changes.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import { uniqKey } from '../store/unique-keys.js';
import type { ServiceContext } from './context.js';
import { boundsOf, layerObject, placeObject, type Created } from './geo-objects.js';
import { removePlaces, removeTriggers } from './removal.js';
import { requireLayer, userLayerIds } from './subscriptions.js';
import { removing } from './structure-lock.js';
import { requireUser } from './acting-user.js';
import { windowOver } from './validity-window.js';
import type { Viewer } from './viewer.js';
import { mergeExtra } from './extra-merge.js';

export interface LayerInput {
  name?: string;
  key?: string;
  description?: string;
  icon?: string;
  url?: string;
  /** 0/1 or a boolean (reference §1). */
  public?: number | boolean;
  public_userlist?: number | boolean;
  trigger_rate_limit?: number;
  latitude?: number;
  longitude?: number;
  radius?: number;
  extra?: Extra;
}

const flag = (v: number | boolean): Flag => (v === true || v === 1 ? 1 : 0);

/** The settable fields of `input`, validated; `current` is the layer being updated, if any. */
function layerFields(appId: string, input: LayerInput, current?: LayerDoc): Partial<LayerDoc> {
  const set: Partial<LayerDoc> = {};
  for (const k of ['name', 'description', 'icon', 'url', 'trigger_rate_limit', 'latitude', 'longitude', 'radius', 'extra'] as const) {
    if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
  }
  if (input.public !== undefined) set.public = flag(input.public);
  if (input.public_userlist !== undefined) set.public_userlist = flag(input.public_userlist);
  const lat = set.latitude ?? current?.latitude;
  const lon = set.longitude ?? current?.longitude;
  if ((lat === undefined) !== (lon === undefined)) throw apiError('invalid_input', 'latitude and longitude go together');
  if (set.radius !== undefined && lat === undefined) throw apiError('invalid_input', 'radius needs latitude and longitude');
  if (input.key !== undefined) Object.assign(set, { key: input.key, uniq_key: uniqKey(appId, input.key) });
  return set;
}

export async function createLayer(ctx: ServiceContext, appId: string, input: LayerInput & { name: string }): Promise<Created<ReturnType<typeof layerObject>>> {
  const doc: LayerDoc = {
    _id: newId(), app_id: appId, type: 'normal', name: input.name, description: '', icon: '', url: '',
    public: 0, public_userlist: 0, trigger_rate_limit: 0, extra: {}, created_at: ctx.now(),
    ...layerFields(appId, input),
  };
  try {
    await ctx.store.layers.insert(doc);
  } catch (err) {
    if (err instanceof DuplicateKeyError && doc.uniq_key) {
      const existing = await ctx.store.layers.byKey(appId, doc.key!);
      if (existing) return { created: false, body: layerObject(existing) };
    }
    throw err;
  }
  await ctx.changes.publish({ kind: 'layer', op: 'saved', doc });
  return { created: true, body: layerObject(doc) };
}

export async function updateLayer(ctx: ServiceContext, appId: string, layerId: string, input: LayerInput) {
  const current = await requireLayer(ctx, appId, layerId);
  const { extra: sentExtra, ...fields } = input;
  const set = layerFields(appId, fields, current);
  // `extra` merges its keys into the stored hash (services/extra-merge.ts).
  const extra = sentExtra === undefined ? undefined : mergeExtra(sentExtra, current.extra);
  if (extra?.whole) set.extra = extra.whole;
  if (Object.keys(set).length === 0 && !extra?.keys) return { result: 'ok' as const };
  const changes: Changes<LayerDoc> = { set, ...(extra?.keys ? { extra: extra.keys } : {}) };
  let doc: LayerDoc | null;
  try {
    doc = await ctx.store.layers.update(appId, layerId, changes);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw apiError('duplicate_key', `Another layer already has the key "${input.key}"`);
    throw err;
  }
  if (!doc) throw notFound('Layer');
  await ctx.changes.publish({ kind: 'layer', op: 'saved', doc });
  return { result: 'ok' as const };
}

/** Deletes the layer with its triggers, places and subscriptions; the default layer stays. */
async function deleteLayerNow(ctx: ServiceContext, appId: string, layerId: string) {
  const layer = await requireLayer(ctx, appId, layerId);
  if (layer.type === 'default') throw apiError('cannot_delete', 'Cannot delete the default layer');
  await removeTriggers(ctx, appId, await ctx.store.triggers.list(appId, { layerId }));
  await removePlaces(ctx, appId, await ctx.store.places.onLayer(appId, layerId));
  const subs = await ctx.store.subscriptions.forLayer(appId, layerId);
  await ctx.store.subscriptions.removeForLayer(appId, layerId);
  for (const s of subs) await ctx.changes.publish({ kind: 'subscription', op: 'removed', appId, userId: s.user_id, layerId });
  if (await ctx.store.layers.remove(appId, layerId)) await ctx.changes.publish({ kind: 'layer', op: 'removed', doc: layer });
  return { result: 'ok' as const };
}

export function deleteLayer(ctx: ServiceContext, appId: string, layerId: string) {
  return removing(ctx, appId, () => deleteLayerNow(ctx, appId, layerId));
}

/** The longest `trigger_rate_limit` of any layer, seconds (0: none limits firings). */
export function longestLayerRateLimitS(ctx: ServiceContext): Promise<number> {
  return ctx.store.layers.longestRateLimitS();
}

export async function layerByKey(ctx: ServiceContext, appId: string, key: string): Promise<LayerDoc> {
  const layer = await ctx.store.layers.byKey(appId, key);
  if (!layer) throw notFound('Layer');
  return layer;
}

export interface LayerInfoOptions {
  include_places?: number | boolean;
  include_valid_places?: number | boolean;
  count_valid_places?: number | boolean;
}

/** layer/info: the full layer with `bounds` (or false) and `num_places`; places on request, dated in `timeZone`. */
export async function layerInfo(ctx: ServiceContext, layer: LayerDoc, opts: LayerInfoOptions = {}, timeZone = 'UTC') {
  const now = ctx.now();
  const places = await ctx.store.places.onLayer(layer.app_id, layer._id);
  const valid = places.filter((p) => !windowOver(p, now));
  return {
    ...layerObject(layer),
    bounds: boundsOf(places),
    num_places: places.length,
    ...(opts.count_valid_places ? { num_valid_places: valid.length } : {}),
    ...(opts.include_places || opts.include_valid_places
      ? { places: (opts.include_places ? places : valid).map((p) => placeObject(p, now, timeZone)) }
      : {}),
  };
}

/** The layers a viewer may read, oldest first: all of them for the application; for a user the default, public and subscribed ones. */
async function visibleLayers(ctx: ServiceContext, viewer: Viewer): Promise<{ layers: LayerDoc[]; subscribed: Set<string> }> {
  if (!viewer.userId) return { layers: await ctx.store.layers.forApp(viewer.appId), subscribed: new Set() };
  const subscribed = new Set(await userLayerIds(ctx, viewer.appId, viewer.defaultLayerId, viewer.userId));
  return { layers: await ctx.store.layers.publicOr(viewer.appId, [...subscribed]), subscribed };
}

/** Whether the viewer may read the layer's places and triggers. */
export async function layerVisible(ctx: ServiceContext, viewer: Viewer, layer: LayerDoc): Promise<boolean> {
  if (!viewer.userId || layer.public === 1 || layer._id === viewer.defaultLayerId) return true;
  return (await ctx.store.subscriptions.get(viewer.appId, layer._id, viewer.userId)) !== null;
}

/** A layer the viewer may read, or 404 as if it did not exist. */
export async function requireVisibleLayer(ctx: ServiceContext, viewer: Viewer, layerId: string): Promise<LayerDoc> {
  const layer = await requireLayer(ctx, viewer.appId, layerId);
  if (await layerVisible(ctx, viewer, layer)) return layer;
  throw notFound('Layer');
}

const defaultFirst = (a: LayerDoc, b: LayerDoc) => Number(b.type === 'default') - Number(a.type === 'default');

/** layer/list: the default layer first, then by creation; `subscribed` for a user token. */
export async function listLayers(ctx: ServiceContext, viewer: Viewer) {
  const { layers: visible, subscribed } = await visibleLayers(ctx, viewer);
  const layers = visible.sort(defaultFirst);
  return {
    layers: layers.map((l) => (viewer.userId ? { ...layerObject(l), subscribed: subscribed.has(l._id) } : layerObject(l))),
  };
}

/** layer/subscriptions: the layers the user belongs to, the default layer first. */
export async function layerSubscriptions(ctx: ServiceContext, viewer: Viewer, userId: string) {
  await requireUser(ctx, viewer.appId, userId);
  const ids = await userLayerIds(ctx, viewer.appId, viewer.defaultLayerId, userId);
  const layers = await ctx.store.layers.many(viewer.appId, ids);
  const byId = new Map(layers.map((l) => [l._id, l]));
  return { layers: ids.flatMap((id) => (byId.has(id) ? [layerObject(byId.get(id)!)] : [])) };
}
