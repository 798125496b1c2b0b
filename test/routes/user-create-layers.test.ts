// user/create_anon and user/create with `layer_ids`: the user is subscribed to each (public) layer;
// a layer that cannot be subscribed to (unknown, private, another application's) refuses the
// create, and no user is left behind. Before, the user was created and then the 404/403 answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

describe('creating a user with layer_ids', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let other: TestApp;
  let publicLayer: string;
  let privateLayer: string;
  let othersLayer: string;

  const layer = async (owner: TestApp, name: string, isPublic: number) =>
    (await api.post('/1/layer/create', { token: owner.access_token, json: { name, public: isPublic } })).body.layer_id as string;
  const userCount = async () => (await api.get('/1/user/list', { token: app.access_token })).body.paging.total as number;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    other = await createApp(api, 'other');
    publicLayer = await layer(app, 'public', 1);
    privateLayer = await layer(app, 'private', 0);
    othersLayer = await layer(other, 'theirs', 1);
  });
  afterAll(() => server.close());

  it('subscribes the new user to public layers', async () => {
    const res = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, layer_ids: [publicLayer] } });
    expect(res.status).toBe(200);
    const subs = await api.get('/1/layer/subscriptions', { token: res.body.access_token });
    expect(subs.body.layers.map((l: { layer_id: string }) => l.layer_id)).toContain(publicLayer);
  });

  it.each([
    ['an unknown layer', () => ['nope-0000'], 404],
    ['a private layer', () => [privateLayer], 403],
    ["another application's layer", () => [othersLayer], 404],
    ['a good layer then a bad one', () => [publicLayer, 'nope-0000'], 404],
  ])('%s refuses the create and leaves no user', async (_what, ids, status) => {
    const before = await userCount();
    const anon = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, layer_ids: ids() } });
    expectErrorShape(anon.body, status);
    const named = await api.post('/1/user/create', { json: { client_id: app.client_id, username: `u${before}x${status}${ids().length}`, password: 'pw-123456', layer_ids: ids() } });
    expectErrorShape(named.body, status);
    expect(await userCount()).toBe(before);
  });
});
