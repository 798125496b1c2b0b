// The centre and radius a shaped place answers with (latitude, longitude, radius), for clients that
// read only those, and the radius the trigger rules scale with (the leave margin, the accuracy
// bound; hysteresis.ts). A polygon's centre is its pole of inaccessibility, the inside point
// farthest from every edge (polylabel), and its radius that distance: the largest circle inside the
// shape, so the centre is inside even an L or a ring, and a circle of that radius is wholly in the
// place. A corridor's centre is the middle of its line (by length) and its radius half its width.
import polylabel from 'polylabel';
import { EARTH_RADIUS_M } from './distance.js';
import type { PlaceGeometry, Position } from './geometry.js';
import { prepareShape, type Shape } from './shape.js';
import { edgeDistanceM } from './shape-measure.js';

const RAD = Math.PI / 180;
const M_PER_DEG = EARTH_RADIUS_M * RAD;

export interface ShapeCircle {
  latitude: number;
  longitude: number;
  /** Metres, to the centimetre, at least 1 cm. */
  radius: number;
}

const deg = (d: number) => Math.round(d * 1e7) / 1e7;

/** The centre and radius of a checked geometry (`width`: a corridor's). */
export function shapeCircle(geometry: PlaceGeometry, width?: number): ShapeCircle {
  const shape = prepareShape(geometry, width);
  if (geometry.type === 'LineString') {
    const [lon, lat] = lineMiddle(geometry.coordinates);
    return { latitude: deg(lat), longitude: deg(lon), radius: Math.max(0.01, Math.floor((width ?? 0) * 50) / 100) };
  }
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let best: ShapeCircle = { latitude: 0, longitude: 0, radius: -Infinity };
  for (const rings of polygons) {
    const c = pole(rings, shape);
    if (c.radius > best.radius) best = c;
  }
  return best;
}

/**
 * The pole of one polygon, found by polylabel in a plane of metres around the polygon's box centre,
 * then measured again as the engine measures (edgeDistanceM) once rounded to the 1e-7 degrees it
 * is stored with.
 */
function pole(rings: Position[][], shape: Shape): ShapeCircle {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of rings[0]!) {
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  const lon0 = (minX + maxX) / 2;
  const lat0 = (minY + maxY) / 2;
  const kx = Math.cos(lat0 * RAD) * M_PER_DEG;
  const plane = rings.map((r) => r.map(([x, y]) => [(x - lon0) * kx, (y - lat0) * M_PER_DEG] as [number, number]));
  const size = Math.min((maxX - minX) * kx, (maxY - minY) * M_PER_DEG);
  const [px, py] = polylabel(plane, Math.max(0.05, size / 2000));
  const latitude = deg(lat0 + py / M_PER_DEG);
  const longitude = deg(lon0 + px / kx);
  // Depth in the whole shape (another part may come nearer than this polygon's own edges).
  const depth = -edgeDistanceM(shape, latitude, longitude);
  return { latitude, longitude, radius: Math.max(0.01, Math.floor(depth * 100) / 100) };
}

/** The position halfway along a line, by length. */
function lineMiddle(line: Position[]): Position {
  const lengths: number[] = [];
  let total = 0;
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = line[i - 1]!;
    const [bx, by] = line[i]!;
    const l = Math.hypot((bx - ax) * Math.cos(((ay + by) / 2) * RAD), by - ay);
    lengths.push(l);
    total += l;
  }
  let left = total / 2;
  for (let i = 1; i < line.length; i++) {
    const l = lengths[i - 1]!;
    if (left <= l && l > 0) {
      const t = left / l;
      const [ax, ay] = line[i - 1]!;
      const [bx, by] = line[i]!;
      return [ax + t * (bx - ax), ay + t * (by - ay)];
    }
    left -= l;
  }
  return line[line.length - 1]!;
}
