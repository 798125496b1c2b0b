// Places (reference §4.4, §6.5, §6.6): circles, polygons or corridors (place-shape.ts) on a layer
// (the default layer unless one is named), with key de-dup per layer, validity windows, and lookups
// by id, key, list and distance.
import { EARTH_RADIUS_M } from '../geo/distance.js';
import { apiError, notFound } from '../errors.js';
import type { Extra, PlaceDoc } from '../store/documents.js';
import { mergeExtra } from './extra-merge.js';
import { geocodePlace } from './geocoder.js';
import { newId } from '../store/ids.js';
import type { Changes } from '../store/changes.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import type { PlaceNames, PlaceOrder } from '../store/repos/index.js';
import { uniqPlaceKey } from '../store/unique-keys.js';
import type { ServiceContext } from './context.js';
import { placeObject, type Created } from './geo-objects.js';
import { placeDistance } from './place-distance.js';
import { newShape, shapeChange, type ShapeInput } from './place-shape.js';
import { requireVisibleLayer } from './layers.js';
import { pageRequest, pagingObject } from './paging.js';
import { removePlaces } from './removal.js';
import { requireLayer } from './subscriptions.js';
import { placing, removing } from './structure-lock.js';
import { windowChange, type WindowInput } from './validity-window.js';
import type { Viewer } from './viewer.js';

export const MAX_RADIUS_M = 1_000_000;

export interface PlaceInput extends WindowInput, ShapeInput {
  layer_id?: string;
  key?: string;
  name?: string;
  description?: string;
  extra?: Extra;
}

function refuseGeocode(input: { geocode?: string }) {
  if (input.geocode !== undefined) throw apiError('invalid_input', 'geocode is not supported: send latitude and longitude');
}

/**
 * The point and radius of a new place: as sent, or where `geocode` names (services/geocoder.ts),
 * its radius then the one sent, else span_longitude's, else the city's estimated size.
 */
async function placeCircle(ctx: ServiceContext, input: PlaceInput): Promise<{ latitude: number; longitude: number; radius: number | undefined }> {
  if (input.geocode !== undefined) {
    if (input.latitude !== undefined || input.longitude !== undefined) {
      throw apiError('invalid_input', 'Send geocode or latitude and longitude, not both');
    }
    const found = await geocodePlace(ctx, input.geocode);
    const radius = input.radius ?? (input.span_longitude !== undefined ? radiusFromSpan(found.latitude, input.span_longitude) : found.radius);
    return { latitude: found.latitude, longitude: found.longitude, radius };
  }
  if (input.latitude === undefined || input.longitude === undefined) {
    throw apiError('missing_input', 'latitude and longitude are required');
  }
  const radius = input.radius ?? (input.span_longitude !== undefined ? radiusFromSpan(input.latitude, input.span_longitude) : undefined);
  return { latitude: input.latitude, longitude: input.longitude, radius };
}

/**
 * Radius from `span_longitude`, the degrees of longitude a map view spans (reference §4.4): half
 * the east-west width of that span at the place's latitude, so the circle fills the view.
 */
export function radiusFromSpan(latitude: number, spanLongitude: number): number {
  const widthM = ((spanLongitude * Math.PI) / 180) * EARTH_RADIUS_M * Math.cos((latitude * Math.PI) / 180);
  const radius = Math.max(1, Math.round(widthM / 2));
  if (radius > MAX_RADIUS_M) throw apiError('invalid_input', `span_longitude gives a radius of ${radius} m; the most is ${MAX_RADIUS_M} m`);
  return radius;
}

/** place/create's checks and defaults, with nothing written: the caller inserts. Dates without an offset are read in `timeZone`. */
export async function preparePlace(ctx: ServiceContext, appId: string, defaultLayerId: string, input: PlaceInput, timeZone = 'UTC'): Promise<PlaceDoc> {
  const shape = newShape(input);
  const { latitude, longitude, radius } = shape ?? (await placeCircle(ctx, input));
  if (radius === undefined) throw apiError('missing_input', 'Radius in meters is required');
  const layer = await requireLayer(ctx, appId, input.layer_id ?? defaultLayerId);
  const doc: PlaceDoc = {
    _id: newId(), app_id: appId, layer_id: layer._id, name: input.name ?? '', description: input.description ?? '',
    latitude, longitude, radius, extra: input.extra ?? {}, created_at: ctx.now(),
    ...windowChange(input, {}, timeZone).set,
  };
  if (shape !== null) {
    doc.geometry = shape.geometry;
    if (shape.width !== undefined) doc.width = shape.width;
  }
  if (input.key !== undefined) Object.assign(doc, { key: input.key, uniq_key: uniqPlaceKey(appId, layer._id, input.key) });
  return doc;
}

