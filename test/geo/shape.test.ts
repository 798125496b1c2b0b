// The geometry of shaped places against a well-kept library used only as the oracle here (turf:
// point in polygon, distances to lines and polygons), and against haversine on the sphere.
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { lineString, multiPolygon, point, polygon } from '@turf/helpers';
import { pointToLineDistance } from '@turf/point-to-line-distance';
import { pointToPolygonDistance } from '@turf/point-to-polygon-distance';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint, haversineM } from '../../src/geo/distance.js';
import type { MultiPolygonGeometry, Position } from '../../src/geo/geometry.js';
import { prepareShape, shapeBoxAround } from '../../src/geo/shape.js';
import { edgeDistanceM } from '../../src/geo/shape-measure.js';
import { shapeCircle } from '../../src/geo/shape-centre.js';
import { fenceDistanceM, fenceMeasureM, fenceZone } from '../../src/geo/fence-zone.js';
import { lineArb, nearArb, starPolygonArb, starRing } from './shape-arbitraries.js';

const near = (lat: number, lon: number, bearing: number, d: number) => destinationPoint(lat, lon, bearing, d);

/** Metres from a point to the edge a–b drawn straight in longitude and latitude, on the sphere: the least haversine over fine samples. */
function sampledEdgeM(lat: number, lon: number, a: Position, b: Position, samples = 4000): number {
  let best = Infinity;
  for (let i = 0; i <= samples; i++) {
    const t = i / samples;
    best = Math.min(best, haversineM(lat, lon, a[1] + t * (b[1] - a[1]), a[0] + t * (b[0] - a[0])));
  }
  return best;
}

