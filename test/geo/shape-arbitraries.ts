// Random simple shapes for the geometry's property tests: star-shaped polygons (positions at
// increasing bearings round a centre, so no edge crosses another), holes inside their inner radius,
// and lines. Shared by the shape tests.
import fc from 'fast-check';
import { destinationPoint } from '../../src/geo/distance.js';
import type { Position } from '../../src/geo/geometry.js';

export interface Star {
  lat: number;
  lon: number;
  ring: Position[];
}

/** A closed ring of `radii.length` positions at increasing bearings round (lat, lon). */
export function starRing(lat: number, lon: number, radii: number[], turn = 0, clockwise = false): Position[] {
  const n = radii.length;
  const ring: Position[] = radii.map((r, i) => {
    const bearing = turn + ((clockwise ? n - i : i) * 360) / n;
    const p = destinationPoint(lat, lon, bearing, r);
    return [p.lon, p.lat];
  });
  ring.push([...ring[0]!] as Position);
  return ring;
}

export const centreArb = fc.record({
  lat: fc.double({ min: -60, max: 60, noNaN: true }),
  lon: fc.double({ min: -179, max: 179, noNaN: true }),
});

/** A star polygon of 3–60 corners 60–600 m from its centre, with an optional hole within 50 m of it. */
export const starPolygonArb = fc
  .record({
    c: centreArb,
    radii: fc.array(fc.double({ min: 60, max: 600, noNaN: true }), { minLength: 3, maxLength: 60 }),
    turn: fc.double({ min: 0, max: 360, noNaN: true }),
    hole: fc.option(fc.array(fc.double({ min: 5, max: 50, noNaN: true }), { minLength: 3, maxLength: 12 }), { nil: undefined }),
  })
  .map(({ c, radii, turn, hole }) => {
    const rings = [starRing(c.lat, c.lon, radii, turn)];
    if (hole) rings.push(starRing(c.lat, c.lon, hole, turn / 2, true));
    return { lat: c.lat, lon: c.lon, rings };
  });

/** A point within `m` metres of (lat, lon). */
export const nearArb = (m: number) =>
  fc.record({ bearing: fc.double({ min: 0, max: 360, noNaN: true }), d: fc.double({ min: 0, max: m, noNaN: true }) });

/** A line of 2–20 positions, each step 20–400 m, wandering from a centre. */
export const lineArb = fc
  .record({
    c: centreArb,
    steps: fc.array(fc.record({ bearing: fc.double({ min: 0, max: 360, noNaN: true }), d: fc.double({ min: 20, max: 400, noNaN: true }) }), { minLength: 1, maxLength: 19 }),
  })
  .map(({ c, steps }) => {
    const line: Position[] = [[c.lon, c.lat]];
    let at = { lat: c.lat, lon: c.lon };
    for (const s of steps) {
      at = destinationPoint(at.lat, at.lon, s.bearing, s.d);
      line.push([at.lon, at.lat]);
    }
    return { lat: c.lat, lon: c.lon, line };
  });
