// A shard's replica of the geofences: every geofence by key, one spatial index per layer (a user
// only ever searches the layers it belongs to), and a version bumped on every change so that a
// user's nearby cache from an older version is known to be stale.
import type { FenceEntry } from '../src/geo/fence-index.js';
import { FenceIndex } from '../src/geo/fence-index.js';
import type { Hysteresis } from '../src/geo/hysteresis.js';
import { nearbyValid, refreshNearby } from './nearby.js';
import type { Geofence } from './protocol.js';
import type { UserSlot } from './user-slot.js';

export class FenceReplica {
  readonly fences = new Map<string, Geofence>();
  private readonly byLayer = new Map<string, FenceIndex<Geofence>>();
  private version = 0;
  /** Index queries made (nearby cache misses), for stats. */
  indexQueries = 0;

  constructor(
    private readonly h: Hysteresis,
    /** Half the nearby box's height, degrees of latitude. */
    private readonly nearHalfLat: number,
  ) {}

  /** Add or replace geofences; the keys of those that stopped being one-time, or null. */
  upsert(fences: readonly Geofence[]): Set<string> | null {
    const perLayer = new Map<string, Geofence[]>();
    let released: Set<string> | null = null;
    for (const f of fences) {
      const prev = this.fences.get(f.key);
      if (prev !== undefined && prev.layerId !== f.layerId) this.unindex(prev);
      if (prev !== undefined && prev.oneTime && !f.oneTime) (released ??= new Set()).add(f.key);
      this.fences.set(f.key, f);
      let list = perLayer.get(f.layerId);
      if (!list) perLayer.set(f.layerId, (list = []));
      list.push(f);
    }
    for (const [layerId, list] of perLayer) {
      let idx = this.byLayer.get(layerId);
      if (!idx) this.byLayer.set(layerId, (idx = new FenceIndex<Geofence>(this.h)));
      idx.upsert(list);
    }
    if (fences.length > 0) this.version++;
    return released;
  }

  /** Drop geofences; how many of them were held. */
  remove(keys: readonly string[]): number {
    let removed = 0;
    for (const k of keys) {
      const f = this.fences.get(k);
      if (f === undefined) continue;
      this.unindex(f);
      this.fences.delete(k);
      removed++;
    }
    if (removed > 0) this.version++;
    return removed;
  }

  /** The user's cached member geofences around (lat, lon), refreshed when stale or left (nearby.ts). */
  nearFor(u: UserSlot, lat: number, lon: number): FenceEntry<Geofence>[] {
    if (nearbyValid(u, this.version, lat, lon)) return u.near;
    this.indexQueries++;
    return refreshNearby(u, this.byLayer, this.version, this.nearHalfLat, lat, lon);
  }

  private unindex(f: Geofence): void {
    const idx = this.byLayer.get(f.layerId);
    if (idx === undefined) return;
    idx.remove([f.key]);
    if (idx.size === 0) this.byLayer.delete(f.layerId);
  }
}
