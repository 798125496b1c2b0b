// A place's shape from the API's fields (docs/api.md "Shapes"): a circle (`latitude`, `longitude`,
// `radius`, the default, as every Geoloqi client sends it) or a GeoJSON `geometry` (a Polygon or
// MultiPolygon, or a LineString with a `width`: a corridor). A shaped place keeps `latitude`,
// `longitude` and `radius` too, derived from its geometry (src/geo/shape-centre.ts), so clients that
// only read those still get a point inside it; they are not sent with a geometry.
import { apiError } from '../errors.js';
import { checkGeometry } from '../geo/geometry.js';
import { shapeCircle } from '../geo/shape-centre.js';
import type { PlaceDoc, PlaceGeometryDoc } from '../store/documents.js';

export interface ShapeInput {
  latitude?: number;
  longitude?: number;
  radius?: number;
  span_longitude?: number;
  geocode?: string;
  /** A GeoJSON object, or its JSON text (a form body); null on update makes the place a circle. */
  geometry?: unknown;
  /** A corridor's width, metres. */
  width?: number;
}

/** What a shaped place stores besides its other fields. */
export interface ShapeFields {
  latitude: number;
  longitude: number;
  radius: number;
  geometry: PlaceGeometryDoc;
  width?: number;
}

const CIRCLE_FIELDS = ['latitude', 'longitude', 'radius', 'span_longitude', 'geocode'] as const;

function geometryValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw apiError('invalid_input', 'geometry must be a GeoJSON object (in a form body: its JSON text)');
  }
}

/** The stored fields of a shape, checked: a refused geometry is a 400 that says why. */
export function shapeFields(geometry: unknown, width: number | undefined): ShapeFields {
  const checked = checkGeometry(geometryValue(geometry), width);
  if (!checked.ok) throw apiError('invalid_input', checked.error);
  const g = checked.geometry;
  const c = shapeCircle(g, width);
  return { latitude: c.latitude, longitude: c.longitude, radius: c.radius, geometry: g, ...(g.type === 'LineString' ? { width } : {}) };
}

function refuseCircleFields(input: ShapeInput): void {
  const sent = CIRCLE_FIELDS.filter((f) => input[f] !== undefined);
  if (sent.length > 0) {
    throw apiError('invalid_input', `Send geometry or ${sent.join(', ')}, not both: a shaped place's latitude, longitude and radius come from its geometry`);
  }
}

const widthAlone = () => apiError('invalid_input', 'width is the width of a corridor: send it with a LineString geometry');

/** place/create and trigger/create's inline place: a shape when `geometry` is given, else null (a circle). */
export function newShape(input: ShapeInput): ShapeFields | null {
  if (input.geometry === undefined || input.geometry === null) {
    if (input.width !== undefined) throw widthAlone();
    return null;
  }
  refuseCircleFields(input);
  return shapeFields(input.geometry, input.width);
}

export interface ShapeChange {
  set: Partial<ShapeFields>;
  unset: Array<'geometry' | 'width'>;
  /** The circle fields of `input` that the update still applies (those a shape ignores are dropped). */
  circle: Pick<ShapeInput, 'latitude' | 'longitude' | 'radius' | 'span_longitude'>;
}

/**
 * place/update: a new geometry replaces the shape (a corridor keeps its width unless one is sent);
 * `geometry: null` makes the place a circle at its centre, of its radius unless others are sent;
 * `width` alone widens a corridor. A shaped place's latitude, longitude and radius sent back
 * unchanged (a client echoing what it read) change nothing; other values are refused.
 */
export function shapeChange(input: ShapeInput, current: PlaceDoc): ShapeChange {
  const circle = { latitude: input.latitude, longitude: input.longitude, radius: input.radius, span_longitude: input.span_longitude };
  if (input.geometry === null) {
    if (input.width !== undefined) throw widthAlone();
    return { set: {}, unset: current.geometry !== undefined ? ['geometry', 'width'] : [], circle };
  }
  if (input.geometry !== undefined) {
    refuseCircleFields(input);
    const next = shapeFields(input.geometry, input.width ?? (current.geometry?.type === 'LineString' && isLine(input.geometry) ? current.width : undefined));
    return { set: next, unset: next.width === undefined && current.width !== undefined ? ['width'] : [], circle: {} };
  }
  if (current.geometry === undefined) {
    if (input.width !== undefined) throw widthAlone();
    return { set: {}, unset: [], circle };
  }
  const moved = (['latitude', 'longitude', 'radius'] as const).filter((f) => input[f] !== undefined && input[f] !== current[f]);
  if (moved.length > 0 || input.span_longitude !== undefined) {
    throw apiError(
      'invalid_input',
      `This place's latitude, longitude and radius come from its geometry: send a new geometry, or geometry null to make it a circle (${[...moved, ...(input.span_longitude !== undefined ? ['span_longitude'] : [])].join(', ')} sent)`,
    );
  }
  if (input.width === undefined) return { set: {}, unset: [], circle: {} };
  if (current.geometry.type !== 'LineString') throw apiError('invalid_input', 'width is only for a corridor (a LineString geometry); this place is a polygon');
  return { set: shapeFields(current.geometry, input.width), unset: [], circle: {} };
}

function isLine(v: unknown): boolean {
  const g = geometryValue(v);
  return typeof g === 'object' && g !== null && (g as { type?: unknown }).type === 'LineString';
}
