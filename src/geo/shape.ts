// A place's shape made ready for the detect stage: the positions of a checked geometry (geometry.ts)
// in flat typed arrays, with boxes per part and per block of edges, and the one measurement the
// zone rule needs of it: how far a point is outside the boundary (negative inside).
//
// Distances are measured in a local frame at the point: east-west degrees scaled by the cosine of
// the point's latitude, both axes by the sphere of haversine (EARTH_RADIUS_M). Edges are straight in
// longitude and latitude (RFC 7946), which that frame keeps straight, so containment is exact and
// the distance to the nearest edge differs from the great-circle one by about D × D × tan|lat| / R
// (under a centimetre for D = 100 m below 60° of latitude; docs/api.md "Shapes").
import { EARTH_RADIUS_M, type DegreeBox } from './distance.js';
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
}

function floats(n: number): Float64Array {
  return typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
}

/** The shape of a checked geometry (`width`: a corridor's, metres). */
export function prepareShape(geometry: PlaceGeometry, width?: number): Shape {
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
  return {
    kind: geometry.type === 'LineString' ? 'corridor' : 'polygon',
    halfWidth: geometry.type === 'LineString' ? (width ?? 0) / 2 : 0,
    xy, blockFrom, blockTo, blockBox, partEnd, partBox,
    box: Float64Array.from(wholeBox(partBox)),
    wraps,
  };
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
 * Metres from (lat, lon) to the shape's boundary, negative inside: for a polygon, the distance to
 * the nearest edge of any ring (holes included), negated when the point is inside; for a corridor,
 * the distance to the line less half the width. A point on the boundary is 0 (inside).
 */
export function edgeDistanceM(s: Shape, lat: number, lon: number): number {
  const kx = Math.cos(lat * RAD) * M_PER_DEG;
  const xy = s.xy;
  const bf = s.blockFrom;
  const bt = s.blockTo;
  const bb = s.blockBox;
  const polygon = s.kind === 'polygon';
  let best = Infinity; // squared metres
  let inside = false;
  let b = 0;
  for (let p = 0; p < s.partEnd.length; p++) {
    const end = s.partEnd[p]!;
    let x0 = lon;
    if (s.wraps) {
      const mid = s.partBox[5 * p + 4]!;
      if (x0 - mid > 180) x0 -= 360;
      else if (mid - x0 > 180) x0 += 360;
    }
    // The whole part is skipped when its box is farther than the nearest edge and cannot hold the point.
    const pb = 5 * p;
    const pdx = Math.max(0, s.partBox[pb]! - x0, x0 - s.partBox[pb + 2]!) * kx;
    const pdy = Math.max(0, s.partBox[pb + 1]! - lat, lat - s.partBox[pb + 3]!) * M_PER_DEG;
    if (pdx * pdx + pdy * pdy >= best && (pdx > 0 || pdy > 0)) {
      b = end;
      continue;
    }
    let crossings = 0;
    for (; b < end; b++) {
      const o = 4 * b;
      const minY = bb[o + 1]!;
      const maxY = bb[o + 3]!;
      const dx = Math.max(0, bb[o]! - x0, x0 - bb[o + 2]!) * kx;
      const dy = Math.max(0, minY - lat, lat - maxY) * M_PER_DEG;
      const near = dx * dx + dy * dy < best;
      // Only edges that straddle the point's latitude can cross the ray going east from it.
      const ray = polygon && lat >= minY && lat < maxY;
      if (!near && !ray) continue;
      const last = bt[b]!;
      let ax = xy[2 * bf[b]!]!;
      let ay = xy[2 * bf[b]! + 1]!;
      for (let i = bf[b]! + 1; i <= last; i++) {
        const bx = xy[2 * i]!;
        const by = xy[2 * i + 1]!;
        if (ray && ay > lat !== by > lat && x0 < ((bx - ax) * (lat - ay)) / (by - ay) + ax) crossings++;
        if (near) {
          const px = (ax - x0) * kx;
          const py = (ay - lat) * M_PER_DEG;
          const ex = (bx - ax) * kx;
          const ey = (by - ay) * M_PER_DEG;
          const len2 = ex * ex + ey * ey;
          let t = len2 > 0 ? -(px * ex + py * ey) / len2 : 0;
          t = t < 0 ? 0 : t > 1 ? 1 : t;
          const qx = px + t * ex;
          const qy = py + t * ey;
          const d2 = qx * qx + qy * qy;
          if (d2 < best) best = d2;
        }
        ax = bx;
        ay = by;
      }
    }
    if ((crossings & 1) === 1) inside = true;
  }
  const d = Math.sqrt(best);
  if (!polygon) return d - s.halfWidth;
  return inside ? -d : d;
}

/**
 * The smallest longitude and latitude box holding every point within `metres` of the shape, as the
 * spatial index keeps it (fence-index.ts). Longitudes may leave [-180, 180] when the shape or its
 * margin reaches over the antimeridian; callers wrap.
 */
export function shapeBoxAround(s: Shape, metres: number): DegreeBox {
  const pad = 1e-9;
  const dLat = metres / M_PER_DEG + pad;
  const box = s.box;
  const minLat = box[1]! - dLat;
  const maxLat = box[3]! + dLat;
  if (minLat <= -90 || maxLat >= 90) return { minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat), minLon: -180, maxLon: 180, allLon: true };
  // The point's own latitude scales its east-west distances (edgeDistanceM): the widest is nearest a pole.
  const dLon = dLat / Math.cos(Math.max(Math.abs(minLat), Math.abs(maxLat)) * RAD) + pad;
  if (box[2]! + dLon - (box[0]! - dLon) >= 360) return { minLat, maxLat, minLon: -180, maxLon: 180, allLon: true };
  return { minLat, maxLat, minLon: box[0]! - dLon, maxLon: box[2]! + dLon, allLon: false };
}
