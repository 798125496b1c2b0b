// link/* and share/* (reference §4.13): a user shares their location through a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

describe('share links', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let me: TestUser;
  let neighbour: TestUser;
  let otherApp: TestApp;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    me = await createAnonUser(api, app);
    neighbour = await createAnonUser(api, app);
    otherApp = await createApp(api, 'other');
    const at = new Date().toISOString();
    await api.post('/1/location/update', { token: me.access_token, json: [{ date: at, location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } }] });
  });
  afterAll(() => server?.close());

  it('creates a 7-character token whose link shows the last location, until deactivated or expired', async () => {
    const created = await api.post('/1/link/create', { token: me.access_token, json: { description: 'on my way', minutes: 30 } });
    expect(created.status).toBe(200);
    const { token } = created.body;
    expect(token).toMatch(/^[A-Za-z0-9_-]{7}$/);
    expect(created.body.link).toContain(token);
    const last = await api.get('/1/share/last', { token: app.access_token, query: { geoloqi_token: token } });
    expect(last.status).toBe(200);
    expect(last.body.location.position).toMatchObject({ latitude: 45.5, longitude: -122.6 });
    const many = await api.get('/1/share/last', { token: neighbour.access_token, query: { geoloqi_token: `,${token}` } });
    expect(many.body.locations).toEqual([expect.objectContaining({ username: expect.any(String) })]);
    const info = await api.get('/1/share/info', { token: app.access_token, query: { geoloqi_token: token } });
    expect(info.body).toMatchObject({ profile: { user_id: me.user_id }, share: { description: 'on my way' } });
    const history = await api.get('/1/share/history', { token: app.access_token, query: { geoloqi_token: token } });
    // The application keeps no history unless the operator turns it on: the answer has the shape, no points.
    expect(history.status).toBe(200);
    expect(history.body.points).toEqual([]);
    const stats = await api.get('/1/link/stats', { token: me.access_token, query: { token } });
    expect(stats.body.link).toMatchObject({ token, description: 'on my way', currently_active: '1', date_to_ts: expect.any(Number) });

    expect((await api.post('/1/link/deactivate', { token: me.access_token, json: { token } })).body).toEqual({ result: 'ok' });
    const again = await api.post('/1/link/deactivate', { token: me.access_token, json: { token } });
    expect(again.status).toBe(409);
    expectErrorShape(again.body, 409, 'already_inactive');
    const closed = await api.get('/1/share/last', { token: app.access_token, query: { geoloqi_token: token } });
    expect(closed.status).toBe(403);
    expect(closed.body).toEqual({ error_code: 403, error: 'invalid_token', error_description: 'No tokens in the request are currently valid' });
    expect((await api.post('/1/link/activate', { token: me.access_token, json: { token } })).body).toEqual({ result: 'ok' });
    expectErrorShape((await api.post('/1/link/activate', { token: me.access_token, json: { token } })).body, 409, 'already_active');
    expect((await api.post('/1/link/expire', { token: me.access_token, json: { token } })).body).toEqual({ result: 'ok' });
    expectErrorShape((await api.post('/1/link/expire', { token: me.access_token, json: { token } })).body, 409, 'already_expired');
    expectErrorShape((await api.post('/1/link/activate', { token: me.access_token, json: { token } })).body, 409, 'already_expired');
  });

  it('refuses bad input: no token, unknown token, mixed time parameters', async () => {
    expectErrorShape((await api.post('/1/link/expire', { token: me.access_token, json: {} })).body, 400, 'missing_input');
    expectErrorShape((await api.post('/1/link/expire', { token: me.access_token, json: { token: 'nothing' } })).body, 404, 'not_found');
    expectErrorShape((await api.post('/1/link/create', { token: me.access_token, json: { minutes: 5, date_to: '2030-01-01T00:00:00Z' } })).body, 400, 'invalid_input');
    expectErrorShape((await api.post('/1/link/create', { token: me.access_token, json: { time_from: '17:00' } })).body, 400, 'invalid_input');
    expectErrorShape((await api.post('/1/link/create', { token: me.access_token, json: { minutes: 0 } })).body, 400);
    expect((await api.post('/1/link/create', { token: app.access_token, json: {} })).status).toBe(403);
    expectErrorShape((await api.get('/1/share/last', { token: app.access_token })).body, 400);
  });

  it("another user's or application's token reads as one that does not exist", async () => {
    const { token } = (await api.post('/1/link/create', { token: me.access_token, json: {} })).body;
    for (const action of ['expire', 'deactivate']) {
      const res = await api.post(`/1/link/${action}`, { token: neighbour.access_token, json: { token } });
      expectErrorShape(res.body, 404, 'not_found');
    }
    expectErrorShape((await api.get('/1/link/stats', { token: neighbour.access_token, query: { token } })).body, 404, 'not_found');
    const foreign = await api.get('/1/share/last', { token: otherApp.access_token, query: { geoloqi_token: token } });
    const missing = await api.get('/1/share/last', { token: otherApp.access_token, query: { geoloqi_token: 'nothing' } });
    expect(foreign.status).toBe(403);
    expectErrorShape(foreign.body, 403, 'invalid_token');
    expect(foreign.body).toEqual(missing.body);
  });

  it('share/* need no access token: the share token is the credential (a viewing page has nothing else)', async () => {
    const { token } = (await api.post('/1/link/create', { token: me.access_token, json: { description: 'walk' } })).body;
    const last = await api.get('/1/share/last', { query: { geoloqi_token: token } });
    expect(last.status).toBe(200);
    expect(last.body.location.position).toMatchObject({ latitude: 45.5, longitude: -122.6 });
    const info = await api.get('/1/share/info', { query: { geoloqi_token: token } });
    expect(info.body).toMatchObject({ profile: { user_id: me.user_id }, share: { description: 'walk' } });
    expect((await api.get('/1/share/history', { query: { geoloqi_token: token } })).status).toBe(200);
    // A valid token (its application's) changes nothing; an invalid one is refused as on every method.
    expect((await api.get('/1/share/last', { token: neighbour.access_token, query: { geoloqi_token: token } })).status).toBe(200);
    const bad = await api.get('/1/share/last', { token: 'usr-0000000000000000000000', query: { geoloqi_token: token } });
    expectErrorShape(bad.body, 401, 'invalid_token');
  });

  it('answers every token that is not open with the same 403: unknown, inactive, expired, several at once', async () => {
    const { token } = (await api.post('/1/link/create', { token: me.access_token, json: {} })).body;
    await api.post('/1/link/deactivate', { token: me.access_token, json: { token } });
    const expected = { error_code: 403, error: 'invalid_token', error_description: 'No tokens in the request are currently valid' };
    for (const geoloqi_token of [token, 'Nothing', `${token},Nothing`, ',Nothing']) {
      for (const path of ['/1/share/last', '/1/share/info', '/1/share/history']) {
        const res = await api.get(path, { query: { geoloqi_token } });
        expect(res.status, `${path} ${geoloqi_token}`).toBe(403);
        expect(res.body).toEqual(expected);
      }
    }
    // One open token among closed ones is enough.
    const open = (await api.post('/1/link/create', { token: me.access_token, json: {} })).body.token;
    const mixed = await api.get('/1/share/last', { query: { geoloqi_token: `${token},${open}` } });
    expect(mixed.body.locations).toHaveLength(1);
  });
});

