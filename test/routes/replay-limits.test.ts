// trigger/replay's bounds, in process (the replay thread's code run in this thread): the pairs and
// the work (points × pairs) are refused up front with the limit and the figure, whatever form the
// track takes; the answer is a page of the timeline that pages to the whole of it; a replay past
// its time budget answers a 503. All in the error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 40, longitude: -74 };
const T0 = Date.parse('2024-05-01T10:00:00Z');
/** A point `east` metres east of the centre. */
const point = (east: number, at: number) => ({
  date: new Date(at).toISOString(),
  location: { position: { latitude: CENTRE.latitude, longitude: CENTRE.longitude + east / 85_000, horizontal_accuracy: 5 } },
});
/** `n` points a minute apart, alternating inside the place (even) and well outside it (odd). */
const alternating = (n: number) => Array.from({ length: n }, (_, i) => point(i % 2 === 0 ? 0 : 600, T0 + i * 60_000));

async function triggersOnOnePlace(s: TestService, app: TestApp, n: number): Promise<{ placeId: string; triggerIds: string[] }> {
  const place = await s.api.post('/1/place/create', { token: app.access_token, json: { ...CENTRE, radius: 100, name: 'the place' } });
  expect(place.status).toBe(200);
  const triggerIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.body.place_id, type: 'message', text: `t${i}` } });
    expect(t.status).toBe(200);
    triggerIds.push(t.body.trigger_id);
  }
  return { placeId: place.body.place_id, triggerIds };
}