/** Inserts a prepared place; a taken key answers with the place that holds it. Publishes nothing. */
export async function insertPlace(ctx: ServiceContext, doc: PlaceDoc): Promise<{ created: boolean; place: PlaceDoc }> {
  try {
    await ctx.store.places.insert(doc);
    return { created: true, place: doc };
  } catch (err) {
    if (err instanceof DuplicateKeyError && doc.key !== undefined) {
      const existing = await ctx.store.places.byKey(doc.app_id, doc.layer_id, doc.key);
      if (existing) return { created: false, place: existing };
    }
    throw err;
  }
}

async function createPlaceNow(
  ctx: ServiceContext, appId: string, defaultLayerId: string, input: PlaceInput, timeZone: string,
): Promise<Created<ReturnType<typeof placeObject>>> {
  const { created, place } = await insertPlace(ctx, await preparePlace(ctx, appId, defaultLayerId, input, timeZone));
  if (created) await ctx.changes.publish({ kind: 'place', op: 'saved', doc: place });
  return { created, body: placeObject(place, ctx.now(), timeZone) };
}

/** place/create; `timeZone` (the request's) reads dates without an offset and dates the answer. */
export function createPlace(ctx: ServiceContext, appId: string, defaultLayerId: string, input: PlaceInput, timeZone = 'UTC') {
  return placing(ctx, appId, () => createPlaceNow(ctx, appId, defaultLayerId, input, timeZone));
}

export async function requirePlace(ctx: ServiceContext, appId: string, placeId: string): Promise<PlaceDoc> {
  const place = await ctx.store.places.get(appId, placeId);
  if (!place) throw notFound('Place');
  return place;
}

export async function placeByKey(ctx: ServiceContext, appId: string, layerId: string, key: string): Promise<PlaceDoc | null> {
  return ctx.store.places.byKey(appId, layerId, key);
}

/** place/update: the place/create fields, each optional; `extra` merges its keys (services/extra-merge.ts). */
async function updatePlaceNow(ctx: ServiceContext, appId: string, placeId: string, input: PlaceInput, timeZone: string) {
  refuseGeocode(input);
  const current = await requirePlace(ctx, appId, placeId);
  const shape = shapeChange(input, current);
  const set: Partial<PlaceDoc> = { ...shape.set };
  for (const k of ['name', 'description'] as const) if (input[k] !== undefined) set[k] = input[k];
  for (const k of ['latitude', 'longitude', 'radius'] as const) if (shape.circle[k] !== undefined) set[k] = shape.circle[k];
  const extra = input.extra === undefined ? undefined : mergeExtra(input.extra, current.extra);
  if (extra?.whole) set.extra = extra.whole;
  if (shape.circle.radius === undefined && shape.circle.span_longitude !== undefined) {
    set.radius = radiusFromSpan(shape.circle.latitude ?? current.latitude, shape.circle.span_longitude);
  }
  const moved = input.layer_id !== undefined && input.layer_id !== current.layer_id;
  if (moved) set.layer_id = (await requireLayer(ctx, appId, input.layer_id!))._id;
  const key = input.key ?? current.key;
  if (key !== undefined && (input.key !== undefined || moved)) {
    Object.assign(set, { key, uniq_key: uniqPlaceKey(appId, set.layer_id ?? current.layer_id, key) });
  }
  const window = windowChange(input, current, timeZone);
  Object.assign(set, window.set);
  const unset = [...window.unset, ...shape.unset];
  const changes: Changes<PlaceDoc> = { set, unset, ...(extra?.keys ? { extra: extra.keys } : {}) };
  if (Object.keys(set).length === 0 && unset.length === 0 && !extra?.keys) return placeObject(current, ctx.now(), timeZone);
  let place: PlaceDoc | null;
  try {
    place = await ctx.store.places.update(appId, placeId, changes);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw apiError('duplicate_key', `Another place on this layer already has the key "${key}"`);
    throw err;
  }
  if (!place) throw notFound('Place');
  if (moved) await moveTriggersWithPlace(ctx, place);
  await ctx.changes.publish({ kind: 'place', op: 'saved', doc: place });
  return placeObject(place, ctx.now(), timeZone);
}

