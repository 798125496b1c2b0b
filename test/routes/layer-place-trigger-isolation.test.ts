// Two applications side by side: neither can see, change or delete the other's layers, places and
// triggers (each answers 404, exactly like a missing object). Then a restart keeps every one of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let a: TestApp;
let b: TestApp;
let userA: TestUser;
let userB: TestUser;
const ids = { layer: '', place: '', trigger: '', layerTrigger: '' };

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  a = await createApp(api, 'A');
  b = await createApp(api, 'B');
  userA = await createAnonUser(api, a);
  userB = await createAnonUser(api, b);
  const token = a.access_token;
  ids.layer = (await api.post('/1/layer/create', { token, json: { name: 'A layer', key: 'a-layer', public: 1 } })).body.layer_id;
  ids.place = (await api.post('/1/place/create', { token, json: { layer_id: ids.layer, key: 'a-place', name: 'A place', latitude: 1, longitude: 1, radius: 50 } })).body.place_id;
  ids.trigger = (await api.post('/1/trigger/create', { token, json: { key: 'a-trigger', place_id: ids.place, text: 'A' } })).body.trigger_id;
  ids.layerTrigger = (await api.post('/1/trigger/create', { token, json: { layer_id: ids.layer, type: 'callback', url: 'http://127.0.0.1:9/a' } })).body.trigger_id;
  await api.post(`/1/layer/subscribe/${ids.layer}`, { token, query: { user_id: userA.user_id } });
});
afterAll(async () => server?.close());

/** Everything application A can read about its own objects, to compare before and after. */
async function snapshotA() {
  const token = a.access_token;
  const get = async (path: string, query?: Record<string, unknown>) => (await api.get(path, { token, query })).body;
  return {
    layer: await get(`/1/layer/info/${ids.layer}`, { include_places: 1 }),
    place: await get(`/1/place/info/${ids.place}`),
    trigger: await get(`/1/trigger/info/${ids.trigger}`),
    layerTrigger: await get(`/1/trigger/info/${ids.layerTrigger}`),
    triggers: await get('/1/trigger/list', { layer_id: ids.layer }),
    layers: await get('/1/layer/list'),
    subscriptions: await get('/1/layer/subscriptions', { user_id: userA.user_id }),
  };
}