describe('trigger/replay limits and pages', () => {
  let s: TestService;
  let app: TestApp;
  let ten: { placeId: string; triggerIds: string[] };
  const replay = (json: Record<string, unknown>) => s.api.post('/1/trigger/replay', { token: app.access_token, json });

  beforeAll(async () => {
    // Small limits, so that a test passes them cheaply: 10 pairs, 20,000 points × pairs.
    s = await startApp({ engine: { replay: { limits: { points: 10_000, pairs: 10, steps: 20_000 } } } });
    app = await createApp(s.api, 'replay limits');
    ten = await triggersOnOnePlace(s, app, 10);
  });
  afterAll(async () => s?.close());

  it('refuses more pairs than a replay takes, before reading the track', async () => {
    const other = await createApp(s.api, 'eleven');
    const eleven = await triggersOnOnePlace(s, other, 11);
    const res = await s.api.post('/1/trigger/replay', { token: other.access_token, json: { place_ids: [eleven.placeId], points: alternating(2) } });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/holds 11 \(trigger, place\) pairs; a replay takes at most 10/);
  });

  it('refuses more work than a replay takes, saying the limit and the figure, for points and for a GPX or GeoJSON text', async () => {
    const pts = alternating(2001);
    const res = await replay({ place_ids: [ten.placeId], points: pts });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/2001 points × 10 pairs = 20010 steps; a replay takes at most 20000 \(points × pairs\)/);

    const pos = pts.map((p) => p.location.position);
    const gpx = `<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${pts
      .map((p, i) => `<trkpt lat="${pos[i]!.latitude}" lon="${pos[i]!.longitude}"><time>${p.date}</time></trkpt>`)
      .join('')}</trkseg></trk></gpx>`;
    const fromGpx = await replay({ place_ids: [ten.placeId], track: gpx });
    expectErrorShape(fromGpx.body, 400, 'invalid_input');
    expect(fromGpx.body.error_description).toMatch(/= 20010 steps/);
    const geojson = JSON.stringify({ type: 'LineString', coordinates: pos.map((p) => [p.longitude, p.latitude]) });
    const line = JSON.stringify({ type: 'Feature', properties: { coordTimes: pts.map((p) => p.date) }, geometry: JSON.parse(geojson) });
    const fromText = await replay({ place_ids: [ten.placeId], track: line, format: 'geojson' });
    expect(fromText.body.error_description).toMatch(/= 20010 steps/);
    // At the limit, it runs (points that stay outside: cheap to run).
    const outside = Array.from({ length: 2000 }, (_, i) => point(600, T0 + i * 60_000));
    expect((await replay({ place_ids: [ten.placeId], points: outside, limit: 1 })).status).toBe(200);
  });

  it('answers a page of the timeline with counts for the whole; the pages fit together into the whole timeline', async () => {
    const body = { place_ids: [ten.placeId], trigger_ids: ten.triggerIds.slice(0, 5), points: alternating(200) };
    // Five of the place's pairs are in the scope through trigger_ids; the place brings in all ten.
    const first = await replay(body);
    expect(first.status).toBe(200);
    const r = first.body;
    expect(r.pairs).toBe(10);
    expect(r.points).toBe(200);
    expect(r.entries).toHaveLength(1000);
    expect(r.truncated).toBe(true);
    expect(r.paging).toEqual({ limit: 1000, total: r.summary.entries, next_offset: 1000 });
    expect(r.summary.entries).toBeGreaterThan(1000);
    expect(r.summary.pairs).toHaveLength(10);
    const sum = (k: string) => r.summary.pairs.reduce((n: number, p: any) => n + p[k], 0);
    expect(sum('transition') + sum('fired') + sum('gated') + sum('point')).toBe(r.summary.entries);
    expect(sum('fired')).toBe(r.summary.firings);

    // Every page, at two page sizes: the same entries, in the same order, with the same ids.
    const pages = async (limit: number) => {
      const all: any[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const res = await replay({ ...body, offset, limit });
        expect(res.status).toBe(200);
        expect(res.body.summary).toEqual(r.summary);
        expect(res.body.final_states).toEqual(r.final_states);
        expect(res.body.truncated).toBe(true);
        expect(res.body.firings).toEqual(res.body.entries.filter((e: any) => e.kind === 'fired').map((e: any) => expect.objectContaining({ firing_id: e.firing_id })));
        all.push(res.body);
        offset = res.body.paging.next_offset;
      }
      return all;
    };
    const big = await pages(1000);
    const small = await pages(400);
    const entries = big.flatMap((p) => p.entries);
    expect(entries).toHaveLength(r.summary.entries);
    expect(small.flatMap((p) => p.entries)).toEqual(entries);
    expect(entries.slice(0, 1000)).toEqual(r.entries);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(big.flatMap((p) => p.firings)).toHaveLength(r.summary.firings);
    expect(small.flatMap((p) => p.firings)).toEqual(big.flatMap((p) => p.firings));

    // A timeline within one page is whole, and not truncated.
    const whole = await replay({ ...body, points: alternating(6) });
    expect(whole.body.truncated).toBe(false);
    expect(whole.body.paging).toEqual({ limit: 1000, total: whole.body.entries.length });
    const parts = [];
    for (let offset = 0; offset < whole.body.entries.length; offset += 37) parts.push(...(await replay({ ...body, points: alternating(6), offset, limit: 37 })).body.entries);
    expect(parts).toEqual(whole.body.entries);
  });

  it('refuses paging parameters out of their bounds with a 400', async () => {
    for (const json of [{ limit: 1001 }, { offset: -1 }, { offset: 2 ** 63 }]) {
      const res = await replay({ place_ids: [ten.placeId], points: alternating(2), ...json });
      expectErrorShape(res.body, 400);
    }
  });
});

describe('trigger/replay time budget', () => {
  let s: TestService;
  beforeAll(async () => {
    // A budget already spent when the replay starts: the replay checks it before any point.
    s = await startApp({ engine: { replay: { timeoutMs: 0 } } });
  });
  afterAll(async () => s?.close());

  it('stops a replay past its budget with a 503 in the error shape', async () => {
    const app = await createApp(s.api, 'slow replay');
    const { placeId } = await triggersOnOnePlace(s, app, 1);
    const res = await s.api.post('/1/trigger/replay', { token: app.access_token, json: { place_ids: [placeId], points: alternating(10) } });
    expectErrorShape(res.body, 503, 'service_unavailable');
    expect(res.body.error_description).toMatch(/did not finish within its time budget/);
  });
});
