// Checking a place's geometry: every refusal the API documents, in a sentence that says what is
// wrong, and the self-intersection test against turf's kinks as the oracle.
import { polygon } from '@turf/helpers';
import { kinks } from '@turf/kinks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGeometry, MAX_GEOMETRY_POSITIONS, type Position } from '../../src/geo/geometry.js';
import { crossingPair } from '../../src/geo/rings.js';

const square = (x: number, y: number, s: number): Position[] => [[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]];
const refusal = (value: unknown, width?: number) => {
  const r = checkGeometry(value, width);
  if (r.ok) throw new Error('accepted');
  return r.error;
};

describe('checkGeometry accepts', () => {
  it('a Polygon, with a hole, as [longitude, latitude] positions (altitudes dropped, other members left out)', () => {
    const shell = square(0, 0, 1).map(([x, y]) => [x, y, 12]);
    const r = checkGeometry({ type: 'Polygon', coordinates: [shell, square(0.25, 0.25, 0.5).reverse()], bbox: [0, 0, 1, 1] }, undefined);
    expect(r).toEqual({ ok: true, geometry: { type: 'Polygon', coordinates: [square(0, 0, 1), square(0.25, 0.25, 0.5).reverse()] } });
  });

  it('a MultiPolygon and a LineString with a width, in either winding', () => {
    expect(checkGeometry({ type: 'MultiPolygon', coordinates: [[square(0, 0, 1)], [square(2, 0, 1).reverse()]] }, undefined).ok).toBe(true);
    expect(checkGeometry({ type: 'LineString', coordinates: [[0, 0], [0.01, 0.01], [0.02, 0]] }, 30).ok).toBe(true);
  });

  it('a polygon on each side of the antimeridian, touching it', () => {
    expect(checkGeometry({ type: 'MultiPolygon', coordinates: [[square(179, 0, 1)], [square(-180, 0, 1)]] }, undefined).ok).toBe(true);
  });
});

describe('checkGeometry refuses, saying why', () => {
  it.each([
    ['not an object', 'Polygon', /must be a GeoJSON object/],
    ['an unknown type', { type: 'Point', coordinates: [0, 0] }, /"Point" is not a shape a place can have/],
    ['a GeometryCollection', { type: 'GeometryCollection', geometries: [] }, /not a shape a place can have/],
    ['no coordinates', { type: 'Polygon' }, /coordinates is required/],
    ['a ring that is not closed', { type: 'Polygon', coordinates: [square(0, 0, 1).slice(0, 4).concat([[0.5, -0.5]])] }, /coordinates\[0\]: the ring is not closed/],
    ['a ring of 3 positions', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] }, /at least 4 positions .* it has 3/],
    ['a bow tie', { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] }, /coordinates\[0\]: the ring intersects itself/],
    ['a ring that folds back on itself', { type: 'Polygon', coordinates: [[[0, 0], [2, 0], [1, 0], [1, 1], [0, 0]]] }, /intersects itself/],
    ['a ring on one line', { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [2, 2], [0, 0]]] }, /intersects itself/],
    ['a ring of one corner repeated', { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 1], [0, 0]]] }, /intersects itself|encloses no area/],
    ['a hole outside its shell', { type: 'Polygon', coordinates: [square(0, 0, 1), square(3, 3, 1)] }, /\[1\]: the hole lies outside its outer ring/],
    ['a hole across its shell', { type: 'Polygon', coordinates: [square(0, 0, 1), square(0.5, 0.5, 1)] }, /rings 0 and 1 cross or touch/],
    ['a hole in a hole', { type: 'Polygon', coordinates: [square(0, 0, 4), square(1, 1, 2), square(1.5, 1.5, 0.5)] }, /inside another hole/],
    ['a longitude out of range', { type: 'Polygon', coordinates: [[[0, 0], [181, 0], [1, 1], [0, 0]]] }, /longitude 181 is out of range/],
    ['a latitude out of range', { type: 'LineString', coordinates: [[0, 0], [0, -91]] }, /latitude -91 is out of range/],
    ['a position near a pole', { type: 'Polygon', coordinates: [square(10, 84.5, 1)] }, /too near a pole/],
    ['a position that is not two numbers', { type: 'LineString', coordinates: [[0, 0], ['1', 1]] }, /\[1\] must be a position/],
    ['an edge across the antimeridian', { type: 'Polygon', coordinates: [[[179, 0], [-179, 0], [-179, 1], [179, 1], [179, 0]]] }, /crosses the antimeridian .* split it at longitude 180/],
    ['a line across the antimeridian', { type: 'LineString', coordinates: [[179.5, 0], [-179.5, 0]] }, /crosses the antimeridian/],
    ['an empty MultiPolygon', { type: 'MultiPolygon', coordinates: [] }, /at least one polygon/],
    ['a LineString of one position', { type: 'LineString', coordinates: [[0, 0]] }, /at least 2 positions/],
  ])('%s', (_name, value, message) => {
    expect(refusal(value, (value as { type?: string }).type === 'LineString' ? 10 : undefined)).toMatch(message);
  });

  it('a corridor without a width, or with a width out of range', () => {
    const line = { type: 'LineString', coordinates: [[0, 0], [0.01, 0]] };
    expect(refusal(line)).toMatch(/send its width in metres/);
    expect(refusal(line, 0)).toMatch(/width must be a number of metres above 0/);
    expect(refusal(line, 200_000)).toMatch(/at most 100000/);
  });

  it('a width for a polygon', () => {
    expect(refusal({ type: 'Polygon', coordinates: [square(0, 0, 1)] }, 10)).toMatch(/width is only for a corridor/);
  });

  it(`more than ${MAX_GEOMETRY_POSITIONS} positions`, () => {
    const n = MAX_GEOMETRY_POSITIONS;
    const ring: Position[] = Array.from({ length: n }, (_, i) => [Math.cos((2 * Math.PI * i) / n), Math.sin((2 * Math.PI * i) / n)]);
    ring.push(ring[0]!);
    expect(refusal({ type: 'Polygon', coordinates: [ring] })).toMatch(/at most 2000 positions/);
    expect(checkGeometry({ type: 'Polygon', coordinates: [ring.slice(0, n - 1).concat([ring[0]!])] }, undefined).ok).toBe(true);
  });
});

describe('self-intersection (turf kinks as the oracle)', () => {
  it('a ring of random corners crosses itself exactly when kinks finds a crossing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 1e6 })), { minLength: 3, maxLength: 9 }), (corners) => {
        if (new Set(corners.map((c) => c.join())).size < corners.length) return; // repeated corners: kinks counts them as crossings
        const ring: Position[] = [...corners.map(([x, y]) => [x, y] as Position), [corners[0]![0], corners[0]![1]]];
        const theirs = kinks(polygon([ring])).features.length > 0;
        expect(crossingPair([ring]) !== null).toBe(theirs);
      }),
      { numRuns: 500 },
    );
  });
});
