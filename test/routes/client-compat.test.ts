// Request shapes the historical Geoloqi clients (ruby, python, php, node, js) send as they are,
// which the service must read without any change to those clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'compat');
  other = await createApp(api, 'compat-other');
});
afterAll(async () => {
  await server?.close();
});

describe('a path with repeated slashes (node README, python and PHP with a leading slash)', () => {
  it('creates a trigger at /1//trigger/create', async () => {
    const res = await api.post('/1//trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi' },
    });
    expect(res.status).toBe(200);
    const got = await api.get(`/1///trigger/info/${res.body.trigger_id}`, { token: app.access_token });
    expect(got.status).toBe(200);
    expect(got.body.trigger_id).toBe(res.body.trigger_id);
    // Still another application's trigger is not found.
    const foreign = await api.get(`/1//trigger/info/${res.body.trigger_id}`, { token: other.access_token });
    expect(foreign.status).toBe(404);
  });
});

describe('CORS, for a page on another origin calling the API with XHR (geoloqi-js)', () => {
  const origin = 'https://maps.example.org';

  it('answers the preflight of an authorized JSON POST', async () => {
    const res = await api.request('OPTIONS', '/1/location/update', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('answers the preflight of every route, with parameters and repeated slashes too', async () => {
    for (const path of ['/1/trigger/delete/abc', '/1//layer/subscribe/abc', '/1/account/profile', '/admin/app/create']) {
      const res = await api.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST' } });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('lets the page read answers, errors included', async () => {
    const ok = await api.get('/1/trigger/list', { token: app.access_token, headers: { origin } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const denied = await api.get('/1/trigger/list', { token: 'app-nope', headers: { origin } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    expect(denied.body.error).toBe('invalid_token');
  });
});

describe('an action method sent as a GET (the python client, when it has no parameters)', () => {
  it('subscribes and unsubscribes the caller: GET /1/layer/subscribe/ID', async () => {
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'public', public: 1 } });
    const user = await createAnonUser(api, app);
    const sub = await api.get(`/1/layer/subscribe/${layer.body.layer_id}`, { token: user.access_token });
    expect(sub.status).toBe(200);
    expect(sub.body.subscribed).toBe('1');
    const unsub = await api.get(`/1/layer/unsubscribe/${layer.body.layer_id}`, { token: user.access_token });
    expect(unsub.status).toBe(200);
    expect(unsub.body.subscribed).toBe('0');
  });

  it('subscribes a user the application names in the query string', async () => {
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'private' } });
    const user = await createAnonUser(api, app);
    const sub = await api.get(`/1/layer/subscribe/${layer.body.layer_id}`, { token: app.access_token, query: { user_id: user.user_id } });
    expect(sub.status).toBe(200);
    const mine = await api.get('/1/layer/subscriptions', { token: user.access_token });
    expect(mine.body.layers.map((l: any) => l.layer_id)).toContain(layer.body.layer_id);
  });

  it('deletes a place: GET /1/place/delete/ID, and another application\'s stays', async () => {
    const mine = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 50 } });
    const theirs = await api.post('/1/place/create', { token: other.access_token, json: { latitude: 1, longitude: 1, radius: 50 } });
    const foreign = await api.get(`/1/place/delete/${theirs.body.place_id}`, { token: app.access_token });
    expect(foreign.status).toBe(404);
    expect((await api.get(`/1/place/info/${theirs.body.place_id}`, { token: other.access_token })).status).toBe(200);
    const res = await api.get(`/1/place/delete/${mine.body.place_id}`, { token: app.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok' });
    expect((await api.get(`/1/place/info/${mine.body.place_id}`, { token: app.access_token })).status).toBe(404);
  });

  it('deletes a trigger and a layer with GET, but a HEAD acts on nothing', async () => {
    const trigger = await api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi' },
    });
    const head = await api.request('HEAD', `/1/trigger/delete/${trigger.body.trigger_id}`, { token: app.access_token });
    expect(head.status).toBe(404);
    expect((await api.get(`/1/trigger/info/${trigger.body.trigger_id}`, { token: app.access_token })).status).toBe(200);
    expect((await api.get(`/1/trigger/delete/${trigger.body.trigger_id}`, { token: app.access_token })).status).toBe(200);
    expect((await api.get(`/1/trigger/info/${trigger.body.trigger_id}`, { token: app.access_token })).status).toBe(404);

    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'gone' } });
    expect((await api.get(`/1/layer/delete/${layer.body.layer_id}`, { token: app.access_token })).status).toBe(200);
    expect((await api.get(`/1/layer/info/${layer.body.layer_id}`, { token: app.access_token })).status).toBe(404);
  });

  it('deletes a user with GET and the API key and secret', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.get(`/1/user/delete/${user.user_id}`, { basic: [app.client_id, app.client_secret] });
    expect(res.status).toBe(200);
    expect((await api.get(`/1/user/info/${user.user_id}`, { basic: [app.client_id, app.client_secret] })).status).toBe(404);
  });
});

