// layer/* end to end over real HTTP against the real server and the embedded store
// (reference §4.5, §6.5, §6.8, §6.9, §8 "Default layer").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { haversineM } from '../../src/geo/distance.js';
import type { Change } from '../../src/services/changes.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let token: string;
let changes: Change[] = [];

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'layers');
  token = app.access_token;
  server.app.ctx.changes.on((c) => void changes.push(c));
});
beforeEach(() => {
  changes = [];
});
afterAll(async () => server?.close());

const createLayer = async (fields: Record<string, unknown> = {}) => {
  const res = await api.post('/1/layer/create', { token, json: { name: 'layer', ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const createPlace = async (fields: Record<string, unknown>) =>
  (await api.post('/1/place/create', { token, json: { latitude: 45.5, longitude: -122.6, radius: 100, ...fields } })).body;
const summary = (c: Change) => `${c.kind}:${c.op}:${'doc' in c ? c.doc._id : `${c.layerId}/${c.userId}`}`;

describe('layer/create and update', () => {
  it('creates a layer and answers its object', async () => {
    const res = await api.post('/1/layer/create', {
      token,
      form: { name: 'Cities', description: 'Big ones', icon: 'https://example.com/i.png', url: 'https://example.com', public: '1', trigger_rate_limit: '30', extra: { kind: 'geo' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      layer_id: expect.any(String), type: 'normal', name: 'Cities', description: 'Big ones', icon: 'https://example.com/i.png',
      url: 'https://example.com', public: 1, public_userlist: 0, trigger_rate_limit: 30, extra: { kind: 'geo' },
    });
    expect(changes.map(summary)).toEqual([`layer:saved:${res.body.layer_id}`]);
  });

  it('requires a name', async () => {
    const res = await api.post('/1/layer/create', { token, json: { description: 'nameless' } });
    expectErrorShape(res.body, 400, 'missing_input');
    expect(res.body.error_description).toContain('name');
  });

  it('answers a repeated key with 409, the same body and a Location header', async () => {
    const first = await createLayer({ key: 'my_layer', name: 'Mine' });
    const again = await api.post('/1/layer/create', { token, json: { key: 'my_layer', name: 'Other name' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(first);
    expect(again.headers.get('location')).toBe(`${server.origin}/1/layer/info/${first.layer_id}`);
    const byKey = await api.get('/1/layer/info', { token, query: { key: 'my_layer' } });
    expect(byKey.body.layer_id).toBe(first.layer_id);
    expectErrorShape((await api.get('/1/layer/info', { token, query: { key: 'nope' } })).body, 404, 'not_found');
  });

  it('updates a layer and answers {"result":"ok"}', async () => {
    const layer = await createLayer({ name: 'Old' });
    changes = [];
    const res = await api.post(`/1/layer/update/${layer.layer_id}`, { token, json: { name: 'New', public: 1, extra: { x: 1 } } });
    expect(res.body).toEqual({ result: 'ok' });
    const info = await api.get(`/1/layer/info/${layer.layer_id}`, { token });
    expect(info.body).toMatchObject({ name: 'New', public: 1, extra: { x: 1 } });
    expect(changes.map(summary)).toEqual([`layer:saved:${layer.layer_id}`]);
    const bad = await api.post(`/1/layer/update/${layer.layer_id}`, { token, json: { latitude: 95 } });
    expectErrorShape(bad.body, 400, 'invalid_input');
    expectErrorShape((await api.post('/1/layer/update/nope', { token, json: { name: 'x' } })).body, 404, 'not_found');
  });
});

describe('layer/info', () => {
  it('reports bounds false and no places for an empty layer', async () => {
    const layer = await createLayer();
    const info = await api.get(`/1/layer/info/${layer.layer_id}`, { token });
    expect(info.body).toEqual({ ...layer, bounds: false, num_places: 0 });
  });

  it('reports bounds covering every place circle, the place count, and places on request', async () => {
    const layer = await createLayer();
    const a = await createPlace({ layer_id: layer.layer_id, name: 'a', latitude: 45.5, longitude: -122.7, radius: 200 });
    const b = await createPlace({ layer_id: layer.layer_id, name: 'b', latitude: 45.6, longitude: -122.5, radius: 500, date_to: 1000 });
    const info = await api.get(`/1/layer/info/${layer.layer_id}`, { token });
    expect(info.body.num_places).toBe(2);
    expect(info.body).not.toHaveProperty('places');
    const { sw, ne, center, radius } = info.body.bounds;
    // Each circle's extreme points lie inside the box (to a centimetre of rounding).
    expect(sw.latitude).toBeLessThan(45.5);
    expect(haversineM(45.5, -122.7, sw.latitude, -122.7)).toBeCloseTo(200, 1);
    expect(haversineM(45.6, -122.5, ne.latitude, -122.5)).toBeCloseTo(500, 1);
    expect(ne.longitude).toBeGreaterThan(-122.5);
    expect(center.latitude).toBeCloseTo((sw.latitude + ne.latitude) / 2, 6);
    expect(radius).toBeCloseTo(haversineM(center.latitude, center.longitude, ne.latitude, ne.longitude), 1);

    const all = await api.get(`/1/layer/info/${layer.layer_id}`, { token, query: { include_places: 1, count_valid_places: 1 } });
    expect(all.body.places).toEqual([a, b]);
    expect(all.body.num_valid_places).toBe(1);
    const valid = await api.get(`/1/layer/info/${layer.layer_id}`, { token, query: { include_valid_places: 1 } });
    expect(valid.body.places).toEqual([a]);
  });

  it('shows the default layer with the places created without a layer', async () => {
    const place = await createPlace({ name: 'nowhere in particular' });
    const info = await api.get(`/1/layer/info/${app.default_layer_id}`, { token, query: { include_places: '1' } });
    expect(info.body).toMatchObject({ layer_id: app.default_layer_id, type: 'default' });
    expect(info.body.places.map((p: any) => p.place_id)).toContain(place.place_id);
  });
});

describe('layer/list', () => {
  it('lists the application\'s layers with the default layer first', async () => {
    const layer = await createLayer({ name: 'listed' });
    const res = await api.get('/1/layer/list', { token });
    expect(res.body.layers[0]).toMatchObject({ layer_id: app.default_layer_id, type: 'default' });
    expect(res.body.layers.map((l: any) => l.layer_id)).toContain(layer.layer_id);
    expect(res.body.layers[0]).not.toHaveProperty('subscribed');
  });

  it('shows a user the default, public and subscribed layers, with `subscribed`', async () => {
    const pub = await createLayer({ name: 'public', public: 1 });
    const priv = await createLayer({ name: 'private' });
    const other = await createLayer({ name: 'other private' });
    const user = await createAnonUser(api, app);
    await api.post(`/1/layer/subscribe/${priv.layer_id}`, { token, query: { user_id: user.user_id } });
    const res = await api.get('/1/layer/list', { token: user.access_token });
    const seen = Object.fromEntries(res.body.layers.map((l: any) => [l.layer_id, l.subscribed]));
    expect(res.body.layers[0].layer_id).toBe(app.default_layer_id);
    expect(seen[app.default_layer_id]).toBe(true);
    expect(seen[pub.layer_id]).toBe(false);
    expect(seen[priv.layer_id]).toBe(true);
    expect(seen).not.toHaveProperty(other.layer_id);
  });
});

describe('layer/delete', () => {
  it('deletes the layer with its places, triggers and subscriptions, announcing each', async () => {
    const layer = await createLayer({ name: 'doomed' });
    const p1 = await createPlace({ layer_id: layer.layer_id, name: 'p1' });
    const p2 = await createPlace({ layer_id: layer.layer_id, name: 'p2' });
    const t1 = (await api.post('/1/trigger/create', { token, json: { place_id: p1.place_id, text: 't1' } })).body;
    const t2 = (await api.post('/1/trigger/create', { token, json: { layer_id: layer.layer_id, text: 't2' } })).body;
    const user = await createAnonUser(api, app);
    await api.post(`/1/layer/subscribe/${layer.layer_id}`, { token, json: { user_id: user.user_id } });
    changes = [];

    const res = await api.post(`/1/layer/delete/${layer.layer_id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok' });
    for (const path of [`/1/layer/info/${layer.layer_id}`, `/1/place/info/${p1.place_id}`, `/1/place/info/${p2.place_id}`, `/1/trigger/info/${t1.trigger_id}`, `/1/trigger/info/${t2.trigger_id}`]) {
      expectErrorShape((await api.get(path, { token })).body, 404, 'not_found');
    }
    const subs = await api.get('/1/layer/subscriptions', { token: user.access_token });
    expect(subs.body.layers.map((l: any) => l.layer_id)).toEqual([app.default_layer_id]);
    expect(changes.map(summary).sort()).toEqual([
      `layer:removed:${layer.layer_id}`, `place:removed:${p1.place_id}`, `place:removed:${p2.place_id}`,
      `subscription:removed:${layer.layer_id}/${user.user_id}`, `trigger:removed:${t1.trigger_id}`, `trigger:removed:${t2.trigger_id}`,
    ].sort());
    // The layer goes last, once nothing on it is left.
    expect(summary(changes[changes.length - 1])).toBe(`layer:removed:${layer.layer_id}`);
  });

  it('refuses to delete the default layer', async () => {
    const res = await api.post(`/1/layer/delete/${app.default_layer_id}`, { token });
    expectErrorShape(res.body, 400, 'cannot_delete');
    expect((await api.get(`/1/layer/info/${app.default_layer_id}`, { token })).status).toBe(200);
  });
});

describe('layer/subscribe, unsubscribe, subscriptions', () => {
  it('lets the application subscribe and unsubscribe its users, user_id in the query or the body', async () => {
    const layer = await createLayer({ name: 'subs' });
    const user = await createAnonUser(api, app);
    changes = [];
    const sub = await api.post(`/1/layer/subscribe/${layer.layer_id}`, { token, query: { user_id: user.user_id } });
    expect(sub.status).toBe(200);
    expect(sub.body).toEqual({ subscribed: '1', date_subscribed: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    const again = await api.post(`/1/layer/subscribe/${layer.layer_id}`, { token, form: { user_id: user.user_id } });
    expect(again.body).toEqual(sub.body);

    const asApp = await api.get('/1/layer/subscriptions', { token, query: { user_id: user.user_id } });
    expect(asApp.body.layers.map((l: any) => l.layer_id)).toEqual([app.default_layer_id, layer.layer_id]);
    expect(asApp.body.layers[1]).toEqual(layer);

    const unsub = await api.post(`/1/layer/unsubscribe/${layer.layer_id}`, { token, json: { user_id: user.user_id } });
    expect(unsub.body).toEqual({ subscribed: '0' });
    const after = await api.get('/1/layer/subscriptions', { token: user.access_token });
    expect(after.body.layers.map((l: any) => l.layer_id)).toEqual([app.default_layer_id]);
    expect(changes.map(summary)).toEqual([`subscription:saved:${layer.layer_id}/${user.user_id}`, `subscription:removed:${layer.layer_id}/${user.user_id}`]);
  });

  it('lets a user subscribe itself to public layers only', async () => {
    const pub = await createLayer({ name: 'open', public: 1 });
    const priv = await createLayer({ name: 'closed' });
    const user = await createAnonUser(api, app);
    const other = await createAnonUser(api, app);
    const as = { token: user.access_token };
    expect((await api.post(`/1/layer/subscribe/${pub.layer_id}`, as)).body.subscribed).toBe('1');
    expectErrorShape((await api.post(`/1/layer/subscribe/${priv.layer_id}`, as)).body, 403, 'access_denied');
    expectErrorShape((await api.post(`/1/layer/subscribe/${pub.layer_id}`, { ...as, json: { user_id: other.user_id } })).body, 404, 'not_found');
    const mine = await api.get('/1/layer/subscriptions', as);
    expect(mine.body.layers.map((l: any) => l.layer_id)).toEqual([app.default_layer_id, pub.layer_id]);
    expect((await api.post(`/1/layer/unsubscribe/${pub.layer_id}`, as)).body).toEqual({ subscribed: '0' });
  });

  it('refuses what does not make sense', async () => {
    const layer = await createLayer({ name: 'errors' });
    const user = await createAnonUser(api, app);
    expectErrorShape((await api.post(`/1/layer/subscribe/${layer.layer_id}`, { token })).body, 400, 'missing_input');
    expectErrorShape((await api.get('/1/layer/subscriptions', { token })).body, 400, 'missing_input');
    expectErrorShape((await api.post(`/1/layer/subscribe/${layer.layer_id}`, { token, query: { user_id: 'nobody' } })).body, 404, 'not_found');
    expectErrorShape((await api.post('/1/layer/subscribe/nolayer', { token, query: { user_id: user.user_id } })).body, 404, 'not_found');
    const fromDefault = await api.post(`/1/layer/unsubscribe/${app.default_layer_id}`, { token, query: { user_id: user.user_id } });
    expectErrorShape(fromDefault.body, 400, 'cannot_unsubscribe');
    expect(fromDefault.body.error_description).toContain('default layer');
    expect((await api.post(`/1/layer/subscribe/${app.default_layer_id}`, { token, query: { user_id: user.user_id } })).body.subscribed).toBe('1');
  });
});

describe('layer/users', () => {
  it('answers the users and places maps, every place of the layer listed', async () => {
    const layer = await createLayer({ name: 'who is here' });
    const a = await createPlace({ layer_id: layer.layer_id, name: 'a', extra: { floor: 1 } });
    const b = await createPlace({ layer_id: layer.layer_id, name: '' });
    const res = await api.get(`/1/layer/users/${layer.layer_id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      users: {},
      places: {
        [a.place_id]: {
          place: { place_id: a.place_id, name: 'a', latitude: 45.5, longitude: -122.6, radius: 100, display_name: 'a', active: 1, extra: { floor: 1 }, description: '', visits: 0 },
          users_inside: [],
        },
        [b.place_id]: { place: expect.objectContaining({ place_id: b.place_id, name: '' }), users_inside: [] },
      },
    });
    expectErrorShape((await api.get('/1/layer/users/nope', { token })).body, 404, 'not_found');
  });
});