/** place/update; `timeZone` as for createPlace. */
export function updatePlace(ctx: ServiceContext, appId: string, placeId: string, input: PlaceInput, timeZone = 'UTC') {
  return placing(ctx, appId, () => updatePlaceNow(ctx, appId, placeId, input, timeZone));
}

/** A place trigger records its place's layer; when the place changes layer, its triggers follow. */
async function moveTriggersWithPlace(ctx: ServiceContext, place: PlaceDoc) {
  const triggers = await ctx.store.triggers.list(place.app_id, { placeId: place._id });
  if (triggers.length === 0) return;
  await ctx.store.triggers.followPlace(place.app_id, place._id, place.layer_id);
  for (const t of triggers) await ctx.changes.publish({ kind: 'trigger', op: 'saved', doc: { ...t, layer_id: place.layer_id } });
}

async function deletePlaceNow(ctx: ServiceContext, appId: string, placeId: string) {
  await removePlaces(ctx, appId, [await requirePlace(ctx, appId, placeId)]);
  return { result: 'ok' as const };
}

export function deletePlace(ctx: ServiceContext, appId: string, placeId: string) {
  return removing(ctx, appId, () => deletePlaceNow(ctx, appId, placeId));
}

export type PlaceSort = PlaceOrder;

export interface PlaceListQuery {
  layer_id?: string;
  include_unnamed?: number | boolean;
  /** place/list_unnamed: the places without a name only. */
  only_unnamed?: boolean;
  sort?: PlaceSort;
  offset?: number;
  limit?: number;
}

/** place/list: one layer (the default layer unless named), named places unless include_unnamed. */
export async function listPlaces(ctx: ServiceContext, viewer: Viewer, q: PlaceListQuery) {
  const layer = await requireVisibleLayer(ctx, viewer, q.layer_id ?? viewer.defaultLayerId);
  const names: PlaceNames = q.only_unnamed ? 'unnamed' : q.include_unnamed ? 'all' : 'named';
  const page = pageRequest(q);
  const { items, total } = await ctx.store.places.pageOnLayer(viewer.appId, layer._id, names, q.sort ?? 'visits', page);
  const now = ctx.now();
  return { places: items.map((p) => placeObject(p, now, viewer.timeZone)), paging: pagingObject(page, total, items.length) };
}

export interface NearbyQuery {
  layer_id?: string;
  latitude?: number;
  longitude?: number;
  /** Metres between the point and a place's edge; absent: only places that contain the point. */
  distance?: number;
  offset?: number;
  limit?: number;
}

/** The point place/nearby asks about: the one sent, else (reference §place/nearby) the user's last location. */
async function nearbyPoint(ctx: ServiceContext, viewer: Viewer, q: NearbyQuery): Promise<{ latitude: number; longitude: number }> {
  const { latitude, longitude } = q;
  if (latitude !== undefined && longitude !== undefined) return { latitude, longitude };
  // Half a point is a mistake, not a request for the default; an application has no location.
  if (latitude !== undefined || longitude !== undefined || viewer.userId === undefined) {
    throw apiError('missing_input', `querystring.${latitude === undefined ? 'latitude' : 'longitude'} is required`);
  }
  const last = await ctx.store.lastLocations.of(viewer.appId, viewer.userId);
  if (!last) throw apiError('missing_input', 'querystring.latitude is required: no location has been recorded for this user');
  return last;
}

/**
 * place/nearby: places of one layer that hold the point or whose edge is within `distance` of it,
 * nearest centre first, each with its `distance` from its centre in metres.
 */
export async function nearbyPlaces(ctx: ServiceContext, viewer: Viewer, q: NearbyQuery) {
  const layer = await requireVisibleLayer(ctx, viewer, q.layer_id ?? viewer.defaultLayerId);
  const at = await nearbyPoint(ctx, viewer, q);
  const places = await ctx.store.places.onLayer(viewer.appId, layer._id);
  const slack = q.distance ?? 0;
  const hits: Array<{ p: PlaceDoc; d: number }> = [];
  for (const p of places) {
    const d = placeDistance(p, at.latitude, at.longitude, slack);
    if (d !== null) hits.push({ p, d });
  }
  hits.sort((a, b) => a.d - b.d || a.p._id.localeCompare(b.p._id));
  const page = pageRequest(q);
  const slice = hits.slice(page.offset, page.offset + page.limit);
  const now = ctx.now();
  return {
    places: slice.map(({ p, d }) => ({ ...placeObject(p, now, viewer.timeZone), distance: Math.round(d * 100) / 100 })),
    paging: pagingObject(page, hits.length, slice.length),
  };
}
