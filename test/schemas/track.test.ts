// A replay's track: GPX is counted while it streams and refused at the first limit it passes
// (points, elements, depth, a DOCTYPE) before anything builds a document of it; a track within
// the limits reads as its points with their times.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { GPX_ELEMENTS_PER_POINT, MAX_GPX_DEPTH, checkGpx, geoJsonRows, gpxRows } from '../../src/schemas/track.js';

const MAX = 10_000;
const T0 = Date.parse('2024-05-01T10:00:00Z');
const trkpt = (i: number) =>
  `<trkpt lat="${(45.5 + i * 1e-5).toFixed(5)}" lon="-122.6"><ele>10</ele><time>${new Date(T0 + i * 1000).toISOString()}</time></trkpt>`;
const gpxOf = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">${body}</gpx>`;
const track = (n: number) => gpxOf(`<trk><trkseg>${Array.from({ length: n }, (_, i) => trkpt(i)).join('\n')}</trkseg></trk>`);

/** The 4xx a call throws: its status and description. */
function refusal(fn: () => unknown): { status: number; description: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, description: err.description };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('GPX tracks', () => {
  it('reads a track\'s points with their times', () => {
    const rows = gpxRows(track(3), MAX);
    expect(rows).toEqual([0, 1, 2].map((i) => ({ at: T0 + i * 1000, lat: Number((45.5 + i * 1e-5).toFixed(5)), lon: -122.6, acc: 0 })));
  });

  it('stops counting at the point limit: a document of 100,000 points is refused before its end is read', () => {
    // The end is not well-formed: a parser that read the whole document first would say so instead.
    const text = track(100_000).replace(/<\/gpx>$/, '<broken');
    const r = refusal(() => gpxRows(text, MAX));
    expect(r.status).toBe(400);
    expect(r.description).toMatch(/at most 10000 points/);
  });

  it('counts route points too', () => {
    const rte = gpxOf(`<rte>${Array.from({ length: 11 }, (_, i) => trkpt(i).replaceAll('trkpt', 'rtept')).join('')}</rte>`);
    expect(refusal(() => gpxRows(rte, 10)).description).toMatch(/at most 10 points/);
    expect(checkGpx(rte, 11)).toBe(11);
  });

  it('refuses an element nest deeper than the limit, however deep it goes', () => {
    const deep = gpxOf(`${'<extensions>'.repeat(100_000)}${'</extensions>'.repeat(100_000)}`);
    const r = refusal(() => gpxRows(deep, MAX));
    expect(r.status).toBe(400);
    expect(r.description).toMatch(new RegExp(`deeper than ${MAX_GPX_DEPTH} levels`));
    // As deep as a real track point's extensions is fine.
    const ext = '<extensions><a><b><c>1</c></b></a></extensions></trkpt>';
    const ok = gpxOf(`<trk><trkseg>${trkpt(0).replace('</trkpt>', ext)}${trkpt(1).replace('</trkpt>', ext)}</trkseg></trk>`);
    expect(gpxRows(ok, MAX)).toHaveLength(2);
  });

  it('refuses a document with more elements than its points can need', () => {
    const padding = '<extensions>' + '<x/>'.repeat(20 * GPX_ELEMENTS_PER_POINT) + '</extensions>';
    const text = gpxOf(`<trk><trkseg>${trkpt(0)}</trkseg></trk>${padding}`);
    const r = refusal(() => gpxRows(text, 20));
    expect(r.status).toBe(400);
    expect(r.description).toMatch(new RegExp(`more than ${20 * GPX_ELEMENTS_PER_POINT} elements`));
  });

  it('refuses a DOCTYPE (entity declarations) and what is not well-formed XML', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><gpx>&b;</gpx>`;
    expect(refusal(() => gpxRows(laughs, MAX)).description).toMatch(/DOCTYPE/);
    expect(refusal(() => gpxRows('<gpx><trk>', MAX)).description).toMatch(/not a well-formed GPX document/);
  });
});

describe('GeoJSON tracks', () => {
  it('reads a LineString with times, as an object or as text, and stops at the point limit', () => {
    const line = { type: 'Feature', properties: { coordTimes: [0, 1, 2].map((i) => new Date(T0 + i * 1000).toISOString()) }, geometry: { type: 'LineString', coordinates: [[-122.6, 45.5], [-122.6, 45.6], [-122.6, 45.7]] } };
    const rows = geoJsonRows(line, MAX);
    expect(rows.map((r) => [r.at, r.lat])).toEqual([[T0, 45.5], [T0 + 1000, 45.6], [T0 + 2000, 45.7]]);
    expect(geoJsonRows(JSON.stringify(line), MAX)).toEqual(rows);
    expect(refusal(() => geoJsonRows(line, 2)).description).toMatch(/at most 2 points/);
    expect(refusal(() => geoJsonRows('{', MAX)).description).toMatch(/neither GPX nor GeoJSON/);
  });
});
