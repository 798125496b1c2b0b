// What-if replay (docs/api.md "Replay"): trigger/replay with overrides of the stored places,
// triggers and layers and with draft triggers, answering what would have fired then, writing
// nothing; and the closest approach to each place, which says why a replay fired nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 40, longitude: -74 };
const T0 = Date.parse('2024-05-01T10:00:00Z');
const M_PER_DEG_LON = 111_195 * Math.cos((CENTRE.latitude * Math.PI) / 180);
/** A point `east` metres east of the centre, `s` seconds after T0. */
const point = (east: number, s: number) => ({
  date: new Date(T0 + s * 1000).toISOString(),
  location: { position: { latitude: CENTRE.latitude, longitude: CENTRE.longitude + east / M_PER_DEG_LON, horizontal_accuracy: 5 } },
});
/** From 400 m east walking west to 150 m east of the centre, a point every 10 m; then back out. */
const passBy = () => {
  const pts = [];
  let s = 0;
  for (let e = 400; e >= 150; e -= 10) pts.push(point(e, (s += 10)));
  for (let e = 160; e <= 400; e += 10) pts.push(point(e, (s += 10)));
  return pts;
};
/** Walks in to the centre, stays `stay` seconds, walks out. */
const visit = (stay: number) => [point(300, 0), point(0, 60), point(0, 60 + stay), point(300, 120 + stay)];

