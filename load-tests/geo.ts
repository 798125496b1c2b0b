// Geometry of the simulator, written here and not imported from src/geo so that the oracle is an
// independent reading of machines/README.md: haversine distance on the sphere the rules name, and
// small east/north offsets for moving the simulated phones.

export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

export interface LatLng {
  lat: number;
  lng: number;
}

export function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Metres per degree of latitude, and of longitude at `lat`. */
export function metresPerDegree(lat: number): { lat: number; lng: number } {
  const perLat = EARTH_RADIUS_M * RAD;
  return { lat: perLat, lng: perLat * Math.cos(lat * RAD) };
}

/** The point `east`/`north` metres away (flat approximation; fine over the few km a phone moves). */
export function offset(from: LatLng, east: number, north: number): LatLng {
  const m = metresPerDegree(from.lat);
  return { lat: from.lat + north / m.lat, lng: from.lng + east / m.lng };
}

/** East/north metres from `a` to `b` (same flat approximation). */
export function delta(a: LatLng, b: LatLng): { east: number; north: number } {
  const m = metresPerDegree((a.lat + b.lat) / 2);
  return { east: (b.lng - a.lng) * m.lng, north: (b.lat - a.lat) * m.lat };
}
