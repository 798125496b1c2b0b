// A replay's track read into rows (time, position, accuracy): a GPX document or a GeoJSON line
// with times. GPX goes through a streaming pass first (saxes) that counts the points and elements
// and the depth of the nesting and stops at the first limit, so a document too large or too deep
// is refused after reading no more of it than the limit allows; only a document within them is
// parsed whole (xmldom) and read by togeojson. The replay thread runs this (src/engine/replay-run.ts).
import { gpx } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { SaxesParser } from 'saxes';
import { ApiError, apiError } from '../errors.js';

/** A point of a track: device time (epoch ms), position, horizontal accuracy in metres. */
export interface TrackRow {
  at: number;
  lat: number;
  lon: number;
  acc: number;
}

/** Elements of a GPX document at most, per point allowed (a track point with elevation, time and sensor extensions has under ten). */
export const GPX_ELEMENTS_PER_POINT = 20;
/** The deepest nesting of elements a GPX document may have (a track point's extensions sit at depth 6 or 7). */
export const MAX_GPX_DEPTH = 32;

/** The refusal of a track longer than a replay takes. */
export const tooManyPoints = (max: number, n?: number) =>
  apiError('invalid_input', `A replay takes at most ${max} points; this track has ${n === undefined ? 'more' : n}`);

/** Stops the streaming pass at the first limit the document passes. */
class Refusal extends Error {}

/**
 * Counts a GPX document's track and route points, its elements and its depth, without building
 * anything, and refuses it at the first limit it passes (or where it is not well-formed XML).
 * Answers the number of points.
 */
export function checkGpx(text: string, maxPoints: number): number {
  const maxElements = maxPoints * GPX_ELEMENTS_PER_POINT;
  const parser = new SaxesParser();
  let depth = 0;
  let elements = 0;
  let points = 0;
  parser.on('doctype', () => {
    // Entity declarations are how XML documents expand: a GPX document has no use for them.
    throw new Refusal('track: a GPX document may not have a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    if (++depth > MAX_GPX_DEPTH) throw new Refusal(`track: the GPX document nests elements deeper than ${MAX_GPX_DEPTH} levels`);
    if (++elements > maxElements) throw new Refusal(`track: the GPX document has more than ${maxElements} elements (at most ${GPX_ELEMENTS_PER_POINT} per point of the ${maxPoints} a replay takes)`);
    const local = tag.name.slice(tag.name.indexOf(':') + 1);
    if ((local === 'trkpt' || local === 'rtept') && ++points > maxPoints) throw tooManyPoints(maxPoints);
  });
  parser.on('closetag', () => {
    depth--;
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof Refusal) throw apiError('invalid_input', err.message);
    if (err instanceof ApiError) throw err;
    throw apiError('invalid_input', `track: not a well-formed GPX document (${(err as Error).message.split('\n')[0]})`);
  }
  return points;
}

/** The points of a GPX document's tracks and routes, every one with its time. */
export function gpxRows(text: string, maxPoints: number): TrackRow[] {
  checkGpx(text, maxPoints);
  return checkedGpxRows(text, maxPoints);
}

/** gpxRows of a document checkGpx has passed. */
export function checkedGpxRows(text: string, maxPoints: number): TrackRow[] {
  let doc;
  try {
    doc = new DOMParser({
      onError: (level: string, message: string) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (err) {
    throw apiError('invalid_input', `track: not a well-formed GPX document (${(err as Error).message.split('\n')[0]})`);
  }
  return featureRows(gpx(doc) as unknown as Feature, maxPoints);
}

/** The points of a GeoJSON track (an object, or its text). */
export function geoJsonRows(track: string | Record<string, unknown>, maxPoints: number): TrackRow[] {
  const value = typeof track === 'string' ? parseJson(track) : track;
  if (typeof value !== 'object' || value === null) throw apiError('invalid_input', 'track: not a GeoJSON object');
  return featureRows(value as Feature, maxPoints);
}

/** Whether a track given as text is GPX (or GeoJSON), when `format` does not say. */
export function trackFormat(track: string | Record<string, unknown>, format?: 'gpx' | 'geojson'): 'gpx' | 'geojson' {
  return format ?? (typeof track === 'string' && track.trimStart().startsWith('<') ? 'gpx' : 'geojson');
}

type Geometry = { type?: unknown; coordinates?: unknown; geometries?: unknown };
type Feature = { type?: unknown; geometry?: Geometry | null; properties?: Record<string, unknown> | null; features?: unknown };

function featureRows(geo: Feature, maxPoints: number): TrackRow[] {
  const rows: TrackRow[] = [];
  for (const f of features(geo)) addLine(rows, f, maxPoints);
  if (rows.length === 0) throw apiError('invalid_input', 'track: no LineString with points found (a GPX track or route, or a GeoJSON LineString)');
  return rows;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw apiError('invalid_input', 'track: neither GPX nor GeoJSON text');
  }
}

/** The features of a FeatureCollection, a Feature, or a bare geometry (as a feature without properties). */
function features(g: Feature): Feature[] {
  if (g.type === 'FeatureCollection') return Array.isArray(g.features) ? (g.features as Feature[]) : [];
  if (g.type === 'Feature') return [g];
  return [{ type: 'Feature', geometry: g as Geometry, properties: null }];
}

/**
 * The points of a feature's LineString (or MultiLineString) with their times: GPX tracks read by
 * togeojson carry them as properties.coordinateProperties.times, older tools as properties.coordTimes.
 */
function addLine(rows: TrackRow[], f: Feature, maxPoints: number): void {
  const g = f.geometry;
  if (!g || (g.type !== 'LineString' && g.type !== 'MultiLineString')) return;
  const lines = (g.type === 'LineString' ? [g.coordinates] : g.coordinates) as unknown[];
  const props = f.properties ?? {};
  const cp = props.coordinateProperties as { times?: unknown } | undefined;
  const times = (cp?.times ?? props.coordTimes) as unknown;
  if (!Array.isArray(lines) || !Array.isArray(times)) throw apiError('invalid_input', 'track: every point needs a time (GPX <time>, or GeoJSON properties.coordinateProperties.times)');
  const timesOf = (i: number): unknown[] => (g.type === 'LineString' ? times : (times[i] as unknown[]));
  lines.forEach((line, i) => {
    const ts = timesOf(i);
    if (!Array.isArray(line) || !Array.isArray(ts) || ts.length !== line.length) {
      throw apiError('invalid_input', 'track: every point needs a time (as many times as coordinates)');
    }
    line.forEach((c, k) => {
      const [lon, lat] = Array.isArray(c) ? (c as unknown[]) : [];
      const at = typeof ts[k] === 'number' ? (ts[k] as number) * 1000 : Date.parse(String(ts[k]));
      if (typeof lat !== 'number' || typeof lon !== 'number' || lat < -90 || lat > 90 || lon < -180 || lon > 180) {
        throw apiError('invalid_input', `track: point ${rows.length} is not a [longitude, latitude] position`);
      }
      if (!Number.isFinite(at)) throw apiError('invalid_input', `track: point ${rows.length} has no valid time`);
      if (rows.length >= maxPoints) throw tooManyPoints(maxPoints);
      rows.push({ at, lat, lon, acc: 0 });
    });
  });
}