describe('point in polygon (turf as the oracle)', () => {
  it('agrees with turf inside, outside and in holes, away from the boundary', () => {
    fc.assert(
      fc.property(starPolygonArb, fc.array(nearArb(900), { minLength: 1, maxLength: 30 }), (poly, pts) => {
        const shape = prepareShape({ type: 'Polygon', coordinates: poly.rings });
        const turfPoly = polygon(poly.rings);
        for (const q of pts) {
          const p = near(poly.lat, poly.lon, q.bearing, q.d);
          const d = edgeDistanceM(shape, p.lat, p.lon);
          if (Math.abs(d) < 0.01) continue; // on the boundary either answer is right
          expect(d < 0).toBe(booleanPointInPolygon(point([p.lon, p.lat]), turfPoly));
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('distance to the boundary', () => {
  it('matches turf\'s distance to the polygon (short edges: straight and great-circle edges agree to a few cm)', () => {
    fc.assert(
      fc.property(starPolygonArb, fc.array(nearArb(900), { minLength: 1, maxLength: 20 }), (poly, pts) => {
        const shape = prepareShape({ type: 'Polygon', coordinates: poly.rings });
        const turfPoly = polygon(poly.rings);
        for (const q of pts) {
          const p = near(poly.lat, poly.lon, q.bearing, q.d);
          const ours = edgeDistanceM(shape, p.lat, p.lon);
          const theirs = pointToPolygonDistance(point([p.lon, p.lat]), turfPoly, { units: 'meters' });
          if (Math.abs(theirs) < 0.05) continue;
          expect(Math.abs(ours - theirs)).toBeLessThan(0.05 + Math.abs(theirs) * 2e-4);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('is the spherical distance to the straight edge, within D × D × (1 + tan|lat|) / R', () => {
    fc.assert(
      fc.property(
        fc.record({ lat: fc.double({ min: -80, max: 80, noNaN: true }), lon: fc.double({ min: -170, max: 170, noNaN: true }) }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: 10, max: 2000, noNaN: true }),
        nearArb(3000),
        (c, bearing, len, q) => {
          const b = near(c.lat, c.lon, bearing, len);
          const line: Position[] = [[c.lon, c.lat], [b.lon, b.lat]];
          const shape = prepareShape({ type: 'LineString', coordinates: line }, 2);
          const p = near(c.lat, c.lon, q.bearing, q.d);
          const ours = edgeDistanceM(shape, p.lat, p.lon) + 1;
          const truth = sampledEdgeM(p.lat, p.lon, line[0]!, line[1]!);
          const R = 6371008.8;
          // The samples are len / 4000 apart: the sampled truth may be over by half that.
          const bound = (truth * truth * (1 + Math.abs(Math.tan((p.lat * Math.PI) / 180)))) / R + truth * 1e-6 + len / 8000;
          expect(Math.abs(ours - truth)).toBeLessThanOrEqual(bound + 0.001);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('a corridor is the distance to the line less half the width (turf\'s distance to the line as the oracle)', () => {
    fc.assert(
      fc.property(lineArb, fc.double({ min: 1, max: 200, noNaN: true }), fc.array(nearArb(1500), { minLength: 1, maxLength: 20 }), (l, width, pts) => {
        const shape = prepareShape({ type: 'LineString', coordinates: l.line }, width);
        for (const q of pts) {
          const p = near(l.lat, l.lon, q.bearing, q.d);
          const theirs = pointToLineDistance(point([p.lon, p.lat]), lineString(l.line), { units: 'meters' });
          expect(Math.abs(edgeDistanceM(shape, p.lat, p.lon) - (theirs - width / 2))).toBeLessThan(0.05 + theirs * 2e-4);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('a point in a hole is outside, as far as the hole\'s edge', () => {
    const c = { lat: 45.5, lon: -122.6 };
    const shell = starRing(c.lat, c.lon, [400, 400, 400, 400, 400, 400, 400, 400]);
    const hole = starRing(c.lat, c.lon, [100, 100, 100, 100, 100, 100, 100, 100], 0, true);
    const shape = prepareShape({ type: 'Polygon', coordinates: [shell, hole] });
    expect(edgeDistanceM(shape, c.lat, c.lon)).toBeGreaterThan(85);
    const inRing = near(c.lat, c.lon, 90, 250);
    expect(edgeDistanceM(shape, inRing.lat, inRing.lon)).toBeLessThan(-100);
    const outside = near(c.lat, c.lon, 90, 500);
    expect(edgeDistanceM(shape, outside.lat, outside.lon)).toBeGreaterThan(90);
  });

  it('a MultiPolygon is inside when any part holds the point, and as far as its nearest part', () => {
    fc.assert(
      fc.property(starPolygonArb, starPolygonArb, fc.array(nearArb(2500), { minLength: 1, maxLength: 20 }), (a, b0, pts) => {
        // The second part 1.5 km east of the first.
        const off = near(a.lat, a.lon, 90, 1500);
        const b = { ...b0, rings: b0.rings.map((r) => r.map(([x, y]) => [x - b0.lon + off.lon, y - b0.lat + off.lat] as Position)) };
        const g: MultiPolygonGeometry = { type: 'MultiPolygon', coordinates: [a.rings, b.rings] };
        const shape = prepareShape(g);
        for (const q of pts) {
          const p = near(a.lat, a.lon, q.bearing, q.d);
          const ours = edgeDistanceM(shape, p.lat, p.lon);
          const theirs = pointToPolygonDistance(point([p.lon, p.lat]), multiPolygon(g.coordinates), { units: 'meters' });
          if (Math.abs(theirs) < 0.05) continue;
          expect(Math.sign(ours)).toBe(Math.sign(theirs));
          expect(Math.abs(ours - theirs)).toBeLessThan(0.05 + Math.abs(theirs) * 2e-4);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the antimeridian', () => {
  // A square 2 km wide centred on longitude 180, split into a part on each side.
  const lat = 10;
  const dLon = 0.009;
  const east: Position[] = [[180 - dLon, lat - 0.009], [180, lat - 0.009], [180, lat + 0.009], [180 - dLon, lat + 0.009], [180 - dLon, lat - 0.009]];
  const west: Position[] = [[-180, lat - 0.009], [-180 + dLon, lat - 0.009], [-180 + dLon, lat + 0.009], [-180, lat + 0.009], [-180, lat - 0.009]];
  const shape = prepareShape({ type: 'MultiPolygon', coordinates: [[east], [west]] });

  it('measures across it from either side', () => {
    expect(edgeDistanceM(shape, lat, 179.999)).toBeLessThan(0);
    expect(edgeDistanceM(shape, lat, -179.999)).toBeLessThan(0);
    // 100 m east of the west part's east edge, and west of the east part's west edge.
    const beyondWest = near(lat, -180 + dLon, 90, 100);
    expect(edgeDistanceM(shape, beyondWest.lat, beyondWest.lon)).toBeCloseTo(100, 0);
    const beyondEast = near(lat, 180 - dLon, 270, 100);
    expect(edgeDistanceM(shape, beyondEast.lat, beyondEast.lon)).toBeCloseTo(100, 0);
  });

  it('boxes it as one box over the antimeridian', () => {
    const b = shapeBoxAround(shape, 50);
    expect(b.allLon).toBe(false);
    expect(b.minLon).toBeLessThan(180 - dLon);
    expect(b.maxLon).toBeGreaterThan(180 + dLon);
    expect(b.maxLon - b.minLon).toBeLessThan(0.1);
  });
});

describe('the box around a shape', () => {
  it('holds every point within the margin of the shape', () => {
    fc.assert(
      fc.property(starPolygonArb, fc.double({ min: 0, max: 300, noNaN: true }), fc.array(nearArb(1500), { minLength: 1, maxLength: 30 }), (poly, margin, pts) => {
        const shape = prepareShape({ type: 'Polygon', coordinates: poly.rings });
        const b = shapeBoxAround(shape, margin);
        for (const q of pts) {
          const p = near(poly.lat, poly.lon, q.bearing, q.d);
          if (edgeDistanceM(shape, p.lat, p.lon) > margin) continue;
          expect(p.lat >= b.minLat && p.lat <= b.maxLat).toBe(true);
          const lon = p.lon < b.minLon ? p.lon + 360 : p.lon > b.maxLon ? p.lon - 360 : p.lon;
          expect(lon >= b.minLon && lon <= b.maxLon).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe('the centre and radius of a shape', () => {
  it('an L-shaped lot: the centre is inside the L, and the radius is the largest circle inside it', () => {
    // 200 m × 200 m with the north-east 100 m × 100 m missing.
    const o = { lat: 45.5, lon: -122.6 };
    const e = (m: number) => m / (111_195 * Math.cos((o.lat * Math.PI) / 180));
    const n = (m: number) => m / 111_195;
    const ring: Position[] = [
      [o.lon, o.lat], [o.lon + e(200), o.lat], [o.lon + e(200), o.lat + n(100)], [o.lon + e(100), o.lat + n(100)],
      [o.lon + e(100), o.lat + n(200)], [o.lon, o.lat + n(200)], [o.lon, o.lat],
    ];
    const c = shapeCircle({ type: 'Polygon', coordinates: [ring] });
    const shape = prepareShape({ type: 'Polygon', coordinates: [ring] });
    expect(edgeDistanceM(shape, c.latitude, c.longitude)).toBeLessThan(0);
    expect(c.radius).toBeCloseTo(-edgeDistanceM(shape, c.latitude, c.longitude), 1);
    // The largest circle in an L of arms 100 m wide: about 60 m (it sits in the inner corner).
    expect(c.radius).toBeGreaterThan(55);
    expect(c.radius).toBeLessThan(75);
  });

  it('a square: its middle, half its side', () => {
    const ring = starRing(45, 7, [500, 500, 500, 500], 45);
    const c = shapeCircle({ type: 'Polygon', coordinates: [ring] });
    expect(haversineM(c.latitude, c.longitude, 45, 7)).toBeLessThan(2);
    expect(c.radius).toBeCloseTo(500 / Math.SQRT2, -1);
  });

  it('every polygon\'s centre is inside it, its radius the depth there', () => {
    fc.assert(
      fc.property(starPolygonArb, (poly) => {
        const shape = prepareShape({ type: 'Polygon', coordinates: poly.rings });
        const c = shapeCircle({ type: 'Polygon', coordinates: poly.rings });
        const depth = -edgeDistanceM(shape, c.latitude, c.longitude);
        expect(depth).toBeGreaterThan(0);
        expect(Math.abs(c.radius - depth)).toBeLessThanOrEqual(0.011);
      }),
      { numRuns: 60 },
    );
  });

  it('a corridor: the middle of its line, half its width', () => {
    const a = { lat: 45.5, lon: -122.6 };
    const b = near(a.lat, a.lon, 90, 1000);
    const c = near(b.lat, b.lon, 0, 1000);
    const circle = shapeCircle({ type: 'LineString', coordinates: [[a.lon, a.lat], [b.lon, b.lat], [c.lon, c.lat]] }, 50);
    expect(haversineM(circle.latitude, circle.longitude, b.lat, b.lon)).toBeLessThan(1);
    expect(circle.radius).toBe(25);
  });
});

describe('the hot path\'s measure (edgeZoneM) gives the exact distance\'s zone', () => {
  it('for polygons and corridors with their centre\'s quick circles, at every accuracy', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          starPolygonArb.map((p) => ({ g: { type: 'Polygon' as const, coordinates: p.rings }, width: undefined, lat: p.lat, lon: p.lon })),
          fc.tuple(lineArb, fc.double({ min: 1, max: 120, noNaN: true })).map(([l, w]) => ({ g: { type: 'LineString' as const, coordinates: l.line }, width: w, lat: l.lat, lon: l.lon })),
        ),
        fc.array(fc.tuple(nearArb(1500), fc.double({ min: 0, max: 150, noNaN: true }), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 60 }),
        (s, pts) => {
          const c = shapeCircle(s.g, s.width);
          const f = { lat: c.latitude, lon: c.longitude, radius: c.radius, shape: prepareShape(s.g, s.width, { lat: c.latitude, lon: c.longitude }) };
          const positions = s.g.type === 'LineString' ? s.g.coordinates : s.g.coordinates.flat();
          for (const [q, acc, k, nearEdge] of pts) {
            // Half the points round a position of the shape, where the boundary and the margin are.
            const [lon0, lat0] = nearEdge ? positions[k % positions.length]! : [s.lon, s.lat];
            const p = near(lat0, lon0, q.bearing, nearEdge ? q.d / 15 : q.d);
            const exact = fenceDistanceM(f, p.lat, p.lon);
            if (Math.abs(exact) < 1e-6) continue; // on the boundary either side may answer
            expect(fenceZone(f, fenceMeasureM(f, p.lat, p.lon), acc)).toBe(fenceZone(f, exact, acc));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a corridor reaches half its width beyond the box of its line (the quick outside answer counts it)', () => {
    // A 2 km line due east, 100 m wide: 30 m north of it is inside, 65 m north is in the band.
    const a = { lat: 45.5, lon: -122.6 };
    const b = near(a.lat, a.lon, 90, 2000);
    const g = { type: 'LineString' as const, coordinates: [[a.lon, a.lat], [b.lon, a.lat]] as Position[] };
    const c = shapeCircle(g, 100);
    const f = { lat: c.latitude, lon: c.longitude, radius: c.radius, shape: prepareShape(g, 100, { lat: c.latitude, lon: c.longitude }) };
    const at = (north: number) => near(a.lat, a.lon + 0.01, 0, north);
    expect(fenceZone(f, fenceMeasureM(f, at(30).lat, at(30).lon), 5)).toBe('in');
    expect(fenceZone(f, fenceMeasureM(f, at(65).lat, at(65).lon), 5)).toBe('band');
    expect(fenceZone(f, fenceMeasureM(f, at(75).lat, at(75).lon), 5)).toBe('out');
  });
});
