import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxAround, destinationPoint, EARTH_RADIUS_M, haversineM } from '../../src/geo/distance.js';

describe('haversine', () => {
  it('matches known distances on the 6371008.8 m sphere', () => {
    expect(haversineM(0, 0, 0, 0)).toBe(0);
    // One degree of latitude is R·π/180.
    expect(haversineM(0, 0, 1, 0)).toBeCloseTo((EARTH_RADIUS_M * Math.PI) / 180, 6);
    // Portland → Seattle, about 234 km.
    expect(haversineM(45.5152, -122.6784, 47.6062, -122.3321) / 1000).toBeCloseTo(233.8, 0);
    expect(haversineM(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_M, 3);
  });

  it('destinationPoint lands at the requested distance', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -80, max: 80, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: 0, max: 50_000, noNaN: true }),
        (lat, lon, b, d) => {
          const p = destinationPoint(lat, lon, b, d);
          expect(Math.abs(haversineM(lat, lon, p.lat, p.lon) - d)).toBeLessThan(1e-3);
        },
      ),
    );
  });

  it('boxAround contains every point of the circle, also near poles and the antimeridian', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -89.9, max: 89.9, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: 1, max: 200_000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (lat, lon, bearing, r, f) => {
          const b = boxAround(lat, lon, r);
          const p = destinationPoint(lat, lon, bearing, r * f);
          expect(p.lat).toBeGreaterThanOrEqual(b.minLat);
          expect(p.lat).toBeLessThanOrEqual(b.maxLat);
          if (!b.allLon) {
            const inside = [p.lon, p.lon + 360, p.lon - 360].some((l) => l >= b.minLon && l <= b.maxLon);
            expect(inside).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
