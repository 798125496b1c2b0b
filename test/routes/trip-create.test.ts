// trip/create: reference §4.13 names it only ("token returned from trip/create", its page lost).
// Here it creates a share link of the calling user, link/create's object, whose token share/* read
// and the streaming API's `trip-<token>` watches (test/routes/streaming.e2e.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

describe('trip/create', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let me: TestUser;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    me = await createAnonUser(api, app);
    await api.post('/1/location/update', {
      token: me.access_token,
      json: [{ date: new Date().toISOString(), location: { position: { latitude: 45.52, longitude: -122.68, horizontal_accuracy: 10 } } }],
    });
  });
  afterAll(() => server?.close());

  it('creates a share link of the caller for the trip, managed and read like link/create\'s', async () => {
    const created = await api.post('/1/trip/create', { token: me.access_token, json: { description: 'Heading home', minutes: 45 } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{7}$/), link: expect.any(String), shortlink: expect.any(String) });
    const { token } = created.body;
    expect(created.body.link).toContain(token);

    const stats = await api.get('/1/link/stats', { token: me.access_token, query: { token } });
    expect(stats.body.link).toMatchObject({ token, description: 'Heading home', currently_active: '1', date_to_ts: expect.any(Number) });
    expect(stats.body.link.date_to_ts - stats.body.link.date_from_ts).toBe(45 * 60);
    const info = await api.get('/1/share/info', { query: { geoloqi_token: token } });
    expect(info.body).toMatchObject({ profile: { user_id: me.user_id }, share: { description: 'Heading home' } });
    const last = await api.get('/1/share/last', { query: { geoloqi_token: token } });
    expect(last.body.location.position).toMatchObject({ latitude: 45.52, longitude: -122.68 });

    // Ended like any link.
    expect((await api.post('/1/link/expire', { token: me.access_token, json: { token } })).body).toEqual({ result: 'ok' });
    expect((await api.get('/1/share/last', { query: { geoloqi_token: token } })).status).toBe(403);
  });

  it('takes an end date, or nothing (a trip with no end)', async () => {
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const dated = await api.post('/1/trip/create', { token: me.access_token, json: { date_to: until } });
    expect(dated.status).toBe(200);
    const stats = await api.get('/1/link/stats', { token: me.access_token, query: { token: dated.body.token } });
    expect(stats.body.link.date_to_ts).toBe(Math.floor(Date.parse(until) / 1000));
    // Daily hours are link/create's, not a trip's: ignored, as unknown fields are.
    const open = await api.post('/1/trip/create', { token: me.access_token, json: { time_from: '08:00', time_to: '09:00', share_with: 'a@example.com' } });
    expect(open.status).toBe(200);
    const link = (await api.get('/1/link/stats', { token: me.access_token, query: { token: open.body.token } })).body.link;
    expect(link).toMatchObject({ date_to: null, time_from: null, time_to: null, share_with: '', currently_active: '1' });
  });

  it('refuses bad input and credentials other than a user\'s token', async () => {
    for (const json of [{ minutes: 0 }, { minutes: 'soon' }, { minutes: 10, date_to: '2030-01-01T00:00:00Z' }, { date_to: 'not a date' }]) {
      const res = await api.post('/1/trip/create', { token: me.access_token, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expectErrorShape(res.body, 400);
    }
    const asApp = await api.post('/1/trip/create', { token: app.access_token, json: { minutes: 5 } });
    expect(asApp.status).toBeGreaterThanOrEqual(400);
    expectErrorShape(asApp.body, asApp.status);
    const nobody = await api.post('/1/trip/create', { json: { minutes: 5 } });
    expect(nobody.status).toBe(401);
    expectErrorShape(nobody.body, 401);
  });
});