describe('an empty hash as PHP sends it, `[]`', () => {
  it('accepts a location batch with "raw":[] and "client":[]', async () => {
    const user = await createAnonUser(api, app);
    const t = Math.floor(Date.now() / 1000);
    // json_encode(array('raw' => array(), 'client' => array())) as the PHP client builds a point.
    const rawBody = `[{"date":${t},"location":{"type":"point","position":{"latitude":45.5,"longitude":-122.6,"horizontal_accuracy":10}},"raw":[],"client":[]},`
      + `{"date":${t + 1},"location":{"type":"point","position":{"latitude":45.6,"longitude":-122.6}},"raw":[],"client":{"name":"php"}}]`;
    const res = await api.post('/1/location/update', { token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody });
    expect(res.status).toBe(200);
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.body.date_ts).toBe(t + 1);
    expect(last.body.raw).toEqual({});
  });

  it('still refuses a list that is not empty', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.post('/1/location/update', {
      token: user.access_token, json: [{ date: Math.floor(Date.now() / 1000), location: { position: { latitude: 1, longitude: 1 } }, raw: [1] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error_description).toContain('raw must be an object');
  });

  it('creates and updates places, layers, triggers and users with "extra":[]', async () => {
    const place = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 50, extra: [] } });
    expect(place.status).toBe(200);
    expect(place.body.extra).toEqual({});
    expect((await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, json: { extra: [] } })).status).toBe(200);
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'php', extra: [] } });
    expect(layer.status).toBe(200);
    expect((await api.post(`/1/layer/update/${layer.body.layer_id}`, { token: app.access_token, json: { extra: [] } })).status).toBe(200);
    const trigger = await api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi', extra: [], place_extra: [] },
    });
    expect(trigger.status).toBe(200);
    expect(trigger.body.extra).toEqual({});
    const user = await createAnonUser(api, app);
    const updated = await api.post(`/1/user/update/${user.user_id}`, { token: app.access_token, json: { extra: [] } });
    expect(updated.status).toBe(200);
    const bad = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 50, extra: ['a'] } });
    expect(bad.status).toBe(400);
  });
});

