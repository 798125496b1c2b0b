// Polygon and corridor places of the simulated world, and the oracle's reading of them. The zone of
// a point is judged by turf (point in polygon, geodesic distance to the edges), not by the
// service's src/geo, so the oracle stays an independent reading of machines/README.md "Zones".
//
// Every shape is kept small enough that the radius the service gives it (the largest circle inside
// it, or half a corridor's width) is under 100 m: with the default zone parameters its leave margin
// is then the 20 m minimum and its accuracy bound the 100 m minimum, whatever centre the service
// picks, so the oracle needs nothing from the service's answer (shapesAllowed says when that holds).
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { lineString, point, polygon } from '@turf/helpers';
import { pointToLineDistance } from '@turf/point-to-line-distance';
import { offset, type LatLng } from './geo.js';
import type { Rng } from './rng.js';

export type ShapeGeometry =
  | { type: 'Polygon'; coordinates: Array<Array<[number, number]>> }
  | { type: 'LineString'; coordinates: Array<[number, number]> };

export interface PlaceShape {
  geometry: ShapeGeometry;
  /** A corridor's width, metres. */
  width?: number;
  /** A circle round the centre that lies inside the shape (where phones head for), metres. */
  inside: number;
  /** The farthest the shape reaches from its centre, metres. */
  reach: number;
}

/** The most the service's radius of these shapes can be (see the header). */
export const SHAPE_RADIUS_MAX_M = 100;

const round7 = (x: number) => Math.round(x * 1e7) / 1e7;
const lngLat = (p: LatLng): [number, number] => [round7(p.lng), round7(p.lat)];

/**
 * A star-shaped polygon of 6–14 corners 30–96 m from the centre, or a corridor: a bent line of two
 * legs of 100–400 m through the centre, 30–150 m wide.
 */
export function makeShape(rng: Rng, centre: LatLng): PlaceShape {
  if (rng.chance(0.6)) {
    const n = rng.int(6, 14);
    const base = rng.range(30, 60);
    const turn = rng.range(0, 2 * Math.PI);
    let reach = 0;
    const ring: Array<[number, number]> = [];
    for (let k = 0; k < n; k++) {
      const a = turn + ((k + rng.range(-0.3, 0.3)) * 2 * Math.PI) / n;
      const r = base * rng.range(1, 1.6);
      reach = Math.max(reach, r);
      ring.push(lngLat(offset(centre, r * Math.cos(a), r * Math.sin(a))));
    }
    ring.push([...ring[0]!]);
    // Corners at least `base` out, at most 1.3 turns of 1/n apart: the circle of base / 2 is inside.
    return { geometry: { type: 'Polygon', coordinates: [ring] }, inside: base / 2, reach: reach + 1 };
  }
  const width = Math.round(rng.range(30, 150));
  const legs = [rng.range(100, 400), rng.range(100, 400)];
  const a1 = rng.range(0, 2 * Math.PI);
  const a2 = a1 + Math.PI + rng.range(-1, 1);
  const line = [offset(centre, legs[0]! * Math.cos(a1), legs[0]! * Math.sin(a1)), centre, offset(centre, legs[1]! * Math.cos(a2), legs[1]! * Math.sin(a2))];
  return { geometry: { type: 'LineString', coordinates: line.map(lngLat) }, width, inside: (width / 2) * 0.8, reach: Math.max(...legs) + width / 2 + 1 };
}

/** Whether the zone parameters let the oracle judge these shapes without the service's radius. */
export function shapesAllowed(z: { leaveMarginMinM: number; leaveMarginRatio: number; maxAccuracyMinM: number }): boolean {
  return z.leaveMarginRatio * SHAPE_RADIUS_MAX_M <= z.leaveMarginMinM && z.maxAccuracyMinM >= SHAPE_RADIUS_MAX_M;
}

/** Metres from the point to the shape's boundary, negative inside (turf: geodesic distances). */
export function shapeEdgeM(s: Pick<PlaceShape, 'geometry' | 'width'>, lat: number, lng: number): number {
  const at = point([lng, lat]);
  if (s.geometry.type === 'LineString') return pointToLineDistance(at, lineString(s.geometry.coordinates), { units: 'meters' }) - (s.width ?? 0) / 2;
  let d = Infinity;
  for (const ring of s.geometry.coordinates) d = Math.min(d, pointToLineDistance(at, lineString(ring), { units: 'meters' }));
  return booleanPointInPolygon(at, polygon(s.geometry.coordinates)) ? -d : d;
}
