// The smaller methods of issue 32: location/tracking_profile and delete_batch, layer/nearby,
// layer/subscription, layer/user_clusters, place/list_unnamed, user/list/:id, user/secure_delete,
// account/privacy and connections, and application/*. Each with its shape, its 4xx, and another
// application's objects reading as missing ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const pt = (at: number, latitude: number, longitude = -122.6) => ({ date: at, location: { position: { latitude, longitude, horizontal_accuracy: 10 } } });

describe('the remaining small methods', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let me: TestUser;
  let other: TestApp;
  let stranger: TestUser;
  const t0 = Math.floor(Date.now() / 1000) - 3600;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    me = await createAnonUser(api, app);
    other = await createApp(api, 'other');
    stranger = await createAnonUser(api, other);
  });
  afterAll(() => server?.close());

  it('location/tracking_profile: adaptive until set, then the profile set; bad names refused', async () => {
    const first = await api.get('/1/location/tracking_profile', { token: me.access_token });
    expect(first.body).toEqual({ profile: 'adaptive', date: expect.any(String), date_ts: expect.any(Number) });
    const set = await api.post('/1/location/tracking_profile', { token: app.access_token, json: { user_id: me.user_id, profile: 'rough' } });
    expect(set.body.profile).toBe('rough');
    expect((await api.get('/1/location/tracking_profile', { token: me.access_token })).body.profile).toBe('rough');
    expectErrorShape((await api.post('/1/location/tracking_profile', { token: me.access_token, json: { profile: 'turbo' } })).body, 400);
    expectErrorShape((await api.get('/1/location/tracking_profile', { token: other.access_token, query: { user_id: me.user_id } })).body, 404, 'not_found');
  });

  it('location/delete_batch deletes exactly the points of a history batch, once', async () => {
    await api.post('/1/location/update', { token: me.access_token, json: [pt(t0, 45.5), pt(t0 + 10, 45.501), pt(t0 + 20, 45.502)] });
    const history = await api.get('/1/location/history', { token: me.access_token, query: { count: 2, batch: true } });
    expect(history.body.batch).toMatch(/^[0-9a-f]{40}$/);
    expectErrorShape((await api.post(`/1/location/delete_batch/${history.body.batch}`, { token: other.access_token, json: { user_id: stranger.user_id } })).body, 404, 'not_found');
    const deleted = await api.post(`/1/location/delete_batch/${history.body.batch}`, { token: me.access_token });
    expect(deleted.body).toEqual({ deleted: 2 });
    expect((await api.get('/1/location/history', { token: me.access_token })).body.points).toHaveLength(1);
    expect((await api.post(`/1/location/delete_batch/${history.body.batch}`, { token: me.access_token })).status).toBe(304);
    expectErrorShape((await api.post(`/1/location/delete_batch/${'0'.repeat(40)}`, { token: me.access_token })).body, 404, 'not_found');
    expectErrorShape((await api.post('/1/location/delete_batch/nope', { token: me.access_token })).body, 400);
  });

  it('layer/nearby: the layers whose circle holds the point, GET or POST', async () => {
    const near = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'Near', latitude: 45.5, longitude: -122.6, radius: 5000, public: 1 } });
    await api.post('/1/layer/create', { token: app.access_token, json: { name: 'Far', latitude: 10, longitude: 10, radius: 5000, public: 1 } });
    const get = await api.get('/1/layer/nearby', { token: me.access_token, query: { latitude: 45.51, longitude: -122.6 } });
    expect(get.body.nearby.map((l: { name: string }) => l.name)).toEqual(['Near']);
    const post = await api.post('/1/layer/nearby', { token: app.access_token, json: { latitude: 45.51, longitude: -122.6 } });
    expect(post.body.nearby[0].layer_id).toBe(near.body.layer_id);
    expect((await api.get('/1/layer/nearby', { token: stranger.access_token, query: { latitude: 45.51, longitude: -122.6 } })).body.nearby).toEqual([]);
    expectErrorShape((await api.get('/1/layer/nearby', { token: me.access_token, query: { latitude: 45.51 } })).body, 400, 'missing_input');
    expectErrorShape((await api.get('/1/layer/nearby', { token: me.access_token, query: { geocode: 'Portland' } })).body, 400, 'invalid_input');
  });

  it('layer/subscription: active, date and settings; POST sets the settings', async () => {
    const layer = (await api.post('/1/layer/create', { token: app.access_token, json: { name: 'Subs' } })).body.layer_id;
    const before = await api.get(`/1/layer/subscription/${layer}`, { token: app.access_token, query: { user_id: me.user_id } });
    expect(before.body).toEqual({ layer_id: layer, active: 0, date_subscribed: null, settings: [] });
    expectErrorShape((await api.post(`/1/layer/subscription/${layer}`, { token: app.access_token, json: { user_id: me.user_id, settings: { a: 1 } } })).body, 400, 'invalid_input');
    await api.post(`/1/layer/subscribe/${layer}`, { token: app.access_token, json: { user_id: me.user_id } });
    const set = await api.post(`/1/layer/subscription/${layer}`, { token: me.access_token, json: { settings: { team: 'red' } } });
    expect(set.body).toMatchObject({ layer_id: layer, active: 1, settings: { team: 'red' } });
    const after = await api.get(`/1/layer/subscription/${layer}`, { token: me.access_token });
    expect(after.body).toMatchObject({ active: 1, settings: { team: 'red' }, date_subscribed: expect.any(String) });
    expect((await api.get(`/1/layer/subscription/${app.default_layer_id}`, { token: me.access_token })).body.active).toBe(1);
    expectErrorShape((await api.get(`/1/layer/subscription/${layer}`, { token: stranger.access_token })).body, 404, 'not_found');
  });

  it('layer/user_clusters: users near each other as clusters, the rest as singles', async () => {
    const a = await createAnonUser(api, app);
    const b = await createAnonUser(api, app);
    const c = await createAnonUser(api, app);
    await api.post('/1/location/update', { token: a.access_token, json: [pt(t0, 40, 10)] });
    await api.post('/1/location/update', { token: b.access_token, json: [pt(t0, 40.001, 10)] });
    await api.post('/1/location/update', { token: c.access_token, json: [pt(t0, -30, 100)] });
    const res = await api.get(`/1/layer/user_clusters/${app.default_layer_id}`, { token: app.access_token });
    expect(res.body.clusters).toEqual([expect.objectContaining({ count: 2, bounds: { center: { latitude: expect.closeTo(40.0005, 5), longitude: 10 }, radius: expect.any(Number) } })]);
    expect(res.body.singles).toContainEqual({ lat: -30, lng: 100 });
    expectErrorShape((await api.get(`/1/layer/user_clusters/${app.default_layer_id}`, { token: other.access_token })).body, 404, 'not_found');
    expect((await api.get(`/1/layer/user_clusters/${app.default_layer_id}`, { token: me.access_token })).status).toBe(403);
  });

  it('place/list_unnamed lists only the places without a name', async () => {
    await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 10, name: 'Named' } });
    const unnamed = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 1, radius: 10 } });
    const res = await api.get('/1/place/list_unnamed', { token: app.access_token });
    expect(res.body.places.map((p: { place_id: string }) => p.place_id)).toEqual([unnamed.body.place_id]);
    expect(res.body.paging).toMatchObject({ total: 1 });
    expectErrorShape((await api.get('/1/place/list_unnamed', { token: other.access_token, query: { layer_id: app.default_layer_id } })).body, 404, 'not_found');
  });

  it('user/list/:id answers one user in the list shape', async () => {
    const res = await api.get(`/1/user/list/${me.user_id}`, { basic: [app.client_id, app.client_secret] });
    expect(res.body).toEqual({ users: [expect.objectContaining({ user_id: me.user_id })], paging: { limit: 25, total: 1 } });
    expectErrorShape((await api.get(`/1/user/list/${me.user_id}`, { token: other.access_token })).body, 404, 'not_found');
    expect((await api.get(`/1/user/list/${me.user_id}`, { token: me.access_token })).status).toBe(403);
  });

  it('user/secure_delete: a token first, then the deletion with it', async () => {
    const leaving = await createAnonUser(api, app);
    const first = await api.post(`/1/user/secure_delete/${leaving.user_id}`, { token: app.access_token });
    expect(first.body).toEqual({ token: expect.any(String) });
    expectErrorShape((await api.post(`/1/user/secure_delete/${leaving.user_id}`, { token: app.access_token, json: { token: 'wrong' } })).body, 400, 'invalid_input');
    expectErrorShape((await api.post(`/1/user/secure_delete/${leaving.user_id}`, { token: other.access_token, json: { token: first.body.token } })).body, 404, 'not_found');
    const done = await api.post(`/1/user/secure_delete/${leaving.user_id}?token=${first.body.token}`, { token: app.access_token });
    expect(done.body).toEqual({ delete: 'successful', status: 'This user has been successfully deleted' });
    expect((await api.get(`/1/user/info/${leaving.user_id}`, { token: app.access_token })).status).toBe(404);
  });

  it('account/privacy and account/connections', async () => {
    expect((await api.get('/1/account/privacy', { token: me.access_token })).body).toEqual({
      public_location: '0', public_geonotes: '0', public_geonote_email: '0', default_share_expiration: '0',
    });
    expect((await api.post('/1/account/privacy', { token: me.access_token, json: { public_location: 1, default_share_expiration: 30 } })).body).toEqual({ result: 'ok' });
    expect((await api.get('/1/account/privacy', { token: me.access_token })).body).toMatchObject({ public_location: '1', default_share_expiration: '30' });
    expectErrorShape((await api.post('/1/account/privacy', { token: me.access_token, json: { public_location: 'maybe' } })).body, 400);
    const connections = await api.get('/1/account/connections', { token: me.access_token });
    expect(connections.body).toEqual([{ application_name: 'test app', application_description: '', application_url: '', date_approved: expect.any(String) }]);
    expect((await api.get('/1/account/privacy', { token: app.access_token })).status).toBe(403);
  });

  it('application/*: the caller\'s own application only', async () => {
    const list = await api.get('/1/application/list', { token: app.access_token });
    expect(list.body.applications).toEqual([expect.objectContaining({ application_id: app.application_id, client_id: app.client_id, client_secret: null })]);
    expect((await api.get(`/1/application/info/${app.application_id}`, { token: app.access_token })).body.name).toBe('test app');
    const layers = await api.get(`/1/application/layers/${app.application_id}`, { token: app.access_token });
    expect(layers.body.layers.some((l: { layer_id: string; bounds: unknown }) => l.layer_id === app.default_layer_id && 'bounds' in l)).toBe(true);
    const usage = await api.get(`/1/application/usage/${app.application_id}`, { token: app.access_token });
    expect(usage.body.usage).toMatchObject({ trigger_callback: { name: 'URL Callbacks', total: 0 }, triggers_total: 0, messages_total: 0 });
    for (const path of ['info', 'layers', 'usage']) {
      expectErrorShape((await api.get(`/1/application/${path}/${app.application_id}`, { token: other.access_token })).body, 404, 'not_found');
    }
    expect((await api.get('/1/application/list', { token: me.access_token })).status).toBe(403);
  });
});
