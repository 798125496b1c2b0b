// The one measurement the zone rule needs of a shape (shape.ts): how far a point is outside its
// boundary, negative inside. Two passes over the edges: which side of the boundary the point is
// on (ray crossings, only over the blocks of edges that straddle the point's latitude), then the
// nearest edge (blocks whose box is farther than the nearest edge found so far are skipped).
//
// Distances are measured in a local frame at the point: east-west degrees scaled by the cosine of
// the point's latitude, both axes by the sphere of haversine (EARTH_RADIUS_M). Edges are straight in
// longitude and latitude (RFC 7946), which that frame keeps straight, so containment is exact and
// the distance to the nearest edge differs from the great-circle one by about D × D × tan|lat| / R
// (under a centimetre for D = 100 m below 60° of latitude; docs/api.md "Shapes").
import { EARTH_RADIUS_M } from './distance.js';
import type { Shape } from './shape.js';

const RAD = Math.PI / 180;
const M_PER_DEG = EARTH_RADIUS_M * RAD;
/** Degrees of latitude beyond the shape's box within which its quick outside answer holds (Shape.outerK). */
export const QUICK_PAD_DEG = 1;
const QUICK_PAD_M = QUICK_PAD_DEG * M_PER_DEG;

/** The point's longitude written to meet part `p` of a shape that reaches the antimeridian. */
function lonFor(s: Shape, p: number, lon: number): number {
  if (!s.wraps) return lon;
  const mid = s.partBox[5 * p + 4]!;
  return lon - mid > 180 ? lon - 360 : mid - lon > 180 ? lon + 360 : lon;
}

/** Whether a polygon holds the point (a point exactly on an edge may go either way; the distance then says 0). */
function holds(s: Shape, lat: number, lon: number): boolean {
  const xy = s.xy;
  const bb = s.blockBox;
  let b = 0;
  for (let p = 0; p < s.partEnd.length; p++) {
    const end = s.partEnd[p]!;
    const pb = 5 * p;
    const x0 = lonFor(s, p, lon);
    if (lat < s.partBox[pb + 1]! || lat >= s.partBox[pb + 3]! || x0 > s.partBox[pb + 2]!) {
      b = end;
      continue;
    }
    let crossings = 0;
    for (; b < end; b++) {
      const o = 4 * b;
      // Only edges that straddle the point's latitude, east of it, cross the ray going east.
      if (lat < bb[o + 1]! || lat >= bb[o + 3]! || x0 > bb[o + 2]!) continue;
      const last = s.blockTo[b]!;
      let ax = xy[2 * s.blockFrom[b]!]!;
      let ay = xy[2 * s.blockFrom[b]! + 1]!;
      for (let i = s.blockFrom[b]! + 1; i <= last; i++) {
        const bx = xy[2 * i]!;
        const by = xy[2 * i + 1]!;
        if (ay > lat !== by > lat && x0 < ((bx - ax) * (lat - ay)) / (by - ay) + ax) crossings++;
        ax = bx;
        ay = by;
      }
    }
    if ((crossings & 1) === 1) return true;
  }
  return false;
}

/**
 * Metres from the point to the nearest edge (or line), or, when less is asked: the search stops at
 * the first edge within `stopAt` (answering its distance), and skips the blocks whose box lies
 * beyond `skipBeyond` (answering a figure above it when nothing nearer is found).
 */
