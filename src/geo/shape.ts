// A place's shape made ready for the detect stage: the positions of a checked geometry (geometry.ts)
// in flat typed arrays, with boxes per part and per block of edges (shape-measure.ts skips blocks
// by them), and the box the spatial index keeps.
import { EARTH_RADIUS_M, type DegreeBox } from './distance.js';
import { edgeDistanceM, QUICK_PAD_DEG } from './shape-measure.js';
import type { PlaceGeometry, Position } from './geometry.js';

/** Edges per block: a block whose box is farther than the nearest edge found so far is skipped whole. */
const BLOCK = 16;
const RAD = Math.PI / 180;
const M_PER_DEG = EARTH_RADIUS_M * RAD;

export type ShapeKind = 'polygon' | 'corridor';

/**
 * Plain data (typed arrays), so that it crosses to the shard threads by structured clone; the
 * positions sit in a SharedArrayBuffer where there is one, so every thread reads the same memory.
 */
export interface Shape {
  kind: ShapeKind;
  /** Half a corridor's width, metres (0 for a polygon). */
  halfWidth: number;
  /** longitude, latitude of every position: the rings of each polygon (closed), or the line. */
  xy: Float64Array;
  /** Per block: its first position, and its last (the block's edges join them). */
  blockFrom: Int32Array;
  blockTo: Int32Array;
  /** Per block: minLon, minLat, maxLon, maxLat. */
  blockBox: Float64Array;
  /** Per part (a polygon of a MultiPolygon, or the line): the end of its blocks (exclusive). */
  partEnd: Int32Array;
  /** Per part: minLon, minLat, maxLon, maxLat, and the longitude of its middle. */
  partBox: Float64Array;
  /**
   * The box of the whole shape: minLon, minLat, maxLon, maxLat. maxLon is above 180 when the shape's
   * parts lie on both sides of the antimeridian (the box then wraps round it).
   */
  box: Float64Array;
  /** Whether a part reaches longitude ±180, so a point's longitude may need taking round the world. */
  wraps: boolean;
  /**
   * Quick answers round a centre inside the shape (the place's), when one was given: a point within
   * `inner` metres of it (in its own frame, `centreK` metres per degree of longitude) is inside; one
   * farther than `outer` metres plus the margin (in a frame of `outerK` metres per degree of
   * longitude, no more than any point's own within `QUICK_PAD_DEG` of the box) is outside. `outer`
   * is Infinity when there are none.
   */
  centreLat: number;
  centreLon: number;
  centreK: number;
  inner: number;
  outerK: number;
  outer: number;
}


function floats(n: number): Float64Array {
  return typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
}

/**
 * The shape of a checked geometry (`width`: a corridor's, metres). `centre`, a point inside it (the
 * place's: shape-centre.ts), lets most points be answered without visiting an edge.
 */
export function prepareShape(geometry: PlaceGeometry, width?: number, centre?: { lat: number; lon: number }): Shape {
  const parts: Position[][][] =
    geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [[geometry.coordinates]];
  let positions = 0;
  let blocks = 0;
  for (const part of parts) {
    for (const ring of part) {
      positions += ring.length;
      blocks += Math.max(1, Math.ceil((ring.length - 1) / BLOCK));
    }
  }
  const xy = floats(positions * 2);
  const blockFrom = new Int32Array(blocks);
  const blockTo = new Int32Array(blocks);
  const blockBox = new Float64Array(blocks * 4);
  const partEnd = new Int32Array(parts.length);
  const partBox = new Float64Array(parts.length * 5);
  let v = 0;
  let b = 0;
  for (let p = 0; p < parts.length; p++) {
    let pMinX = Infinity, pMinY = Infinity, pMaxX = -Infinity, pMaxY = -Infinity;
    for (const ring of parts[p]!) {
      const first = v;
      for (const [lon, lat] of ring) {
        xy[2 * v] = lon;
        xy[2 * v + 1] = lat;
        v++;
      }
      const last = v - 1;
      for (let s = first; s < last || s === first; s += BLOCK) {
        const e = Math.min(s + BLOCK, last);
        let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
        for (let i = s; i <= e; i++) {
          const x = xy[2 * i]!;
          const y = xy[2 * i + 1]!;
          if (x < minX) minX = x;
          if (x > maxX) maxX = x;
          if (y < minY) minY = y;
          if (y > maxY) maxY = y;
        }
        blockFrom[b] = s;
        blockTo[b] = e;
        blockBox.set([minX, minY, maxX, maxY], 4 * b);
        b++;
        pMinX = Math.min(pMinX, minX);
        pMinY = Math.min(pMinY, minY);
        pMaxX = Math.max(pMaxX, maxX);
        pMaxY = Math.max(pMaxY, maxY);
        if (e === last) break;
      }
    }
    partEnd[p] = b;
    partBox.set([pMinX, pMinY, pMaxX, pMaxY, (pMinX + pMaxX) / 2], 5 * p);
  }
  let wraps = false;
  for (let p = 0; p < parts.length; p++) if (partBox[5 * p]! <= -180 + 1 || partBox[5 * p + 2]! >= 180 - 1) wraps = true;
  const shape: Shape = {
    kind: geometry.type === 'LineString' ? 'corridor' : 'polygon',
    halfWidth: geometry.type === 'LineString' ? (width ?? 0) / 2 : 0,
    xy, blockFrom, blockTo, blockBox, partEnd, partBox,
    box: Float64Array.from(wholeBox(partBox)),
    wraps,
    centreLat: 0, centreLon: 0, centreK: 0, inner: -1, outerK: 0, outer: Infinity,
  };
  if (centre !== undefined && !wraps) quickCircles(shape, centre.lat, centre.lon);
  return shape;
}