describe('trigger/replay what-if', () => {
  let s: TestService;
  let app: TestApp;
  let token: string;
  let placeId: string;
  let triggerId: string;
  const replay = (json: Record<string, unknown>) => s.api.post('/1/trigger/replay', { token, json });

  beforeAll(async () => {
    s = await startApp();
    app = await createApp(s.api, 'what-if');
    token = app.access_token;
    const place = await s.api.post('/1/place/create', { token, json: { ...CENTRE, radius: 100, name: 'Shop' } });
    placeId = place.body.place_id;
    const t = await s.api.post('/1/trigger/create', { token, json: { place_id: placeId, type: 'message', text: 'hi' } });
    triggerId = t.body.trigger_id;
  });
  afterAll(async () => s?.close());

  it('an empty answer says how close the track came: 150 m from the centre, 50 m outside the 100 m radius', async () => {
    const res = await replay({ place_ids: [placeId], points: passBy() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.firings).toEqual([]);
    expect(res.body.closest).toHaveLength(1);
    const c = res.body.closest[0];
    expect(c).toMatchObject({ place_id: placeId, trigger_ids: [triggerId], shape: 'circle', radius: 100, margin_m: 20 });
    expect(c.distance_m).toBeCloseTo(150, 0);
    expect(c.outside_m).toBeCloseTo(50, 0);
    expect(c.point.date_ts).toBe((T0 + 260_000) / 1000);
    expect(c.reason).toBe('Passed 150 m from the centre, 50 m outside the 100 m radius.');
  });

  it('a larger radius as an override: the same track fires, and the stored place is unchanged', async () => {
    const res = await replay({ place_ids: [placeId], points: passBy(), overrides: { places: [{ place_id: placeId, radius: 200 }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.firings.map((f: any) => [f.event, f.trigger_id])).toEqual([['enter', triggerId]]);
    expect(res.body.closest[0]).toMatchObject({ radius: 200, reason: 'Came 150 m from the centre, inside the 200 m radius.' });
    expect(res.body.what_if).toEqual({ places: [placeId], triggers: [], layers: [], draft_triggers: [] });
    expect((await s.api.get(`/1/place/info/${placeId}`, { token })).body.radius).toBe(100);
  });

  it('a polygon as an override is measured from its edge', async () => {
    // A square 400 m on a side round the centre: the walk's closest point, 150 m east, is 50 m inside its east edge.
    const d = (m: number) => m / M_PER_DEG_LON;
    const dl = (m: number) => m / 111_195;
    const [x, y] = [CENTRE.longitude, CENTRE.latitude];
    const ring = [[x - d(200), y - dl(200)], [x + d(200), y - dl(200)], [x + d(200), y + dl(200)], [x - d(200), y + dl(200)], [x - d(200), y - dl(200)]];
    const res = await replay({ place_ids: [placeId], points: passBy(), overrides: { places: [{ place_id: placeId, geometry: { type: 'Polygon', coordinates: [ring] } }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.firings).toHaveLength(1);
    expect(res.body.closest[0].shape).toBe('polygon');
    expect(res.body.closest[0].outside_m).toBeCloseTo(-50, 0);
  });

  it('a dwell as an override: a 60 s stay fires with trigger_after 30, not with 300', async () => {
    const fires = async (after: number) => {
      const res = await replay({ trigger_ids: [triggerId], points: visit(60), overrides: { triggers: [{ trigger_id: triggerId, trigger_after: after }] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.firings.map((f: any) => f.event);
    };
    expect(await fires(30)).toEqual(['dwell']);
    expect(await fires(300)).toEqual([]);
    expect((await s.api.get(`/1/trigger/info/${triggerId}`, { token })).body.trigger_after).toBe(0);
  });

  it('one-time and a layer rate limit as overrides gate the second visit', async () => {
    const twice = [...visit(10), ...visit(10).map((p, i) => point(i % 3 === 0 ? 300 : 0, 600 + i * 60))];
    const base = await replay({ trigger_ids: [triggerId], points: twice });
    expect(base.body.firings).toHaveLength(2);
    const once = await replay({ trigger_ids: [triggerId], points: twice, overrides: { triggers: [{ trigger_id: triggerId, one_time: 1 }] } });
    expect(once.body.firings).toHaveLength(1);
    expect(once.body.entries.some((e: any) => e.kind === 'gated' && e.gate === 'one_time_spent')).toBe(true);
    const layerId = (await s.api.get(`/1/place/info/${placeId}`, { token })).body.layer_id;
    const limited = await replay({ trigger_ids: [triggerId], points: twice, overrides: { layers: [{ layer_id: layerId, trigger_rate_limit: 3600 }] } });
    expect(limited.body.firings).toHaveLength(1);
    expect(limited.body.entries.some((e: any) => e.kind === 'gated' && e.gate === 'rate_limit')).toBe(true);
  });

  it('a daily window as an override gates a firing outside it', async () => {
    const res = await replay({ trigger_ids: [triggerId], points: visit(10), overrides: { triggers: [{ trigger_id: triggerId, time_from: '16:00', time_to: '17:00' }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.firings).toEqual([]);
    expect(res.body.entries.some((e: any) => e.kind === 'gated' && e.gate === 'time_window')).toBe(true);
  });

  it('draft triggers: on a drawn circle, a drawn corridor and an existing place, with stable ids, and nothing stored', async () => {
    const user = await createAnonUser(s.api, app);
    const route = { type: 'LineString', coordinates: [[CENTRE.longitude + 1000 / M_PER_DEG_LON, CENTRE.latitude - 0.01], [CENTRE.longitude + 1000 / M_PER_DEG_LON, CENTRE.latitude + 0.01]] };
    const body = {
      user_id: user.user_id,
      points: passBy(),
      draft_triggers: [
        { latitude: CENTRE.latitude, longitude: CENTRE.longitude + 300 / M_PER_DEG_LON, radius: 50, place_name: 'kiosk' },
        { geometry: route, width: 100, trigger_on: 'enter' },
        { place_id: placeId, trigger_on: 'leave' },
      ],
    };
    const res = await replay(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.what_if.draft_triggers).toEqual([
      { trigger_id: 'draft-trigger-1', place_id: 'draft-place-1', layer_id: expect.any(String) },
      { trigger_id: 'draft-trigger-2', place_id: 'draft-place-2', layer_id: expect.any(String) },
      { trigger_id: 'draft-trigger-3', place_id: placeId, layer_id: expect.any(String) },
    ]);
    // The walk crosses the kiosk (300 m east, 50 m) on the way in and again on the way out, past its
    // margin between: it enters twice. It never reaches the shop or the corridor 1 km east.
    expect(res.body.firings.map((f: any) => [f.trigger_id, f.event])).toEqual([['draft-trigger-1', 'enter'], ['draft-trigger-1', 'enter']]);
    const corridor = res.body.closest.find((c: any) => c.place_id === 'draft-place-2');
    expect(corridor).toMatchObject({ shape: 'corridor', trigger_ids: ['draft-trigger-2'] });
    expect(corridor.outside_m).toBeCloseTo(550, -1);
    expect(corridor.reason).toMatch(/^Passed 55\d m outside the corridor's edge\.$/);
    // The same request, the same answer; and no trigger or place was made.
    expect((await replay(body)).body).toEqual(res.body);
    const triggers = (await s.api.get('/1/trigger/list', { token, query: { limit: 0 } })).body.triggers;
    expect(triggers.map((t: any) => t.trigger_id)).toEqual([triggerId]);
  });

  it('refuses what the API would refuse to store, and another application\'s ids are missing ones', async () => {
    const leaveDwell = await replay({ trigger_ids: [triggerId], points: visit(10), overrides: { triggers: [{ trigger_id: triggerId, trigger_on: 'leave', trigger_after: 30 }] } });
    expectErrorShape(leaveDwell.body, 400, 'invalid_input');
    expect(leaveDwell.body.error_description).toMatch(/dwell\) applies to enter triggers only/);
    const badRing = await replay({ place_ids: [placeId], points: visit(10), overrides: { places: [{ place_id: placeId, geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 1]]] } }] } });
    expectErrorShape(badRing.body, 400, 'invalid_input');
    const both = await replay({ place_ids: [placeId], points: visit(10), draft_triggers: [{ place_id: placeId, latitude: 1, longitude: 1, radius: 5 }] });
    expectErrorShape(both.body, 400, 'invalid_input');
    const twice = await replay({ place_ids: [placeId], points: visit(10), overrides: { places: [{ place_id: placeId, radius: 5 }, { place_id: placeId, radius: 6 }] } });
    expectErrorShape(twice.body, 400, 'invalid_input');
    const unknownField = await replay({ place_ids: [placeId], points: visit(10), overrides: { places: [{ place_id: placeId, colour: 'red' }] } });
    expectErrorShape(unknownField.body, 400);

    const other = await createApp(s.api, 'other');
    const theirs = await s.api.post('/1/place/create', { token: other.access_token, json: { ...CENTRE, radius: 100 } });
    const foreign = await replay({ place_ids: [placeId], points: visit(10), overrides: { places: [{ place_id: theirs.body.place_id, radius: 500 }] } });
    expectErrorShape(foreign.body, 404);
    const foreignDraft = await replay({ place_ids: [placeId], points: visit(10), draft_triggers: [{ place_id: theirs.body.place_id }] });
    expectErrorShape(foreignDraft.body, 404);
  });
});
