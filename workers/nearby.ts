// The user's nearby cache: the geofences of the user's layers around the last index query, so that
// most points cost a 4-comparison check instead of an rbush query.
import type { FenceEntry, FenceIndex } from '../src/geo/fence-index.js';
import type { Geofence } from './protocol.js';
import { EMPTY_BOX, EMPTY_NEAR, type UserSlot } from './user-slot.js';

/** Whether the cache answers for a point at (lat, lon). */
export function nearbyValid(u: UserSlot, fenceVersion: number, lat: number, lon: number): boolean {
  return u.nearVersion === fenceVersion && lat >= u.nMinLat && lat <= u.nMaxLat && lon >= u.nMinLon && lon <= u.nMaxLon;
}

/** Query the user's layers around (lat, lon), `halfLat` degrees each way, and cache the result. */
export function refreshNearby(
  u: UserSlot,
  byLayer: ReadonlyMap<string, FenceIndex<Geofence>>,
  fenceVersion: number,
  halfLat: number,
  lat: number,
  lon: number,
): FenceEntry<Geofence>[] {
  const dLon = Math.min(180, halfLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6));
  u.nMinLat = lat - halfLat;
  u.nMaxLat = lat + halfLat;
  u.nMinLon = lon - dLon;
  u.nMaxLon = lon + dLon;
  u.nearVersion = fenceVersion;
  let found: FenceEntry<Geofence>[] | null = null;
  for (const layerId of u.layers) {
    const idx = byLayer.get(layerId);
    if (idx === undefined) continue;
    const part = idx.queryBox(u.nMinLat, u.nMinLon, u.nMaxLat, u.nMaxLon);
    if (part.length > 0) found = found === null ? part : found.concat(part);
  }
  if (found === null) {
    u.near = EMPTY_NEAR;
    u.nearBox = EMPTY_BOX;
    return EMPTY_NEAR;
  }
  const w = found.length;
  // Key order makes same-point outcomes (rate limit across places, visit dedupe) independent of
  // the tree's shape, so a restored shard decides exactly like the one it replaces.
  if (w > 1) found.sort(byFenceKey);
  u.near = w === 0 ? EMPTY_NEAR : found;
  const box: number[] = [];
  for (let j = 0; j < w; j++) {
    const e = found[j]!;
    // Wide entries pass the longitude test here and get the exact wrap-aware test after.
    box.push(e.minY, e.maxY, e.wide ? -Infinity : e.minX, e.wide ? Infinity : e.maxX);
  }
  u.nearBox = box;
  return u.near;
}

function byFenceKey(a: FenceEntry<Geofence>, b: FenceEntry<Geofence>): number {
  return a.fence.key < b.fence.key ? -1 : a.fence.key > b.fence.key ? 1 : 0;
}
