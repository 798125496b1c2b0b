// What a developer pastes or uploads for a replay, read into the request body of POST
// /1/trigger/replay and, for the map, into points: location/update points (JSON array), a GeoJSON
// LineString or Feature, or GPX.
import type { Point } from './api';

export interface ReadTrack {
  body: Record<string, unknown>;
  points: Point[];
}

type Position = { latitude: number; longitude: number; horizontal_accuracy?: number | null };
type UpdatePoint = { date?: unknown; location?: { position?: Position } };

export function readTrack(text: string): ReadTrack {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('Paste or upload a track first.');
  if (trimmed.startsWith('<')) {
    const doc = new DOMParser().parseFromString(trimmed, 'application/xml');
    if (doc.querySelector('parsererror')) throw new Error('This GPX is not well-formed XML.');
    const points = [...doc.querySelectorAll('trkpt, rtept, wpt')].map((n) => ({ latitude: Number(n.getAttribute('lat')), longitude: Number(n.getAttribute('lon')) }));
    return { body: { track: trimmed, format: 'gpx' }, points };
  }
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    throw new Error('The track is neither JSON (points or GeoJSON) nor GPX.');
  }
  if (Array.isArray(json)) {
    const points = (json as UpdatePoint[]).flatMap((p) => (p?.location?.position ? [{ ...p.location.position }] : []));
    return { body: { points: json }, points };
  }
  const obj = json as { type?: string; geometry?: { coordinates?: number[][] }; coordinates?: number[][]; points?: UpdatePoint[] };
  if (obj.type === 'Feature' || obj.type === 'LineString') {
    const coords = (obj.type === 'Feature' ? obj.geometry?.coordinates : obj.coordinates) ?? [];
    return { body: { track: obj, format: 'geojson' }, points: coords.map(([lon, lat]) => ({ latitude: lat, longitude: lon })) };
  }
  if (Array.isArray(obj.points)) return readTrack(JSON.stringify(obj.points));
  throw new Error('Unrecognised JSON: expected an array of location/update points, a GeoJSON LineString or Feature.');
}
