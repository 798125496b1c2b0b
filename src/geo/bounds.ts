// The box around a set of circles (a layer's places): pure geometry, for the API's layer objects
// and the callback payload alike.
import { boxAround, haversineM } from './distance.js';

const deg = (d: number) => Math.round(d * 1e7) / 1e7;

type Circle = { latitude: number; longitude: number; radius: number };
type LatLng = { latitude: number; longitude: number };

export interface Bounds {
  sw: LatLng;
  ne: LatLng;
  center: LatLng;
  /** Metres from the centre to a corner: a circle that covers every place. */
  radius: number;
}

/**
 * The box around every place circle of a layer, or false when it has none (reference §4.5).
 * Longitudes are clamped to [-180, 180]: a layer that straddles the antimeridian gets a box
 * spanning the whole width rather than a wrapped one.
 */
export function boundsOf(places: Circle[]): Bounds | false {
  if (places.length === 0) return false;
  let minLat = 90, maxLat = -90, minLon = 180, maxLon = -180;
  for (const p of places) {
    const b = boxAround(p.latitude, p.longitude, p.radius);
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
