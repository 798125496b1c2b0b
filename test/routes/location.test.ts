import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const point = (date: unknown, lat: number, lng: number, extra: Record<string, unknown> = {}) => ({
  date,
  location: { type: 'point', position: { latitude: lat, longitude: lng, speed: 0, altitude: 0, horizontal_accuracy: 24, vertical_accuracy: 0 } },
  raw: { battery: 80 },
  client: { name: 'Geoloqi', version: '0.1', platform: 'iPhone OS 4', hardware: 'iPhone2,1' },
  ...extra,
});

describe('location/update, last and history', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    user = await createAnonUser(api, app);
  });
  afterAll(() => server.close());

  it('accepts the reference example verbatim and serves it as the last location', async () => {
    const res = await api.post('/1/location/update', {
      token: user.access_token,
      json: [point('2010-07-23T09:19:38-07:00', 45.445793867111, -122.64261245728, { uuid: 'ffa3555c-1bbd-45aa-9870-bdbe49daf678' })],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ response: 'ok' });
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.status).toBe(200);
    expect(last.body.uuid).toBe('ffa3555c-1bbd-45aa-9870-bdbe49daf678');
    expect(last.body.date_ts).toBe(Date.parse('2010-07-23T16:19:38Z') / 1000);
    expect(last.body.location).toEqual({
      type: 'point',
      position: { latitude: 45.445793867111, longitude: -122.64261245728, speed: 0, altitude: 0, horizontal_accuracy: 24, vertical_accuracy: 0 },
    });
    expect(last.body.raw).toEqual({ battery: 80 });
  });

  it('is lenient like real clients: Unix-seconds strings, no client, raw null', async () => {
    const t = Math.floor(Date.now() / 1000);
    const res = await api.post('/1/location/update', {
      token: user.access_token,
      json: [{ date: String(t), location: { position: { latitude: 45.5, longitude: -122.6 } }, raw: null }],
    });
    expect(res.status).toBe(200);
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.body.date_ts).toBe(t);
    expect(last.body.raw).toBeNull();
  });

  it('never lets an older point replace the last location', async () => {
    const newer = Math.floor(Date.now() / 1000) + 10;
    await api.post('/1/location/update', { token: user.access_token, json: [point(newer, 10, 10)] });
    await api.post('/1/location/update', { token: user.access_token, json: [point(newer - 100, 20, 20)] });
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.body.location.position.latitude).toBe(10);
  });

  it('refuses a batch with bad points, names them, and stores none of it', async () => {
    const before = await api.get('/1/location/last', { token: user.access_token });
    const future = Math.floor(Date.now() / 1000) + 3600;
    const res = await api.post('/1/location/update', {
      token: user.access_token,
      json: [point(future, 1, 1), point(future, 95, 1), { date: 'yesterday-ish', location: { position: { latitude: 1, longitude: 1 } } }],
    });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toContain('point 1');
    expect(res.body.error_description).toContain('point 2');
    const after = await api.get('/1/location/last', { token: user.access_token });
    expect(after.body).toEqual(before.body);
  });

  it('requires an array of data points', async () => {
    const res = await api.post('/1/location/update', { token: user.access_token, json: point(1, 1, 1) });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toBe('Input data must be an array of data points');
    const empty = await api.post('/1/location/update', { token: user.access_token, json: [] });
    expectErrorShape(empty.body, 400, 'invalid_input');
  });

  it('refuses a body that is not JSON, an empty body and a form body with a 400, and stores nothing of them', async () => {
    const before = await api.get('/1/location/last', { token: user.access_token });
    // A short body is read on the main thread, a long one in the engine's shard: the same answer.
    const longBroken = JSON.stringify(Array.from({ length: 20 }, (_, i) => point(i + 1, 1, 1))).slice(0, -2);
    for (const rawBody of ['[{"date": 1,', longBroken]) {
      const broken = await api.post('/1/location/update', { token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody });
      expect(broken.status).toBe(400);
      expectErrorShape(broken.body, 400, 'invalid_request');
      expect(broken.body.error_description).toBe('Request body is not valid JSON');
    }
    const empty = await api.post('/1/location/update', { token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody: '' });
    expectErrorShape(empty.body, 400, 'invalid_input');
    expect(empty.body.error_description).toBe('Input data must be an array of data points');
    // A form body is read on the main thread (only JSON goes to the shards as text): the same answer.
    const form = await api.post('/1/location/update', { token: user.access_token, form: { date: '1', latitude: '1' } });
    expectErrorShape(form.body, 400, 'invalid_input');
    expect(form.body.error_description).toBe('Input data must be an array of data points');
    const after = await api.get('/1/location/last', { token: user.access_token });
    expect(after.body).toEqual(before.body);
  });

  it('answers each request of a batch on its own: a bad body refused, the good ones beside it stored', async () => {
    const others = await Promise.all([createAnonUser(api, app), createAnonUser(api, app), createAnonUser(api, app), createAnonUser(api, app)]);
    const now = Math.floor(Date.now() / 1000);
    // Ten points a body: long enough to be read in the shard. Sent together, so that the engine takes them in one batch.
    const walk = (lat: number) => Array.from({ length: 10 }, (_, i) => point(now - 10 + i, lat - 0.009 + i / 1000, lat));
    // The fourth, one point, is read on the main thread and goes beside them as a row.
    const [good1, bad, good2, short] = await Promise.all([
      api.post('/1/location/update', { token: others[0]!.access_token, json: walk(12) }),
      api.post('/1/location/update', { token: others[1]!.access_token, json: [...walk(13).slice(0, 9), point(now, 200, 13)] }),
      api.post('/1/location/update', { token: others[2]!.access_token, json: walk(14) }),
      api.post('/1/location/update', { token: others[3]!.access_token, json: [point(now, 15, 15)] }),
    ]);
    expect([good1.status, bad.status, good2.status, short.status]).toEqual([200, 400, 200, 200]);
    const last3 = await api.get('/1/location/last', { token: others[3]!.access_token });
    expect(last3.body.location.position.latitude).toBe(15);
    expectErrorShape(bad.body, 400, 'invalid_input');
    expect(bad.body.error_description).toContain('point 9');
    const last1 = await api.get('/1/location/last', { token: others[0]!.access_token });
    expect(last1.body.location.position.latitude).toBe(12);
    expect(last1.body.raw).toEqual({ battery: 80 });
    const last2 = await api.get('/1/location/last', { token: others[2]!.access_token });
    expect(last2.body.location.position.latitude).toBe(14);
    const none = await api.get('/1/location/last', { token: others[1]!.access_token });
    expect(none.status).not.toBe(200);
  });

  it('takes a user token only for update; the application reads with user_id', async () => {
    const byApp = await api.post('/1/location/update', { token: app.access_token, json: [point(1, 1, 1)] });
    expect(byApp.status).toBe(403);
    expectErrorShape(byApp.body, 403, 'access_denied');
    const last = await api.get('/1/location/last', { token: app.access_token, query: { user_id: user.user_id } });
    expect(last.status).toBe(200);
    const missing = await api.get('/1/location/last', { token: app.access_token });
    expectErrorShape(missing.body, 400, 'missing_input');
  });

  it('keeps history only when the application opts in, and pages it by count/after/before/sort', async () => {
    const other = await createAnonUser(api, app);
    const t0 = Math.floor(Date.now() / 1000) - 1000;
    await api.post('/1/location/update', { token: other.access_token, json: [point(t0, 1, 1), point(t0 + 1, 1.001, 1)] });
    let hist = await api.get('/1/location/history', { token: other.access_token });
    expect(hist.body.points).toEqual([]);

    const upd = await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    expect(upd.status).toBe(200);
    const pts = Array.from({ length: 15 }, (_, i) => point(t0 + 10 + i, 1 + i / 1000, 1));
    await api.post('/1/location/update', { token: other.access_token, json: pts });
    hist = await api.get('/1/location/history', { token: other.access_token });
    expect(hist.body.points).toHaveLength(10);
    expect(hist.body.points[0].date_ts).toBe(t0 + 15); // the ten most recent, ascending
    expect(hist.body.points[9].date_ts).toBe(t0 + 24);
    expect(hist.body.distance).toBeGreaterThan(900);
    const desc = await api.get('/1/location/history', { token: other.access_token, query: { count: 3, sort: 'desc', before: t0 + 20 } });
    expect(desc.body.points.map((p: any) => p.date_ts)).toEqual([t0 + 19, t0 + 18, t0 + 17]);
    const bad = await api.get('/1/location/history', { token: other.access_token, query: { after: 'not a date' } });
    expectErrorShape(bad.body, 400, 'invalid_input');
  });

  it('stores a batch sent again (a client timed out) once, and a point with the uuid of a stored one once', async () => {
    const phone = await createAnonUser(api, app);
    await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    const t0 = Math.floor(Date.now() / 1000) - 500;
    const batch = [point(t0, 2, 2), point(t0 + 1, 2.001, 2), point(t0 + 2, 2.002, 2, { uuid: 'c0ffee00-0000-4000-8000-000000000001' })];
    for (let i = 0; i < 2; i++) {
      const res = await api.post('/1/location/update', { token: phone.access_token, json: batch });
      expect(res.body).toEqual({ response: 'ok' });
    }
    // The phone's own uuid again, on a point it sent a moment later: the same point to the phone.
    await api.post('/1/location/update', { token: phone.access_token, json: [point(t0 + 3, 2.003, 2, { uuid: 'c0ffee00-0000-4000-8000-000000000001' })] });
    const hist = await api.get('/1/location/history', { token: phone.access_token, query: { count: 100 } });
    expect(hist.body.points.map((p: any) => p.date_ts)).toEqual([t0, t0 + 1, t0 + 2]);
    expect(hist.body.points[2].uuid).toBe('c0ffee00-0000-4000-8000-000000000001');
  });

  it('keeps last locations across a restart', async () => {
    const before = await api.get('/1/location/last', { token: user.access_token });
    await server.restart();
    const after = await api.get('/1/location/last', { token: user.access_token });
    expect(after.body).toEqual(before.body);
  });

  it("hides another application's users", async () => {
    const other = await createApp(api, 'other');
    const res = await api.get('/1/location/last', { token: other.access_token, query: { user_id: user.user_id } });
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 404, 'not_found');
  });
});