/** The inner and outer circles round `lat, lon` (see Shape): the depth there, and the farthest position. */
function quickCircles(s: Shape, lat: number, lon: number): void {
  const depth = -edgeDistanceM(s, lat, lon);
  if (!(depth > 0)) return;
  const box = s.box;
  const k = Math.cos(Math.min(89, Math.max(Math.abs(box[1]!), Math.abs(box[3]!)) + QUICK_PAD_DEG) * RAD) * M_PER_DEG;
  let far = 0;
  for (let i = 0; i < s.xy.length; i += 2) {
    const dx = (s.xy[i]! - lon) * k;
    const dy = (s.xy[i + 1]! - lat) * M_PER_DEG;
    far = Math.max(far, dx * dx + dy * dy);
  }
  s.centreLat = lat;
  s.centreLon = lon;
  s.centreK = Math.cos(lat * RAD) * M_PER_DEG;
  // A hair inside the depth, against rounding.
  s.inner = depth * (1 - 1e-9) - 1e-6;
  s.outerK = k;
  s.outer = Math.sqrt(far) + s.halfWidth + 1e-6;
}

/**
 * The box of every part: the longitudes are the shortest span round the circle that covers each
 * part's, so parts on both sides of the antimeridian give one box across it (maxLon above 180).
 */
function wholeBox(partBox: Float64Array): [number, number, number, number] {
  const n = partBox.length / 5;
  let minY = Infinity, maxY = -Infinity;
  const spans: Array<[number, number]> = [];
  for (let p = 0; p < n; p++) {
    spans.push([partBox[5 * p]!, partBox[5 * p + 2]!]);
    minY = Math.min(minY, partBox[5 * p + 1]!);
    maxY = Math.max(maxY, partBox[5 * p + 3]!);
  }
  spans.sort((a, b) => a[0] - b[0]);
  // Merge overlapping spans, then leave out the widest gap between them (round the circle too).
  const merged: Array<[number, number]> = [];
  for (const s of spans) {
    const top = merged[merged.length - 1];
    if (top !== undefined && s[0] <= top[1]) top[1] = Math.max(top[1], s[1]);
    else merged.push([s[0], s[1]]);
  }
  let gap = merged[0]![0] + 360 - merged[merged.length - 1]![1];
  let minX = merged[0]![0];
  let maxX = merged[merged.length - 1]![1];
  for (let i = 1; i < merged.length; i++) {
    const g = merged[i]![0] - merged[i - 1]![1];
    if (g > gap) {
      gap = g;
      minX = merged[i]![0];
      maxX = merged[i - 1]![1] + 360;
    }
  }
  return [minX, minY, maxX, maxY];
}

/**
 * The smallest longitude and latitude box holding every point within `metres` of the shape, as the
 * spatial index keeps it (fence-index.ts). Longitudes may leave [-180, 180] when the shape or its
 * margin reaches over the antimeridian; callers wrap.
 */
export function shapeBoxAround(s: Shape, metres: number): DegreeBox {
  const pad = 1e-9;
  // A corridor reaches half its width beyond its line's positions.
  const dLat = (metres + s.halfWidth) / M_PER_DEG + pad;
  const box = s.box;
  const minLat = box[1]! - dLat;
  const maxLat = box[3]! + dLat;
  if (minLat <= -90 || maxLat >= 90) return { minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat), minLon: -180, maxLon: 180, allLon: true };
  // The point's own latitude scales its east-west distances (edgeDistanceM): the widest is nearest a pole.
  const dLon = dLat / Math.cos(Math.max(Math.abs(minLat), Math.abs(maxLat)) * RAD) + pad;
  if (box[2]! + dLon - (box[0]! - dLon) >= 360) return { minLat, maxLat, minLon: -180, maxLon: 180, allLon: true };
  return { minLat, maxLat, minLon: box[0]! - dLon, maxLon: box[2]! + dLon, allLon: false };
}