describe('another application', () => {
  const expect404 = (res: ApiResponse, label: string) => {
    expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(404);
    expectErrorShape(res.body, 404, 'not_found');
  };

  it('gets 404 for every layer, place and trigger of the first, and changes nothing', async () => {
    const before = await snapshotA();
    const token = b.access_token;
    const own = (await api.post('/1/trigger/create', { token, json: { latitude: 1, longitude: 1, radius: 5, text: 'B own' } })).body.trigger_id;
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ['layer/info', () => api.get(`/1/layer/info/${ids.layer}`, { token })],
      ['layer/info?key', () => api.get('/1/layer/info', { token, query: { key: 'a-layer' } })],
      ['layer/update', () => api.post(`/1/layer/update/${ids.layer}`, { token, json: { name: 'stolen' } })],
      ['layer/delete', () => api.post(`/1/layer/delete/${ids.layer}`, { token })],
      ['layer/users', () => api.get(`/1/layer/users/${ids.layer}`, { token })],
      ['layer/subscribe (B user to A layer)', () => api.post(`/1/layer/subscribe/${ids.layer}`, { token, query: { user_id: userB.user_id } })],
      ['layer/subscribe (A user by B)', () => api.post(`/1/layer/subscribe/${b.default_layer_id}`, { token, query: { user_id: userA.user_id } })],
      ['layer/unsubscribe (A user by B)', () => api.post(`/1/layer/unsubscribe/${ids.layer}`, { token, query: { user_id: userA.user_id } })],
      ['layer/subscriptions of A user', () => api.get('/1/layer/subscriptions', { token, query: { user_id: userA.user_id } })],
      ['B user subscribes to A public layer', () => api.post(`/1/layer/subscribe/${ids.layer}`, { token: userB.access_token })],
      ['place/info', () => api.get(`/1/place/info/${ids.place}`, { token })],
      ['place/info?key', () => api.get('/1/place/info', { token, query: { key: 'a-place', layer_id: ids.layer } })],
      ['place/update', () => api.post(`/1/place/update/${ids.place}`, { token, json: { name: 'stolen' } })],
      ['place/delete', () => api.post(`/1/place/delete/${ids.place}`, { token })],
      ['place/create on A layer', () => api.post('/1/place/create', { token, json: { layer_id: ids.layer, latitude: 1, longitude: 1, radius: 5 } })],
      ['place/list of A layer', () => api.get('/1/place/list', { token, query: { layer_id: ids.layer } })],
      ['place/nearby on A layer', () => api.get('/1/place/nearby', { token, query: { layer_id: ids.layer, latitude: 1, longitude: 1 } })],
      ['place/list of A layer by B user', () => api.get('/1/place/list', { token: userB.access_token, query: { layer_id: ids.layer } })],
      ['trigger/info', () => api.get(`/1/trigger/info/${ids.trigger}`, { token })],
      ['trigger/update', () => api.post(`/1/trigger/update/${ids.trigger}`, { token, json: { text: 'stolen' } })],
      ['trigger/delete', () => api.post(`/1/trigger/delete/${ids.layerTrigger}`, { token })],
      ['trigger/create on A place', () => api.post('/1/trigger/create', { token, json: { place_id: ids.place, text: 'x' } })],
      ['trigger/create on A layer', () => api.post('/1/trigger/create', { token, json: { layer_id: ids.layer, text: 'x' } })],
      ['trigger/create with place on A layer', () => api.post('/1/trigger/create', { token, json: { place_layer_id: ids.layer, latitude: 1, longitude: 1, radius: 5, text: 'x' } })],
      ['B trigger moved onto A place', () => api.post(`/1/trigger/update/${own}`, { token, json: { place_id: ids.place } })],
      ['B trigger moved onto A layer', () => api.post(`/1/trigger/update/${own}`, { token, json: { layer_id: ids.layer } })],
      ['trigger/list of A layer', () => api.get('/1/trigger/list', { token, query: { layer_id: ids.layer } })],
      ['trigger/list of A place', () => api.get('/1/trigger/list', { token, query: { place_id: ids.place } })],
    ];
    for (const [label, call] of calls) expect404(await call(), label);

    // B's own lists show nothing of A's, and B can reuse A's keys for itself.
    const layers = await api.get('/1/layer/list', { token });
    expect(layers.body.layers.map((l: any) => l.layer_id)).toEqual([b.default_layer_id]);
    const reused = await api.post('/1/layer/create', { token, json: { name: 'B layer', key: 'a-layer' } });
    expect(reused.status).toBe(200);
    const reusedTrigger = await api.post('/1/trigger/create', { token, json: { key: 'a-trigger', latitude: 1, longitude: 1, radius: 5, text: 'B' } });
    expect(reusedTrigger.status).toBe(200);
    expect(reusedTrigger.body.trigger_id).not.toBe(ids.trigger);

    expect(await snapshotA()).toEqual(before);
  });

  it('works the same the other way round: A cannot touch B\'s objects', async () => {
    const bPlace = (await api.post('/1/place/create', { token: b.access_token, json: { latitude: 2, longitude: 2, radius: 5 } })).body.place_id;
    expect404(await api.get(`/1/place/info/${bPlace}`, { token: a.access_token }), 'A reads B place');
    expect404(await api.post(`/1/place/delete/${bPlace}`, { token: a.access_token }), 'A deletes B place');
    expect((await api.get(`/1/place/info/${bPlace}`, { token: b.access_token })).status).toBe(200);
  });
});

describe('restart', () => {
  it('keeps every layer, place and trigger, and key de-dup still holds', async () => {
    const extraPlace = (await api.post('/1/place/create', {
      token: a.access_token, json: { layer_id: ids.layer, name: 'windowed', latitude: 3, longitude: 3, radius: 30, date_from: 1301572800, time_from: '08:00', extra: { n: 1 } },
    })).body;
    const before = await snapshotA();
    const placeBefore = (await api.get(`/1/place/info/${extraPlace.place_id}`, { token: a.access_token })).body;

    await server.restart();

    expect(await snapshotA()).toEqual(before);
    expect((await api.get(`/1/place/info/${extraPlace.place_id}`, { token: a.access_token })).body).toEqual(placeBefore);
    const dupLayer = await api.post('/1/layer/create', { token: a.access_token, json: { name: 'again', key: 'a-layer' } });
    expect(dupLayer.status).toBe(409);
    expect(dupLayer.body.layer_id).toBe(ids.layer);
    const dupTrigger = await api.post('/1/trigger/create', { token: a.access_token, json: { key: 'a-trigger', latitude: 9, longitude: 9, radius: 9, text: 'again' } });
    expect(dupTrigger.status).toBe(409);
    expect(dupTrigger.body).toEqual(before.trigger);
  });
});
