// Geographic reads of layers: layer/nearby (reference §4.5: the layers whose circle, set by
// latitude/longitude/radius at layer/create, holds a point) and layer/user_clusters/:id (seen only
// in DinoDeals: where the layer's users are, their last locations grouped into clusters and singles).
import { apiError } from '../errors.js';
import { haversineM } from '../geo/distance.js';
import type { LayerDoc, LocationDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { layerObject } from './geo-objects.js';
import { layerVisible } from './layers.js';
import { requireLayer } from './subscriptions.js';
import type { Viewer } from './viewer.js';

export interface LayerNearbyQuery {
  latitude?: number;
  longitude?: number;
  geocode?: string;
  application_id?: string;
}

/** layer/nearby: visible layers whose circle holds the point, nearest centre first. */
export async function nearbyLayers(ctx: ServiceContext, viewer: Viewer, q: LayerNearbyQuery) {
  if (q.geocode !== undefined) throw apiError('invalid_input', 'geocode is not supported: send latitude and longitude');
  if (q.latitude === undefined || q.longitude === undefined) throw apiError('missing_input', `${q.latitude === undefined ? 'latitude' : 'longitude'} is required`);
  // Every layer here is the caller's application's: another application's id matches none.
  if (q.application_id !== undefined && q.application_id !== viewer.appId) return { nearby: [] };
  const layers = await ctx.store.layers.withCentre(viewer.appId);
  const hits: Array<{ layer: LayerDoc; d: number }> = [];
  for (const layer of layers) {
    if (layer.latitude === undefined || layer.longitude === undefined) continue;
    const d = haversineM(q.latitude, q.longitude, layer.latitude, layer.longitude);
    // A layer with a centre but no radius is "near" only at its centre.
    if (d > (layer.radius ?? 0)) continue;
    if (await layerVisible(ctx, viewer, layer)) hits.push({ layer, d });
  }
  hits.sort((a, b) => a.d - b.d || a.layer._id.localeCompare(b.layer._id));
  return { nearby: hits.map(({ layer }) => layerObject(layer)) };
}

/** Users within this many metres of a cluster's first member join it. */
const CLUSTER_M = 1000;
/** Last locations clustered at most (by user id). */
const MAX_CLUSTERED = 100_000;

/** layer/user_clusters/:id: the last locations of the layer's users (every user for the default layer). */
export async function userClusters(ctx: ServiceContext, appId: string, layerId: string) {
  const layer = await requireLayer(ctx, appId, layerId);
  const lasts = layer.type === 'default'
    ? await ctx.store.lastLocations.ofApp(appId, MAX_CLUSTERED)
    : (await ctx.store.lastLocations.ofUsers(appId, (await ctx.store.subscriptions.forLayer(appId, layer._id)).map((s) => s.user_id)))
      .sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0));
  const groups: LocationDoc[][] = [];
  for (const p of lasts) {
    const g = groups.find((members) => haversineM(members[0].latitude, members[0].longitude, p.latitude, p.longitude) <= CLUSTER_M);
    if (g) g.push(p);
    else groups.push([p]);
  }
  const clusters = [];
  const singles = [];
  for (const g of groups) {
    if (g.length === 1) {
      singles.push({ lat: g[0].latitude, lng: g[0].longitude });
      continue;
    }
    const center = { latitude: g.reduce((s, p) => s + p.latitude, 0) / g.length, longitude: g.reduce((s, p) => s + p.longitude, 0) / g.length };
    const radius = Math.max(...g.map((p) => haversineM(center.latitude, center.longitude, p.latitude, p.longitude)));
    clusters.push({ bounds: { center, radius: Math.round(radius) }, count: g.length });
  }
  return { clusters, singles };
}