describe('share token guessing', () => {
  let server: TestService;

  beforeAll(async () => {
    server = await startApp({ env: { SHARE_TOKEN_FAILURES: '3' } });
  });
  afterAll(() => server?.close());

  it('refuses an address with a 429 once it has sent too many unknown share tokens, but not the links it opened before', async () => {
    const { api } = server;
    const app = await createApp(api);
    const me = await createAnonUser(api, app);
    const link = async () => (await api.post('/1/link/create', { token: me.access_token, json: {} })).body.token as string;
    const [opened, unseen] = [await link(), await link()];
    expect((await api.get('/1/share/info', { query: { geoloqi_token: opened } })).status).toBe(200);
    // Two unknown tokens in one request count twice.
    expect((await api.get('/1/share/last', { query: { geoloqi_token: 'Guess01,Guess02' } })).status).toBe(403);
    expect((await api.get('/1/share/info', { query: { geoloqi_token: 'Guess03' } })).status).toBe(403);
    expect((await api.get('/1/share/info', { query: { geoloqi_token: opened } })).status).toBe(200);
    // A real token the address never opened is refused like a guess: answering it would tell a hit.
    const refused = await api.get('/1/share/info', { query: { geoloqi_token: unseen } });
    expectErrorShape(refused.body, 429, 'too_many_requests');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
