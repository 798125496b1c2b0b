// Where a point is against a place of any shape, for the reads that ask it outside the engine
// (place/nearby): whether the place holds the point or comes within some metres of it, measured as
// the engine measures (src/geo/fence-zone.ts).
import { haversineM } from '../geo/distance.js';
import { geometryBox } from '../geo/geometry.js';
import { prepareShape } from '../geo/shape.js';
import { edgeDistanceM } from '../geo/shape-measure.js';
import type { PlaceDoc } from '../store/documents.js';

const M_PER_DEG_LAT = 111_195;

/**
 * Metres from the point to the place's centre when the place holds the point or its edge is within
 * `slack` metres of it; null when it is farther.
 */
export function placeDistance(p: PlaceDoc, lat: number, lon: number, slack: number): number | null {
  const centre = haversineM(lat, lon, p.latitude, p.longitude);
  if (p.geometry === undefined) return centre - p.radius <= slack ? centre : null;
  // Most shapes are far: their box (widened by the slack and a corridor's half width) rules them out
  // before the shape is made ready.
  const b = geometryBox(p.geometry);
  const m = slack + (p.width ?? 0) / 2;
  const dLat = m / M_PER_DEG_LAT + 1e-6;
  if (lat < b.minLat - dLat || lat > b.maxLat + dLat) return null;
  const dLon = dLat / Math.max(0.01, Math.cos((Math.max(Math.abs(b.minLat), Math.abs(b.maxLat)) + dLat) * (Math.PI / 180)));
  const inLon = (l: number) => l >= b.minLon - dLon && l <= b.maxLon + dLon;
  if (!inLon(lon) && !inLon(lon + 360) && !inLon(lon - 360)) return null;
  return edgeDistanceM(prepareShape(p.geometry, p.width), lat, lon) <= slack ? centre : null;
}
