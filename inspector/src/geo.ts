// Distances and the hysteresis band as the engine draws them (the constants come from the service:
// /inspector/settings.json).
import type { Place, Settings } from './api';

const R = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

export function distanceM(aLat: number, aLon: number, bLat: number, bLon: number): number {
  const dLat = rad(bLat - aLat);
  const dLon = rad(bLon - aLon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(aLat)) * Math.cos(rad(bLat)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Beyond the radius plus this margin a point is outside; between the two it changes nothing. */
export function leaveMarginM(radius: number, s: Settings): number {
  return Math.max(s.hysteresis.leave_margin_min_m, s.hysteresis.leave_margin_ratio * radius);
}

/**
 * Metres outside a polygon's or corridor's boundary (negative inside), measured in a flat frame at
 * the point as the engine does (src/geo/shape-measure.ts; the page imports no server code).
 */
export function edgeM(p: Place, lat: number, lon: number): number {
  const g = p.geometry!;
  const kx = Math.cos(rad(lat)) * rad(R);
  const ky = rad(R);
  const lines = g.type === 'LineString' ? [g.coordinates] : g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
  let best = Infinity;
  let crossings = 0;
  for (const line of lines) {
    for (let i = 1; i < line.length; i++) {
      const [ax, ay] = line[i - 1]!;
      const [bx, by] = line[i]!;
      if (ay > lat !== by > lat && lon < ((bx - ax) * (lat - ay)) / (by - ay) + ax) crossings++;
      const px = (ax - lon) * kx, py = (ay - lat) * ky, ex = (bx - ax) * kx, ey = (by - ay) * ky;
      const len2 = ex * ex + ey * ey;
      const t = len2 > 0 ? Math.min(1, Math.max(0, -(px * ex + py * ey) / len2)) : 0;
      best = Math.min(best, Math.hypot(px + t * ex, py + t * ey));
    }
  }
  if (g.type === 'LineString') return best - (p.width ?? 0) / 2;
  // Each polygon of a MultiPolygon is counted on its own: inside any of them is inside.
  if (g.type === 'MultiPolygon') return g.coordinates.some((rings) => edgeM({ ...p, geometry: { type: 'Polygon', coordinates: rings } }, lat, lon) < 0) ? -best : best;
  return crossings % 2 === 1 ? -best : best;
}

/** The zone of a point for a place of any shape (machines/README.md "Zones"), accuracy aside. */
export function zoneOf(p: Place, lat: number, lon: number, s: Settings): 'in' | 'band' | 'out' {
  const outside = p.geometry ? edgeM(p, lat, lon) : distanceM(lat, lon, p.latitude, p.longitude) - p.radius;
  return outside <= 0 ? 'in' : outside <= leaveMarginM(p.radius, s) ? 'band' : 'out';
}