describe('extra on an update merges its top-level keys (MapAttack capturing a place)', () => {
  it('keeps extra.points when a capture sets {active, team}, and removes a key sent as null', async () => {
    const place = await api.post('/1/place/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 50, name: 'flag', extra: { points: 10, active: 1, note: { a: 1, b: 2 } } },
    });
    const captured = await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, json: { extra: { active: 0, team: 'red' } } });
    expect(captured.status).toBe(200);
    expect(captured.body.extra).toEqual({ points: 10, active: 0, team: 'red', note: { a: 1, b: 2 } });
    const info = await api.get(`/1/place/info/${place.body.place_id}`, { token: app.access_token });
    expect(info.body.extra).toEqual({ points: 10, active: 0, team: 'red', note: { a: 1, b: 2 } });
    // A nested hash is replaced whole; null removes a key; `[]` (PHP's empty hash) changes nothing.
    const again = await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, json: { extra: { team: null, note: { c: 3 } } } });
    expect(again.body.extra).toEqual({ points: 10, active: 0, note: { c: 3 } });
    const none = await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, json: { extra: [] } });
    expect(none.body.extra).toEqual({ points: 10, active: 0, note: { c: 3 } });
  });

  it('merges as a form sends it, with keys no SQL path can name', async () => {
    const place = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 50, extra: { 'the points': '5' } } });
    const res = await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, form: { extra: { 'team-name': 'blue' } } });
    expect(res.status).toBe(200);
    expect(res.body.extra).toEqual({ 'the points': '5', 'team-name': 'blue' });
    // An empty key has no path of its own: the merged hash is written whole.
    const empty = await api.post(`/1/place/update/${place.body.place_id}`, { token: app.access_token, json: { extra: { '': 'empty', 'the points': null } } });
    expect(empty.body.extra).toEqual({ 'team-name': 'blue', '': 'empty' });
  });

  it('merges on layers, triggers and users too', async () => {
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'game', extra: { round: 1, keep: true } } });
    await api.post(`/1/layer/update/${layer.body.layer_id}`, { token: app.access_token, json: { extra: { round: 2, keep: null } } });
    expect((await api.get(`/1/layer/info/${layer.body.layer_id}`, { token: app.access_token })).body.extra).toEqual({ round: 2 });

    const trigger = await api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi', extra: { a: 1 } },
    });
    const t = await api.post(`/1/trigger/update/${trigger.body.trigger_id}`, { token: app.access_token, json: { extra: { b: 2 } } });
    expect(t.body.extra).toEqual({ a: 1, b: 2 });

    const user = await createAnonUser(api, app, { extra: { score: 3 } });
    const u = await api.post(`/1/user/update/${user.user_id}`, { token: app.access_token, json: { extra: { team: 'red' } } });
    expect(u.status).toBe(200);
    const info = await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token });
    expect(info.body.extra).toEqual({ score: 3, team: 'red' });
    const self = await api.post('/1/account/profile', { token: user.access_token, json: { extra: { score: null } } });
    expect(self.status).toBe(200);
    expect((await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token })).body.extra).toEqual({ team: 'red' });
  });

  it('merges nothing into another application\'s user', async () => {
    const user = await createAnonUser(api, app, { extra: { score: 3 } });
    const res = await api.post(`/1/user/update/${user.user_id}`, { token: other.access_token, json: { extra: { score: 0 } } });
    expect(res.status).toBe(404);
    expect((await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token })).body.extra).toEqual({ score: 3 });
  });
});

describe('points stamped in the same second (an SDK or simulator with one-second dates)', () => {
  it('applies each point of that second at another position, in arrival order, and ignores a resend', async () => {
    const created = await createAnonUser(api, app);
    const user = created.access_token;
    const place = { latitude: 10, longitude: 10, radius: 100 };
    const enter = await api.post('/1/trigger/create', { token: app.access_token, json: { ...place, type: 'message', text: 'in' } });
    const leave = await api.post('/1/trigger/create', { token: app.access_token, json: { place_id: enter.body.place_id, type: 'message', text: 'out', trigger_on: 'leave' } });
    expect(leave.status).toBe(200);
    const date = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString().replace('.000Z', 'Z');
    const at = (latitude: number) => [{ date, location: { type: 'point', position: { latitude, longitude: 10, horizontal_accuracy: 5 } }, raw: { battery: 50 }, client: { name: 'simulator' } }];
    const fired = async () => (await api.get('/1/trigger/history', { token: app.access_token, query: { user_id: created.user_id } })).body.history
      .map((h: any) => h.trigger.trigger_id).sort();
    // Outside, then a second later (same date) inside: the second point is applied.
    expect((await api.post('/1/location/update', { token: user, json: at(10.01) })).status).toBe(200);
    expect((await api.post('/1/location/update', { token: user, json: at(10) })).status).toBe(200);
    expect((await api.get('/1/location/last', { token: user })).body.location.position.latitude).toBe(10);
    expect(await fired()).toEqual([enter.body.trigger_id]);
    // The same point sent again changes nothing; outside again within that second is applied.
    expect((await api.post('/1/location/update', { token: user, json: at(10) })).status).toBe(200);
    expect(await fired()).toEqual([enter.body.trigger_id]);
    expect((await api.post('/1/location/update', { token: user, json: at(10.01) })).status).toBe(200);
    expect(await fired()).toEqual([enter.body.trigger_id, leave.body.trigger_id].sort());
    expect((await api.get('/1/location/last', { token: user })).body.location.position.latitude).toBe(10.01);
  });
});
