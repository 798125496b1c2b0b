// The box around a set of places (a layer's): pure geometry, for the API's layer objects and the
// callback payload alike. A circle counts as its circle, a polygon as its positions, a corridor as
// its line widened by half its width.
import { boxAround, haversineM } from './distance.js';
import { geometryBox, type PlaceGeometry } from './geometry.js';

const deg = (d: number) => Math.round(d * 1e7) / 1e7;

type Circle = { latitude: number; longitude: number; radius: number; geometry?: PlaceGeometry; width?: number };
type LatLng = { latitude: number; longitude: number };

export interface Bounds {
  sw: LatLng;
  ne: LatLng;
  center: LatLng;
  /** Metres from the centre to a corner: a circle that covers every place. */
  radius: number;
}

function shapeBox(g: PlaceGeometry, width: number) {
  const b = geometryBox(g);
  if (width === 0) return b;
  const lo = boxAround(b.minLat, b.minLon, width / 2);
  const hi = boxAround(b.maxLat, b.maxLon, width / 2);
  return { minLat: lo.minLat, maxLat: hi.maxLat, minLon: lo.minLon, maxLon: hi.maxLon };
}

/**
 * The box around every place of a layer, or false when it has none (reference §4.5).
 * Longitudes are clamped to [-180, 180]: a layer that straddles the antimeridian gets a box
 * spanning the whole width rather than a wrapped one.
 */
export function boundsOf(places: Circle[]): Bounds | false {
  if (places.length === 0) return false;
  let minLat = 90, maxLat = -90, minLon = 180, maxLon = -180;
  for (const p of places) {
    const b = p.geometry === undefined ? boxAround(p.latitude, p.longitude, p.radius) : shapeBox(p.geometry, p.width ?? 0);
    minLat = Math.min(minLat, b.minLat);
    maxLat = Math.max(maxLat, b.maxLat);
    minLon = Math.min(minLon, Math.max(-180, b.minLon));
    maxLon = Math.max(maxLon, Math.min(180, b.maxLon));
  }
  const center = { latitude: deg((minLat + maxLat) / 2), longitude: deg((minLon + maxLon) / 2) };
  return {
    sw: { latitude: deg(minLat), longitude: deg(minLon) },
    ne: { latitude: deg(maxLat), longitude: deg(maxLon) },
    center,
    radius: Math.round(haversineM(center.latitude, center.longitude, maxLat, maxLon) * 100) / 100,
  };
}
