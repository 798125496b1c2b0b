// The closest approach of a replayed track to each place of its scope: why a replay that fired
// nothing fired nothing ("passed 150 m from the centre, 50 m outside the 100 m radius"). Measured
// as the zone rule measures (src/geo/hysteresis.ts): from a circle's centre, or against a polygon's
// or corridor's edge. Pure; its work is points × places, within the replay's own limit.
import { haversineM } from '../geo/distance.js';
import { leaveMarginM, resolveHysteresis, type HysteresisOptions } from '../geo/hysteresis.js';
import { edgeDistanceM } from '../geo/shape-measure.js';
import type { TrackRow } from '../schemas/track.js';
import type { Geofence } from '../../workers/protocol.js';

export interface ClosestApproach {
  placeId: string;
  /** The scope's triggers on the place, sorted. */
  triggerIds: string[];
  shape: 'circle' | 'polygon' | 'corridor';
  /** The circle's radius (a shape's: the largest circle inside it). */
  radius: number;
  /** Metres outside the boundary at the closest point; negative inside. */
  outsideM: number;
  /** Metres from the centre at that point. */
  centreM: number;
  /** The leave margin of the place. */
  marginM: number;
  /** The closest point (the first of equals, in device-time order). */
  point: TrackRow;
}

/** Per place of `fences`, the point of `rows` least outside its boundary; by place id. */
export function closestApproaches(fences: readonly Geofence[], rows: readonly TrackRow[], hysteresis?: HysteresisOptions): ClosestApproach[] {
  if (rows.length === 0) return [];
  const h = resolveHysteresis(hysteresis);
  const byPlace = new Map<string, { fence: Geofence; triggers: Set<string> }>();
  for (const f of fences) {
    const known = byPlace.get(f.placeId);
    if (known) known.triggers.add(f.triggerId);
    else byPlace.set(f.placeId, { fence: f, triggers: new Set([f.triggerId]) });
  }
  const ordered = [...rows].sort((a, b) => a.at - b.at);
  const out: ClosestApproach[] = [];
  for (const [placeId, { fence: f, triggers }] of byPlace) {
    let best = Infinity;
    let at = ordered[0]!;
    for (const r of ordered) {
      const edge = f.shape ? edgeDistanceM(f.shape, r.lat, r.lon) : haversineM(f.lat, f.lon, r.lat, r.lon) - f.radius;
      if (edge < best) {
        best = edge;
        at = r;
      }
    }
    out.push({
      placeId,
      triggerIds: [...triggers].sort(),
      shape: f.shape?.kind ?? 'circle',
      radius: f.radius,
      outsideM: best,
      centreM: haversineM(f.lat, f.lon, at.lat, at.lon),
      marginM: leaveMarginM(f.radius, h),
      point: at,
    });
  }
  return out.sort((a, b) => (a.placeId < b.placeId ? -1 : a.placeId > b.placeId ? 1 : 0));
}
