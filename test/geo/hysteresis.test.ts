import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint, haversineM } from '../../src/geo/distance.js';
import {
  classifyEdge,
  classifyZone,
  leaveMarginM,
  LEAVE_MARGIN_MIN_M,
  LEAVE_MARGIN_RATIO,
  MAX_ACCURACY_MIN_M,
  maxAccuracyM,
  resolveHysteresis,
} from '../../src/geo/hysteresis.js';
import { step, type FenceRule, type PairRecord } from '../../machines/index.js';

describe('zone classification', () => {
  it('exports the documented constants', () => {
    expect([LEAVE_MARGIN_MIN_M, LEAVE_MARGIN_RATIO, MAX_ACCURACY_MIN_M]).toEqual([20, 0.1, 100]);
  });

  it.each([
    // d, r, acc, zone
    [0, 100, 0, 'in'],
    [100, 100, 0, 'in'],
    [100.01, 100, 0, 'band'],
    [120, 100, 0, 'band'],
    [120.01, 100, 0, 'out'],
    [550, 500, 0, 'band'], // margin 10% of 500 = 50
    [550.01, 500, 0, 'out'],
    [10, 100, 100, 'in'], // accuracy equal to the limit is usable
    [10, 100, 100.5, 'unusable'],
    [10, 300, 250, 'in'], // limit is max(100, r)
    [10, 300, 301, 'unusable'],
    [500, 100, -5, 'out'], // negative accuracy counts as 0
    [500, 100, undefined, 'out'],
  ] as const)('d=%s r=%s acc=%s → %s', (d, r, acc, zone) => {
    expect(classifyZone(d, r, acc)).toBe(zone);
  });

  it.each([
    // metres outside the edge, radius, acc, zone: the same rule measured from the boundary
    [-50, 100, 0, 'in'],
    [0, 100, 0, 'in'],
    [0.01, 100, 0, 'band'],
    [20, 100, 0, 'band'],
    [20.01, 100, 0, 'out'],
    [50, 500, 0, 'band'],
    [50.01, 500, 0, 'out'],
    [-10, 300, 301, 'unusable'],
    [30, 30, 250, 'unusable'],
  ] as const)('a shape: %s m outside, radius %s, acc %s → %s', (edge, r, acc, zone) => {
    expect(classifyEdge(edge, r, acc)).toBe(zone);
  });

  it('a circle is classified alike from its centre or from its edge', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 5000, noNaN: true }), fc.integer({ min: 1, max: 2000 }), fc.option(fc.double({ min: 0, max: 3000, noNaN: true })), (d, r, acc) => {
        expect(classifyEdge(d - r, r, acc)).toBe(classifyZone(d, r, acc));
      }),
    );
  });

  it('is tunable', () => {
    const h = resolveHysteresis({ leaveMarginMinM: 5, leaveMarginRatio: 0, maxAccuracyMinM: 30 });
    expect(leaveMarginM(100, h)).toBe(5);
    expect(maxAccuracyM(10, h)).toBe(30);
    expect(classifyZone(106, 100, 0, h)).toBe('out');
    expect(classifyZone(10, 10, 31, h)).toBe('unusable');
  });
});

describe('no enter/leave storms on jittery tracks', () => {
  const rule: FenceRule = { triggerId: 't', placeId: 'p', triggerOn: 'leave', triggerAfterS: 0, oneTime: false, rateLimitS: 0 };
  const centre = { lat: 45.52, lon: -122.68 };

  it('a track that jitters around the boundary without going past the margin enters once and never leaves', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 2000 }),
        // Each point: bearing, position in [r - margin, r + margin] (as a fraction), accuracy.
        fc.array(
          fc.record({
            bearing: fc.double({ min: 0, max: 360, noNaN: true }),
            f: fc.double({ min: -1, max: 0.999, noNaN: true }),
            acc: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 400, noNaN: true })),
          }),
          { minLength: 1, maxLength: 200 },
        ),
        (r, pts) => {
          const m = leaveMarginM(r);
          let rec: PairRecord | undefined;
          let enters = 0;
          let leaves = 0;
          pts.forEach((p, i) => {
            const pos = destinationPoint(centre.lat, centre.lon, p.bearing, r + p.f * m);
            const zone = classifyZone(haversineM(centre.lat, centre.lon, pos.lat, pos.lon), r, p.acc);
            const res = step(rec, rule, { type: 'POINT', at: i * 1000, zone });
            if (res.transition?.reason === 'enter') enters++;
            if (res.transition?.reason === 'leave') leaves++;
            rec = res.record;
          });
          expect(enters).toBeLessThanOrEqual(1);
          expect(leaves).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on any track, consecutive enter and leave are separated by a point past the margin and one inside', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 500 }),
        fc.array(fc.record({ d: fc.double({ min: 0, max: 3, noNaN: true }), acc: fc.double({ min: 0, max: 150, noNaN: true }) }), {
          maxLength: 200,
        }),
        (r, pts) => {
          let rec: PairRecord | undefined;
          for (const p of pts) {
            const d = p.d * r;
            const zone = classifyZone(d, r, p.acc);
            const res = step(rec, rule, { type: 'POINT', at: 0, zone });
            if (res.transition?.reason === 'enter') expect(d <= r && p.acc <= maxAccuracyM(r)).toBe(true);
            if (res.transition?.reason === 'leave') expect(d > r + leaveMarginM(r) && p.acc <= maxAccuracyM(r)).toBe(true);
            rec = res.record;
          }
        },
      ),
    );
  });
});
