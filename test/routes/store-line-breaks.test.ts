// Text holding U+2028, U+2029 or U+0085 survives a restart of the embedded store. JSON leaves those
// characters raw inside strings, and NeDB's loader also breaks lines at them: a layer saved with
// one vanished at the next start, and past a tenth of a file such lines stopped the service from
// starting at all ("…% of the data file is corrupt"), which any user token could cause through a
// point's `raw`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const TEXT = 'a\u2028b\u2029c\u0085d';

let server: TestService;
let api: Api;
beforeAll(async () => {
  server = await startApp();
  api = server.api;
});
afterAll(() => server?.close());

it('keeps a layer and a point whose text holds line and paragraph separators across a restart', async () => {
  const app = await createApp(api);
  const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'x', description: TEXT, extra: { [`k${TEXT}`]: TEXT } } });
  expect(layer.status).toBe(200);
  const user = await createAnonUser(api, app);
  const point = {
    date: new Date().toISOString(),
    location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } },
    raw: { note: TEXT },
  };
  expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);

  await server.restart();

  const info = await api.get(`/1/layer/info/${layer.body.layer_id}`, { token: app.access_token });
  expect(info.status).toBe(200);
  expect(info.body.description).toBe(TEXT);
  expect(info.body.extra).toEqual({ [`k${TEXT}`]: TEXT });
  const last = await api.get('/1/location/last', { token: user.access_token });
  expect(last.status).toBe(200);
  expect(last.body.raw).toEqual({ note: TEXT });
});
