// Dynamic spatial index over the active geofences, so a point is only tested against the few
// geofences whose leave area (the place and its margin) could contain it: the tree holds boxes, the
// exact test (fence-zone.ts) runs after. Backed by rbush (a maintained R*-tree) because geofences
// come and go while points flow; a packed index would need rebuilds.
import RBush from 'rbush';
import { boxAround } from './distance.js';
import { DEFAULT_HYSTERESIS, leaveMarginM, outerRadiusM, type Hysteresis } from './hysteresis.js';
import { shapeBoxAround, type Shape } from './shape.js';

export interface IndexableFence {
  key: string;
  lat: number;
  lon: number;
  radius: number;
  /** A polygon or corridor; absent for a circle. */
  shape?: Shape;
}

/** One geofence in the tree: the box of its outer (leave) area, in degrees. */
export interface FenceEntry<F extends IndexableFence> {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  fence: F;
  /** Crosses the antimeridian or spans every longitude: kept out of the tree, tested linearly. */
  wide: boolean;
  allLon: boolean;
}

/** Does the entry's box contain the point? Cheap enough to run on every cached candidate. */
export function entryContains(e: FenceEntry<IndexableFence>, lat: number, lon: number): boolean {
  if (lat < e.minY || lat > e.maxY) return false;
  if (lon >= e.minX && lon <= e.maxX) return true;
  if (!e.wide) return false;
  if (e.allLon) return true;
  const l = lon < 0 ? lon + 360 : lon - 360;
  return l >= e.minX && l <= e.maxX;
}

export class FenceIndex<F extends IndexableFence> {
  private readonly tree = new RBush<FenceEntry<F>>();
  private readonly byKey = new Map<string, FenceEntry<F>>();
  /** Rare entries the tree cannot hold as one box (antimeridian, poles). */
  private wideEntries: FenceEntry<F>[] = [];
  private readonly probe = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** Bumped on every change, so callers can tell when a cached query result went stale. */
  version = 0;

  constructor(private readonly hysteresis: Hysteresis = DEFAULT_HYSTERESIS) {}

  get size(): number {
    return this.byKey.size;
  }

  get(key: string): F | undefined {
    return this.byKey.get(key)?.fence;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  values(): IterableIterator<F> {
    const it = this.byKey.values();
    return (function* () {
      for (const e of it) yield e.fence;
    })();
  }

  /** Insert or replace (by key). Bulk-loads when given many new fences at once. */
  upsert(fences: readonly F[]): void {
    const fresh: FenceEntry<F>[] = [];
    for (const f of fences) {
      this.removeEntry(f.key);
      const e = this.entryOf(f);
      this.byKey.set(f.key, e);
      if (e.wide) this.wideEntries.push(e);
      else fresh.push(e);
    }
    if (fresh.length > 32) this.tree.load(fresh);
    else for (const e of fresh) this.tree.insert(e);
    if (fences.length > 0) this.version++;
  }

  remove(keys: readonly string[]): number {
    let n = 0;
    for (const k of keys) if (this.removeEntry(k)) n++;
    if (n > 0) this.version++;
    return n;
  }

  clear(): void {
    this.tree.clear();
    this.byKey.clear();
    this.wideEntries = [];
    this.version++;
  }

  /** Geofences whose outer box contains the point (candidates: test the distance next). */
  query(lat: number, lon: number, out: F[] = []): F[] {
    const p = this.probe;
    p.minX = p.maxX = lon;
    p.minY = p.maxY = lat;
    for (const e of this.tree.search(p)) out.push(e.fence);
    for (const e of this.wideEntries) if (entryContains(e, lat, lon)) out.push(e.fence);
    return out;
  }

  /**
   * Entries whose box intersects the given box, wide entries always included. For any point in
   * the box, every geofence that could contain it is in the result: that is what makes a per-user
   * "nearby" cache exact.
   */
  queryBox(minLat: number, minLon: number, maxLat: number, maxLon: number): FenceEntry<F>[] {
    const p = this.probe;
    p.minX = minLon;
    p.maxX = maxLon;
    p.minY = minLat;
    p.maxY = maxLat;
    const found = this.tree.search(p);
    for (const e of this.wideEntries) found.push(e);
    return found;
  }

  private removeEntry(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return false;
    this.byKey.delete(key);
    if (e.wide) this.wideEntries = this.wideEntries.filter((w) => w !== e);
    else this.tree.remove(e);
    return true;
  }

  private entryOf(f: F): FenceEntry<F> {
    const b = f.shape === undefined
      ? boxAround(f.lat, f.lon, outerRadiusM(f.radius, this.hysteresis))
      : shapeBoxAround(f.shape, leaveMarginM(f.radius, this.hysteresis));
    const wide = b.allLon || b.minLon < -180 || b.maxLon > 180;
    return { minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat, fence: f, wide, allLon: b.allLon };
  }
}
