// Great-circle distances for the detect stage. Haversine is the rule (machines/README.md); the
// bounding helpers let the spatial index and the per-user caches reject far geofences without it.

/** Mean Earth radius (IUGG), the sphere the trigger rules are defined on. */
export const EARTH_RADIUS_M = 6371008.8;

const RAD = Math.PI / 180;

/** Haversine distance in metres between two WGS84 points given in degrees. */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const sinDLat = Math.sin((lat2 - lat1) * RAD * 0.5);
  const sinDLon = Math.sin((lon2 - lon1) * RAD * 0.5);
  const h = sinDLat * sinDLat + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * sinDLon * sinDLon;
  // min() guards the asin domain against rounding just above 1 for antipodal points.
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Angular radius, in degrees of latitude, of a circle of `metres` on the sphere. */
export function metresToLatDeg(metres: number): number {
  return metres / EARTH_RADIUS_M / RAD;
}

export interface DegreeBox {
  minLat: number;
  maxLat: number;
  minLon: number;
  maxLon: number;
  /** True when the box covers every longitude (circle around a pole or wider than a hemisphere). */
  allLon: boolean;
}

/**
 * Smallest lat/lon box containing every point within `metres` of (lat, lon). Exact for a
 * spherical cap (the widest longitude offset is asin(sin δ / cos φ)), padded by a hair so the
 * box never excludes a point that haversine would include. Longitudes may leave [-180, 180]
 * when the circle crosses the antimeridian; callers wrap.
 */
export function boxAround(lat: number, lon: number, metres: number): DegreeBox {
  const delta = metres / EARTH_RADIUS_M; // radians
  const pad = 1e-9;
  const dLat = delta / RAD + pad;
  const minLat = lat - dLat;
  const maxLat = lat + dLat;
  if (delta >= Math.PI / 2 || maxLat >= 90 || minLat <= -90) {
    return { minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat), minLon: -180, maxLon: 180, allLon: true };
  }
  const ratio = Math.sin(delta) / Math.cos(lat * RAD);
  if (ratio >= 1) return { minLat, maxLat, minLon: -180, maxLon: 180, allLon: true };
  const dLon = Math.asin(ratio) / RAD + pad;
  return { minLat, maxLat, minLon: lon - dLon, maxLon: lon + dLon, allLon: false };
}

/** The point `metres` away from (lat, lon) along `bearingDeg` (simulators, tests, benchmarks). */
export function destinationPoint(lat: number, lon: number, bearingDeg: number, metres: number): { lat: number; lon: number } {
  const d = metres / EARTH_RADIUS_M;
  const b = bearingDeg * RAD;
  const p1 = lat * RAD;
  const sinP2 = Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b);
  const p2 = Math.asin(Math.max(-1, Math.min(1, sinP2)));
  const l2 = lon * RAD + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * sinP2);
  let lon2 = l2 / RAD;
  lon2 = ((((lon2 + 180) % 360) + 360) % 360) - 180;
  return { lat: p2 / RAD, lon: lon2 };
}
