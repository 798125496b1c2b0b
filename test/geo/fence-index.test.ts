import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint, haversineM } from '../../src/geo/distance.js';
import { entryContains, FenceIndex } from '../../src/geo/fence-index.js';
import { leaveMarginM, outerRadiusM } from '../../src/geo/hysteresis.js';
import { prepareShape, type Shape } from '../../src/geo/shape.js';
import { edgeDistanceM } from '../../src/geo/shape-measure.js';
import type { Position } from '../../src/geo/geometry.js';
import { nearArb, starPolygonArb } from './shape-arbitraries.js';

interface F {
  key: string;
  lat: number;
  lon: number;
  radius: number;
  shape?: Shape;
}

const fenceArb = (i: number) =>
  fc.record({
    key: fc.constant(`f${i}`),
    lat: fc.double({ min: 45.4, max: 45.6, noNaN: true }),
    lon: fc.double({ min: -122.8, max: -122.6, noNaN: true }),
    radius: fc.integer({ min: 10, max: 800 }),
  });

describe('FenceIndex', () => {
  it('never misses a geofence whose leave circle contains the point (vs brute force)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 120 }).chain((a) => fc.tuple(...a.map((_, i) => fenceArb(i)))),
        fc.array(fc.record({ lat: fc.double({ min: 45.39, max: 45.61, noNaN: true }), lon: fc.double({ min: -122.81, max: -122.59, noNaN: true }) }), {
          maxLength: 40,
        }),
        (fences: F[], points) => {
          const idx = new FenceIndex<F>();
          idx.upsert(fences);
          for (const p of points) {
            const got = new Set(idx.query(p.lat, p.lon).map((f) => f.key));
            for (const f of fences) {
              if (haversineM(p.lat, p.lon, f.lat, f.lon) <= outerRadiusM(f.radius)) expect(got.has(f.key)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('inserts, updates and removes by key, bumping its version', () => {
    const idx = new FenceIndex<F>();
    const v0 = idx.version;
    idx.upsert([{ key: 'a', lat: 10, lon: 10, radius: 100 }]);
    expect(idx.query(10, 10).map((f) => f.key)).toEqual(['a']);
    idx.upsert([{ key: 'a', lat: 20, lon: 20, radius: 100 }]);
    expect(idx.size).toBe(1);
    expect(idx.query(10, 10)).toEqual([]);
    expect(idx.query(20, 20).map((f) => f.key)).toEqual(['a']);
    expect(idx.remove(['a', 'missing'])).toBe(1);
    expect(idx.query(20, 20)).toEqual([]);
    expect(idx.version).toBeGreaterThan(v0);
  });

  it('bulk loads many geofences', () => {
    const idx = new FenceIndex<F>();
    const many = Array.from({ length: 1000 }, (_, i) => ({ key: `k${i}`, lat: 45 + (i % 40) * 0.01, lon: 5 + Math.floor(i / 40) * 0.01, radius: 50 }));
    idx.upsert(many);
    expect(idx.size).toBe(1000);
    expect(idx.query(45.1, 5.1).map((f) => f.key)).toContain('k410');
  });

  it('handles geofences across the antimeridian and around a pole', () => {
    const idx = new FenceIndex<F>();
    idx.upsert([
      { key: 'date-line', lat: 0, lon: 179.9999, radius: 1000 },
      { key: 'pole', lat: 89.999, lon: 0, radius: 5000 },
    ]);
    expect(idx.query(0, -179.9999).map((f) => f.key)).toEqual(['date-line']);
    expect(idx.query(0, 179.999).map((f) => f.key)).toEqual(['date-line']);
    expect(idx.query(89.99, 120).map((f) => f.key)).toEqual(['pole']);
    const near = destinationPoint(0, 179.9999, 90, 500);
    expect(idx.queryBox(near.lat - 0.001, near.lon - 0.001, near.lat + 0.001, near.lon + 0.001).some((e) => entryContains(e, near.lat, near.lon))).toBe(true);
  });

  it('never misses a polygon whose margin holds the point (its box holds the band; vs brute force)', () => {
    fc.assert(
      fc.property(fc.array(starPolygonArb, { minLength: 1, maxLength: 20 }), fc.array(nearArb(1200), { minLength: 1, maxLength: 30 }), (polys, pts) => {
        const idx = new FenceIndex<F>();
        // Every polygon moved next to the first, so that they overlap and points meet several.
        const o = polys[0]!;
        const fences: F[] = polys.map((p, i) => {
          const rings = p.rings.map((r) => r.map(([x, y]) => [x - p.lon + o.lon + (i % 4) * 0.002, y - p.lat + o.lat] as Position));
          return { key: `s${i}`, lat: o.lat, lon: o.lon, radius: 30 + i * 20, shape: prepareShape({ type: 'Polygon', coordinates: rings }) };
        });
        idx.upsert(fences);
        for (const q of pts) {
          const p = destinationPoint(o.lat, o.lon, q.bearing, q.d);
          const got = new Set(idx.query(p.lat, p.lon).map((f) => f.key));
          for (const f of fences) if (edgeDistanceM(f.shape!, p.lat, p.lon) <= leaveMarginM(f.radius)) expect(got.has(f.key)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('holds a MultiPolygon split at the antimeridian as one entry that wraps', () => {
    const idx = new FenceIndex<F>();
    const sq = (x: number, s: number): Position[] => [[x, 0], [x + s, 0], [x + s, s], [x, s], [x, 0]];
    idx.upsert([{ key: 'split', lat: 0.005, lon: 179.995, radius: 100, shape: prepareShape({ type: 'MultiPolygon', coordinates: [[sq(179.99, 0.01)], [sq(-180, 0.01)]] }) }]);
    expect(idx.query(0.005, 179.995).map((f) => f.key)).toEqual(['split']);
    expect(idx.query(0.005, -179.995).map((f) => f.key)).toEqual(['split']);
    expect(idx.query(0.005, 0)).toEqual([]);
  });

  it('boxes a corridor with half its width besides the margin', () => {
    const idx = new FenceIndex<F>();
    const a = { lat: 45.5, lon: -122.6 };
    const b = destinationPoint(a.lat, a.lon, 90, 2000);
    idx.upsert([{ key: 'road', lat: a.lat, lon: a.lon, radius: 50, shape: prepareShape({ type: 'LineString', coordinates: [[a.lon, a.lat], [b.lon, a.lat]] }, 100) }]);
    // 60 m north of the line: 10 m outside the corridor, in its band.
    const p = destinationPoint(a.lat, a.lon + 0.01, 0, 60);
    expect(idx.query(p.lat, p.lon).map((f) => f.key)).toEqual(['road']);
  });
});
