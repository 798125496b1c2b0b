// Two user lifecycle guarantees found missing by probing the API:
// - device tokens registered in parallel are all kept (each registration was a read-modify-write
//   of the whole device lists, and parallel ones overwrote each other);
// - user/delete removes the user's locations (last and history) and trigger history, not only the
//   user, tokens, subscriptions and messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

describe('user lifecycle', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
  });
  afterAll(() => server.close());

  it('keeps every device token registered in parallel, and moves a token between kinds', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await createAnonUser(api, app);
      const calls: Array<[string, Record<string, string>]> = [
        ['/1/account/set_gcm_token', { gcm_token: `g1-${round}` }],
        ['/1/account/set_gcm_token', { gcm_token: `g2-${round}` }],
        ['/1/account/set_apn_token', { token: `a1-${round}`, mode: 'live' }],
        ['/1/account/set_apn_token', { token: `a2-${round}`, mode: 'dev' }],
        ['/1/account/set_c2dm_token', { c2dm_token: `c1-${round}` }],
        ['/1/account/set_gcm_token', { gcm_token: `g3-${round}` }],
      ];
      const results = await Promise.all(calls.map(([path, json]) => api.post(path, { token: user.access_token, json })));
      for (const r of results) expect(r.status).toBe(200);
      const devices = (await api.get('/1/account/profile', { token: user.access_token })).body.devices;
      expect([...devices.gcm].sort()).toEqual([`g1-${round}`, `g2-${round}`, `g3-${round}`]);
      expect(devices.apns_live).toEqual([`a1-${round}`]);
      expect(devices.apns_dev).toEqual([`a2-${round}`]);
      expect(devices.c2dm).toEqual([`c1-${round}`]);
      // The same token registered as another kind moves there.
      await api.post('/1/account/set_c2dm_token', { token: user.access_token, json: { c2dm_token: `g1-${round}` } });
      const moved = (await api.get('/1/account/profile', { token: user.access_token })).body.devices;
      expect([...moved.gcm].sort()).toEqual([`g2-${round}`, `g3-${round}`]);
      expect([...moved.c2dm].sort()).toEqual([`c1-${round}`, `g1-${round}`]);
    }
  });

  it('user/delete removes their locations and trigger history, and keeps the other users\'', async () => {
    await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    const trigger = await api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 45.5, longitude: -122.6, radius: 200, type: 'message', text: 'in', trigger_on: 'enter' },
    });
    expect(trigger.status).toBe(200);
    const [gone, kept] = [await createAnonUser(api, app), await createAnonUser(api, app)];
    const t = Date.now() - 10_000;
    for (const u of [gone, kept]) {
      const points = [0, 1].map((i) => ({ date: new Date(t + i * 1000).toISOString(), location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } }));
      expect((await api.post('/1/location/update', { token: u.access_token, json: points })).status).toBe(200);
    }
    const historyOf = async (userId: string) =>
      (await api.get('/1/trigger/history', { token: app.access_token })).body.history.filter((h: { user_id?: string; user?: { user_id: string } }) => (h.user_id ?? h.user?.user_id) === userId);
    expect(await historyOf(gone.user_id)).toHaveLength(1);
    expect((await api.post(`/1/user/delete/${gone.user_id}`, { token: app.access_token })).status).toBe(200);

    const store = server.app.ctx.store;
    const points = (userId: string) => store.locations.newest(app.application_id, userId, {}, 100);
    const last = (userId: string) => store.lastLocations.of(app.application_id, userId);
    expect(await points(gone.user_id)).toEqual([]);
    expect(await last(gone.user_id)).toBeNull();
    expect(await store.firings.recentForUsers([gone.user_id], 0)).toEqual([]);
    expect(await historyOf(gone.user_id)).toEqual([]);
    // The other user's are all there.
    expect(await points(kept.user_id)).toHaveLength(2);
    expect(await last(kept.user_id)).not.toBeNull();
    expect(await historyOf(kept.user_id)).toHaveLength(1);
    expect((await api.get('/1/location/history', { token: kept.access_token })).body.points).toHaveLength(2);
  });
});
