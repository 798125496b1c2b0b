import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

// 0.001° of latitude ≈ 111.2 m.
const CENTRE = { latitude: 45.5, longitude: -122.6 };
const north = (metres: number) => CENTRE.latitude + metres / 111_195;
const point = (at: number, lat: number, acc = 10) => ({ date: at, location: { position: { latitude: lat, longitude: CENTRE.longitude, horizontal_accuracy: acc } } });

describe('machine inspector and presence', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let walker: TestUser;
  let idle: TestUser;
  let trigger: { trigger_id: string; place_id: string };
  const t0 = Math.floor(Date.now() / 1000) - 600;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    walker = await createAnonUser(api, app);
    idle = await createAnonUser(api, app);
    const res = await api.post('/1/trigger/create', {
      token: app.access_token,
      json: { key: 'office', type: 'message', text: 'Welcome', ...CENTRE, radius: 100, place_name: 'Office' },
    });
    expect(res.status).toBe(200);
    trigger = res.body;
    // Walk in from 300 m north to 20 m from the centre.
    const walk = await api.post('/1/location/update', { token: walker.access_token, json: [point(t0, north(300)), point(t0 + 60, north(20))] });
    expect(walk.body).toEqual({ response: 'ok' });
  });
  afterAll(() => server.close());

  it('shows a machine that is inside, since when, the point that moved it and the transition', async () => {
    const res = await api.get(`/1/trigger/state/${trigger.trigger_id}`, { token: app.access_token, query: { user_id: walker.user_id } });
    expect(res.status).toBe(200);
    const [m] = res.body.machines;
    expect(m).toMatchObject({ user_id: walker.user_id, place_id: trigger.place_id, state: 'inside' });
    expect(m.since.date_ts).toBe(t0 + 60);
    expect(m.last_point).toMatchObject({ date_ts: t0 + 60, horizontal_accuracy: 10 });
    expect(m.transitions).toEqual([expect.objectContaining({ from: 'outside', to: 'inside', reason: 'enter', outcome: 'fired', date_ts: t0 + 60 })]);
  });

  it("lists every machine of a trigger, and one user's machines across triggers", async () => {
    const all = await api.get(`/1/trigger/state/${trigger.trigger_id}`, { token: app.access_token });
    expect(all.body.machines.map((m: any) => m.user_id)).toEqual([walker.user_id]);
    const mine = await api.get('/1/trigger/state', { token: app.access_token, query: { user_id: walker.user_id } });
    expect(mine.body.machines).toHaveLength(1);
    expect(mine.body.last_location.date_ts).toBe(t0 + 60);
  });

  it('explains an outside pair from the last location: out, band and unusable', async () => {
    const ask = async () => (await api.get(`/1/trigger/state/${trigger.trigger_id}`, { token: app.access_token, query: { user_id: idle.user_id } })).body.machines[0];
    expect((await ask()).explanation).toMatch(/No location/);
    await api.post('/1/location/update', { token: idle.access_token, json: [point(t0, north(400))] });
    expect(await ask()).toMatchObject({ state: 'outside', zone: 'out' });
    await api.post('/1/location/update', { token: idle.access_token, json: [point(t0 + 1, north(110))] });
    expect(await ask()).toMatchObject({ state: 'outside', zone: 'band' });
    await api.post('/1/location/update', { token: idle.access_token, json: [point(t0 + 2, north(0), 500)] });
    const unusable = await ask();
    expect(unusable).toMatchObject({ state: 'outside', zone: 'unusable' });
    expect(unusable.distance_m).toBeLessThan(1);
  });

  it('layer/users reports who is inside each place of the layer', async () => {
    const res = await api.get(`/1/layer/users/${app.default_layer_id}`, { token: app.access_token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.users)).toEqual([walker.user_id]);
    expect(res.body.users[walker.user_id].inside).toEqual([expect.objectContaining({ place_id: trigger.place_id, date_ts: t0 + 60 })]);
    expect(res.body.places[trigger.place_id].users_inside).toEqual([expect.objectContaining({ user_id: walker.user_id })]);
  });

  it('counts visits on the place', async () => {
    const res = await api.get(`/1/place/info/${trigger.place_id}`, { token: app.access_token });
    expect(res.body.visits).toBe(1);
  });

  it("answers 404 for another application's trigger or user", async () => {
    const other = await createApp(api, 'other');
    const res = await api.get(`/1/trigger/state/${trigger.trigger_id}`, { token: other.access_token });
    expectErrorShape(res.body, 404, 'not_found');
    const user = await api.get('/1/trigger/state', { token: other.access_token, query: { user_id: walker.user_id } });
    expectErrorShape(user.body, 404, 'not_found');
    const byUser = await api.get(`/1/trigger/state/${trigger.trigger_id}`, { token: walker.access_token });
    expect(byUser.status).toBe(403);
  });
});