function nearestEdge(s: Shape, lat: number, lon: number, stopAt = -1, skipBeyond = Infinity): number {
  const kx = Math.cos(lat * RAD) * M_PER_DEG;
  const xy = s.xy;
  const bb = s.blockBox;
  const zone = skipBeyond !== Infinity;
  const stop = stopAt >= 0 ? stopAt * stopAt : -1;
  const beyond = skipBeyond * skipBeyond;
  let best = Infinity; // squared metres
  let skipped = Infinity; // the nearest box skipped for being beyond `within`
  let b = 0;
  for (let p = 0; p < s.partEnd.length; p++) {
    const end = s.partEnd[p]!;
    const pb = 5 * p;
    const x0 = lonFor(s, p, lon);
    const pdx = Math.max(0, s.partBox[pb]! - x0, x0 - s.partBox[pb + 2]!) * kx;
    const pdy = Math.max(0, s.partBox[pb + 1]! - lat, lat - s.partBox[pb + 3]!) * M_PER_DEG;
    const plb = pdx * pdx + pdy * pdy;
    if (plb >= best || plb > beyond) {
      if (zone && plb < skipped) skipped = plb;
      b = end;
      continue;
    }
    for (; b < end; b++) {
      const o = 4 * b;
      const dx = Math.max(0, bb[o]! - x0, x0 - bb[o + 2]!) * kx;
      const dy = Math.max(0, bb[o + 1]! - lat, lat - bb[o + 3]!) * M_PER_DEG;
      const lb = dx * dx + dy * dy;
      if (lb >= best) continue;
      if (lb > beyond) {
        if (lb < skipped) skipped = lb;
        continue;
      }
      const last = s.blockTo[b]!;
      let px = (xy[2 * s.blockFrom[b]!]! - x0) * kx;
      let py = (xy[2 * s.blockFrom[b]! + 1]! - lat) * M_PER_DEG;
      for (let i = s.blockFrom[b]! + 1; i <= last; i++) {
        const qx = (xy[2 * i]! - x0) * kx;
        const qy = (xy[2 * i + 1]! - lat) * M_PER_DEG;
        const ex = qx - px;
        const ey = qy - py;
        const len2 = ex * ex + ey * ey;
        let t = len2 > 0 ? -(px * ex + py * ey) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const cx = px + t * ex;
        const cy = py + t * ey;
        const d2 = cx * cx + cy * cy;
        if (d2 < best) {
          best = d2;
          if (best <= stop) return Math.sqrt(best);
        }
        px = qx;
        py = qy;
      }
    }
  }
  return Math.sqrt(Math.min(best, skipped));
}

/**
 * Metres from (lat, lon) to the shape's boundary, negative inside: for a polygon, the distance to
 * the nearest edge of any ring (holes included), negated when the point is inside; for a corridor,
 * the distance to the line less half the width. A point on the boundary is 0 (inside).
 */
export function edgeDistanceM(s: Shape, lat: number, lon: number): number {
  if (s.kind === 'corridor') return nearestEdge(s, lat, lon) - s.halfWidth;
  const d = nearestEdge(s, lat, lon);
  return d > 0 && holds(s, lat, lon) ? -d : d;
}

/**
 * What the zone rule needs, cheaper: a figure that is ≤ 0 when the point is inside (not how deep),
 * and otherwise the distance outside, except that once the point is found within `withinM` of the
 * boundary the figure is only known to lie in (0, withinM]. So the zone it gives with a margin of
 * `withinM` (hysteresis.ts classifyEdge) is the exact distance's.
 */
export function edgeZoneM(s: Shape, lat: number, lon: number, withinM: number): number {
  if (s.outer !== Infinity) {
    // Round the centre: inside its inner circle is inside; beyond its outer circle and the margin is out.
    const dy = (lat - s.centreLat) * M_PER_DEG;
    const dx = (lon - s.centreLon) * s.centreK;
    if (dx * dx + dy * dy <= s.inner * s.inner) return -0;
    // North or south of the whole shape (a corridor's line and half its width): as far as that at least, in any frame.
    const beyond = Math.max(s.box[1]! - lat, lat - s.box[3]!) * M_PER_DEG - s.halfWidth;
    if (beyond > withinM) return beyond;
    if (beyond + s.halfWidth <= QUICK_PAD_M) {
      const kx = (lon - s.centreLon) * s.outerK;
      const far = Math.sqrt(kx * kx + dy * dy) - s.outer;
      if (far > withinM) return far;
    }
  }
  // A corridor holds the point once any leg is within half the width: the search may stop there.
  if (s.kind === 'corridor') {
    // In within half the width; otherwise only whether within half the width plus the margin matters.
    const d = nearestEdge(s, lat, lon, s.halfWidth, s.halfWidth + withinM);
    return d - s.halfWidth;
  }
  if (holds(s, lat, lon)) return -0;
  const d = nearestEdge(s, lat, lon, withinM, withinM);
  // A point on an edge that the crossing test put outside is on the boundary: inside (unless the
  // search stopped at a nearer-than-`withinM` edge first; a point exactly on an edge may go either way).
  return d === 0 ? -0 : d;
}
