// Keys no store can hold ("$…", "a.b") in the free-form objects clients store: a 400 in the error
// shape that names the key, nothing stored, and (location/update) no harm to the requests batched
// with the bad one. Before, each was a 500: NeDB refused the document after the engine had taken
// the points, failing every request of the batch, and `{"$$date": n}` came back as a Date after a
// restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const point = (t: number, raw: unknown = { battery: 80 }, client: unknown = { name: 'Geoloqi', version: '0.1' }) => ({
  date: new Date(t).toISOString(),
  location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } },
  raw,
  client,
});

describe('field names a store cannot hold', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    user = await createAnonUser(api, app, { extra: { color: 'blue' } });
  });
  afterAll(() => server.close());

  it.each([
    ['raw', { $bad: 1 }, undefined, 'point 0: raw has a field name that starts with "$" or contains "." ("$bad")'],
    ['raw, nested', { x: [{ ok: 1 }, { 'a.b': 1 }] }, undefined, 'point 0: raw has a field name that starts with "$" or contains "." ("a.b" in raw.x[1])'],
    ['client', undefined, { $$date: 5 }, 'point 0: client has a field name that starts with "$" or contains "." ("$$date")'],
  ])('location/update refuses %s with a 400 naming the key, and stores nothing', async (_what, raw, client, message) => {
    const fresh = await createAnonUser(api, app);
    const res = await api.post('/1/location/update', { token: fresh.access_token, json: [point(Date.now(), raw ?? { battery: 1 }, client ?? { name: 'x' })] });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toContain(message);
    expectErrorShape((await api.get('/1/location/last', { token: fresh.access_token })).body, 404, 'not_found');
  });

  it('a long body (read in a shard) names the bad point, and the requests batched with it are served', async () => {
    const now = Date.now();
    const users = await Promise.all(Array.from({ length: 12 }, () => createAnonUser(api, app)));
    const bad = Array.from({ length: 20 }, (_, i) => point(now - 20_000 + i * 1000, i === 13 ? { 'ios.version': '4.2' } : { battery: i }));
    expect(JSON.stringify(bad).length).toBeGreaterThan(2048);
    const results = await Promise.all([
      api.post('/1/location/update', { token: user.access_token, json: bad }),
      ...users.map((u, i) => api.post('/1/location/update', { token: u.access_token, json: [point(now - i)] })),
    ]);
    expectErrorShape(results[0]!.body, 400, 'invalid_input');
    expect(results[0]!.body.error_description).toContain('point 13: raw has a field name that starts with "$" or contains "." ("ios.version")');
    for (const r of results.slice(1)) expect(r.status).toBe(200);
    for (const u of users) expect((await api.get('/1/location/last', { token: u.access_token })).body.raw).toEqual({ battery: 80 });
    expectErrorShape((await api.get('/1/location/last', { token: user.access_token })).body, 404, 'not_found');
  });

  it('extra is refused with a 400 naming the key, JSON or form, and the stored extra is unchanged', async () => {
    for (const body of [{ json: { extra: { 'a.b': 1 } } }, { json: { extra: { when: { $$date: 5 } } } }, { form: { extra: { 'com.example.flag': '1' } } }]) {
      const res = await api.post(`/1/user/update/${user.user_id}`, { token: app.access_token, ...body });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toMatch(/^body\.extra has a field name that starts with "\$" or contains "\." \(/);
    }
    const info = await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token });
    expect(info.body.extra).toEqual({ color: 'blue' });
  });

  it('place, trigger (place_extra) and layer extras are checked the same way, nested too', async () => {
    const geo = { latitude: 45.5, longitude: -122.6, radius: 100 };
    const cases: Array<[string, unknown, string]> = [
      ['/1/place/create', { ...geo, extra: { k: { 'c.d': 1 } } }, 'body.extra has a field name that starts with "$" or contains "." ("c.d" in extra.k)'],
      ['/1/trigger/create', { ...geo, type: 'message', text: 'hi', place_extra: { $x: 1 } }, 'body.place_extra has a field name that starts with "$" or contains "." ("$x")'],
      ['/1/trigger/create', { ...geo, type: 'message', text: 'hi', extra: { list: [{ 'a.b': 1 }] } }, 'body.extra has a field name that starts with "$" or contains "." ("a.b" in extra.list[0])'],
      ['/1/layer/create', { name: 'L', extra: { $where: 'x' } }, 'body.extra has a field name that starts with "$" or contains "." ("$where")'],
    ];
    for (const [path, json, message] of cases) {
      const res = await api.post(path, { token: app.access_token, json });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toBe(message);
    }
    // Nothing was created on the way: no place, no trigger.
    expect((await api.get('/1/place/list', { token: app.access_token })).body.places).toEqual([]);
    expect((await api.get('/1/trigger/list', { token: app.access_token })).body.triggers).toEqual([]);
  });

  it('a form body nests extra as deep as a JSON body may (64 levels), and one level more is refused like JSON', async () => {
    const path = (n: number) => Array.from({ length: n }, (_, i) => `[k${i}]`).join('');
    // extra[k0]…[k5]: qs's default depth (5) stored the sixth level as a literal key "[k5]".
    const six = await api.post('/1/layer/create', { token: app.access_token, rawBody: `name=six&extra${path(6)}=v`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(six.status).toBe(200);
    expect(six.body.extra).toEqual({ k0: { k1: { k2: { k3: { k4: { k5: 'v' } } } } } });
    const deepest = await api.post('/1/layer/create', { token: app.access_token, rawBody: `name=deep&extra${path(63)}=v`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(deepest.status).toBe(200);
    let level = deepest.body.extra;
    for (let i = 0; i < 62; i++) level = level[`k${i}`];
    expect(level).toEqual({ k62: 'v' });
    const tooDeep = await api.post('/1/layer/create', { token: app.access_token, rawBody: `name=over&extra${path(65)}=v`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectErrorShape(tooDeep.body, 400, 'invalid_input');
    expect(tooDeep.body.error_description).toBe('body.extra nests deeper than 64 levels');
  });

  it('other keys, punctuation and nesting included, are stored and read back as sent, also after a restart', async () => {
    const extra = { 'a-b': 1, 'a b': 2, ä: 3, a$b: 4, list: [{ 'x:y': 'z.$' }], deep: { er: { still: true } } };
    expect((await api.post(`/1/user/update/${user.user_id}`, { token: app.access_token, json: { extra } })).status).toBe(200);
    await server.restart();
    const info = await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token });
    // An update merges its keys into the stored extra (the user was created with `color`).
    expect(info.body.extra).toEqual({ color: 'blue', ...extra });
  });
});
