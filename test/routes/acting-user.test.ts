// Every route that takes user_id follows one rule for a user token: it acts on its own user, and any
// other user_id (a user of the same application, of another, or nobody) is 404 "User not found":
// other users are invisible to it, so the answer does not tell whether the id exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let me: TestUser;
let neighbour: TestUser;
let stranger: TestUser;
let layerId: string;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'acting user');
  me = await createAnonUser(api, app);
  neighbour = await createAnonUser(api, app);
  stranger = await createAnonUser(api, await createApp(api, 'elsewhere'));
  const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'open', public: 1 } });
  layerId = layer.body.layer_id;
  // A last location to read back: location/last with none is a 404 of its own.
  const point = { date: Math.floor(Date.now() / 1000), location: { position: { latitude: 1, longitude: 2 } } };
  expect((await api.post('/1/location/update', { token: me.access_token, json: [point] })).status).toBe(200);
  expect((await api.post(`/1/layer/subscribe/${layerId}`, { token: app.access_token, json: { user_id: neighbour.user_id } })).body.subscribed).toBe('1');
});
afterAll(() => server?.close());

/** Each route taking user_id, called with a user token and `userId`. */
const calls: Array<[string, (userId: string) => Promise<ApiResponse>]> = [
  ['location/last', (id) => api.get('/1/location/last', { token: me.access_token, query: { user_id: id } })],
  ['location/history', (id) => api.get('/1/location/history', { token: me.access_token, query: { user_id: id } })],
  ['message/send', (id) => api.post('/1/message/send', { token: me.access_token, json: { user_id: id, text: 'hello' } })],
  ['message/list', (id) => api.get('/1/message/list', { token: me.access_token, query: { user_id: id } })],
  ['layer/subscribe (body)', (id) => api.post(`/1/layer/subscribe/${layerId}`, { token: me.access_token, json: { user_id: id } })],
  ['layer/subscribe (query)', (id) => api.post(`/1/layer/subscribe/${layerId}`, { token: me.access_token, query: { user_id: id } })],
  ['layer/unsubscribe', (id) => api.post(`/1/layer/unsubscribe/${layerId}`, { token: me.access_token, json: { user_id: id } })],
  ['layer/subscriptions', (id) => api.get('/1/layer/subscriptions', { token: me.access_token, query: { user_id: id } })],
  ['trigger/history', (id) => api.get('/1/trigger/history', { token: me.access_token, query: { user_id: id } })],
];

describe('a user token naming a user_id', () => {
  it.each(calls)('%s: another user, of this application or another, or nobody, is 404 User not found', async (_name, call) => {
    for (const id of [neighbour.user_id, stranger.user_id, 'nobody']) {
      const res = await call(id);
      expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(404);
      expectErrorShape(res.body, 404, 'not_found');
      expect(res.body.error_description).toBe('User not found');
    }
  });

  it.each(calls)('%s: its own user_id is its own user', async (_name, call) => {
    const res = await call(me.user_id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("changes nothing of the other user's", async () => {
    const subscriptions = await api.get('/1/layer/subscriptions', { token: neighbour.access_token });
    expect(subscriptions.body.layers.map((l: { layer_id: string }) => l.layer_id)).toEqual([app.default_layer_id, layerId]);
    const messages = await api.get('/1/message/list', { token: neighbour.access_token });
    expect(messages.status).toBe(200);
    expect(JSON.stringify(messages.body)).not.toContain('hello');
  });
});
