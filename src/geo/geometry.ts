// Place shapes as the API takes them: GeoJSON (RFC 7946) Polygon and MultiPolygon (holes allowed),
// and a corridor, a LineString with a width in metres. This module checks a geometry and returns it
// normalised (positions as [longitude, latitude]), or says in a sentence what is wrong with it, so
// that a bad shape is refused before anything is stored. Edges are straight lines in longitude and
// latitude, as RFC 7946 §3.1.1 has them. Pure: the service turns a refusal into its 400.
import { crossingPair } from './rings.js';

/** Positions in one geometry at most (every ring and part together). */
export const MAX_GEOMETRY_POSITIONS = 2_000;
/** Widest corridor, metres. */
export const MAX_CORRIDOR_WIDTH_M = 100_000;
/** Shapes stay within these latitudes: the distances are measured in a local frame (shape.ts) that fails near the poles. */
export const SHAPE_MAX_LATITUDE = 85;

/** [longitude, latitude], degrees. */
export type Position = [number, number];
export interface PolygonGeometry {
  type: 'Polygon';
  coordinates: Position[][];
}
export interface MultiPolygonGeometry {
  type: 'MultiPolygon';
  coordinates: Position[][][];
}
export interface LineStringGeometry {
  type: 'LineString';
  coordinates: Position[];
}
export type PlaceGeometry = PolygonGeometry | MultiPolygonGeometry | LineStringGeometry;
export const GEOMETRY_TYPES = ['Polygon', 'MultiPolygon', 'LineString'] as const;

export type GeometryCheck = { ok: true; geometry: PlaceGeometry } | { ok: false; error: string };

class Refusal extends Error {}

const fail = (message: string): never => {
  throw new Refusal(message);
};

const SPLIT_HINT =
  'split it at longitude 180 (RFC 7946 §3.1.9): a polygon into a MultiPolygon of one polygon on each side, a corridor into two places';

/**
 * Checks `value` as the geometry of a place and `width` as its corridor width (only for a
 * LineString, where it is required). Altitudes are dropped; other members (bbox, foreign members)
 * are not kept.
 */
export function checkGeometry(value: unknown, width: number | undefined): GeometryCheck {
  try {
    const geometry = readGeometry(value, width);
    return { ok: true, geometry };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, error: err.message };
    throw err;
  }
}

function readGeometry(value: unknown, width: number | undefined): PlaceGeometry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('geometry must be a GeoJSON object: {"type":"Polygon","coordinates":[…]}');
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown };
  if (typeof type !== 'string') fail('geometry.type is required: Polygon, MultiPolygon or LineString');
  if (!(GEOMETRY_TYPES as readonly string[]).includes(type as string)) {
    fail(`geometry.type ${JSON.stringify(type)} is not a shape a place can have: send a Polygon, a MultiPolygon, or a LineString with a width (a corridor)`);
  }
  if (!Array.isArray(coordinates)) fail('geometry.coordinates is required and must be a list');
  const counter = { n: 0 };
  if (type === 'LineString') {
    if (width === undefined) fail('A LineString place is a corridor: send its width in metres (width)');
    checkWidth(width!);
    return { type, coordinates: readLine(coordinates as unknown[], 'geometry.coordinates', counter) };
  }
  if (width !== undefined) fail('width is only for a corridor (a LineString geometry)');
  if (type === 'Polygon') return { type, coordinates: readPolygon(coordinates as unknown[], 'geometry.coordinates', counter) };
  const parts = coordinates as unknown[];
  if (parts.length === 0) fail('geometry.coordinates of a MultiPolygon needs at least one polygon');
  return { type: 'MultiPolygon', coordinates: parts.map((p, i) => readPolygon(asList(p, `geometry.coordinates[${i}]`), `geometry.coordinates[${i}]`, counter)) };
}

function checkWidth(width: number): void {
  if (typeof width !== 'number' || !Number.isFinite(width) || width <= 0 || width > MAX_CORRIDOR_WIDTH_M) {
    fail(`width must be a number of metres above 0 and at most ${MAX_CORRIDOR_WIDTH_M}`);
  }
}

function asList(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(`${where} must be a list`);
  return v as unknown[];
}

function readPosition(v: unknown, where: string, counter: { n: number }): Position {
  if (++counter.n > MAX_GEOMETRY_POSITIONS) fail(`A geometry has at most ${MAX_GEOMETRY_POSITIONS} positions`);
  if (!Array.isArray(v) || v.length < 2 || v.length > 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    fail(`${where} must be a position: [longitude, latitude] (numbers; an altitude may follow)`);
  }
  const [lon, lat] = v as number[];
  if (lon! < -180 || lon! > 180) fail(`${where}: longitude ${lon} is out of range (-180 to 180)`);
  if (lat! < -90 || lat! > 90) fail(`${where}: latitude ${lat} is out of range (-90 to 90)`);
  if (Math.abs(lat!) > SHAPE_MAX_LATITUDE) fail(`${where}: latitude ${lat} is too near a pole: a shape stays within ${SHAPE_MAX_LATITUDE}° of the equator (a circle place may go further)`);
  return [lon!, lat!];
}

function readPositions(list: unknown[], where: string, counter: { n: number }): Position[] {
  return list.map((p, i) => readPosition(p, `${where}[${i}]`, counter));
}

/** An edge from one position to the next may not take the long way round. */
function checkSpan(positions: Position[], where: string): void {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < positions.length; i++) {
    const lon = positions[i]![0];
    if (i > 0 && Math.abs(lon - positions[i - 1]![0]) > 180) {
      fail(`${where}: the edge from position ${i - 1} to ${i} crosses the antimeridian (longitude ±180); ${SPLIT_HINT}`);
    }
    if (lon < min) min = lon;
    if (lon > max) max = lon;
  }
  if (max - min > 180) fail(`${where} spans more than 180° of longitude; ${SPLIT_HINT}`);
}

function readLine(list: unknown[], where: string, counter: { n: number }): Position[] {
  const line = readPositions(list, where, counter);
  if (line.length < 2) fail(`${where}: a LineString needs at least 2 positions`);
  if (line.every((p) => samePosition(p, line[0]!))) fail(`${where}: a LineString needs two different positions`);
  checkSpan(line, where);
  return line;
}

const samePosition = (a: Position, b: Position) => a[0] === b[0] && a[1] === b[1];

function readRing(list: unknown, where: string, counter: { n: number }): Position[] {
  const ring = readPositions(asList(list, where), where, counter);
  if (ring.length < 4) fail(`${where}: a ring needs at least 4 positions (3 corners and the first again), it has ${ring.length}`);
  if (!samePosition(ring[0]!, ring[ring.length - 1]!)) fail(`${where}: the ring is not closed: its last position must equal its first`);
  checkSpan(ring, where);
  return ring;
}

function readPolygon(rings: unknown[], where: string, counter: { n: number }): Position[][] {
  if (rings.length === 0) fail(`${where}: a polygon needs its outer ring`);
  const out = rings.map((r, i) => readRing(r, `${where}[${i}]`, counter));
  const crossing = crossingPair(out);
  if (crossing !== null) {
    const [a, b] = crossing;
    fail(a === b
      ? `${where}[${a}]: the ring intersects itself: its edges must not cross or touch`
      : `${where}: rings ${a} and ${b} cross or touch: a hole must lie strictly inside its outer ring and apart from the other holes`);
  }
  out.forEach((ring, i) => {
    if (signedArea(ring) === 0) fail(`${where}[${i}]: the ring encloses no area`);
  });
  // No two rings meet, so a ring is wholly inside another or wholly outside it: one position tells.
  const shell = out[0]!;
  for (let h = 1; h < out.length; h++) {
    const p = out[h]![0]!;
    if (!inRing(p, shell)) fail(`${where}[${h}]: the hole lies outside its outer ring (ring 0)`);
    for (let k = 1; k < out.length; k++) {
      if (k !== h && inRing(p, out[k]!)) fail(`${where}[${h}]: the hole lies inside another hole (ring ${k})`);
    }
  }
  return out;
}

/** Twice the signed area in degrees² (shoelace): 0 for a ring whose positions are all on one line. */
function signedArea(ring: Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return s;
}

/** Crossing-number test of a position against one closed ring (in degrees, as RFC 7946 draws edges). */
export function inRing(p: Position, ring: Position[]): boolean {
  const [x, y] = p;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The longitude and latitude box of a geometry's positions (not across the antimeridian: a part on each side spans it all). */
export function geometryBox(g: PlaceGeometry): { minLat: number; maxLat: number; minLon: number; maxLon: number } {
  let minLat = 90, maxLat = -90, minLon = 180, maxLon = -180;
  const see = (p: Position) => {
    if (p[0] < minLon) minLon = p[0];
    if (p[0] > maxLon) maxLon = p[0];
    if (p[1] < minLat) minLat = p[1];
    if (p[1] > maxLat) maxLat = p[1];
  };
  if (g.type === 'LineString') g.coordinates.forEach(see);
  else if (g.type === 'Polygon') g.coordinates.forEach((r) => r.forEach(see));
  else g.coordinates.forEach((poly) => poly.forEach((r) => r.forEach(see)));
  return { minLat, maxLat, minLon, maxLon };
}
