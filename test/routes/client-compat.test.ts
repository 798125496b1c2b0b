// Request shapes the historical Geoloqi clients (ruby, python, php, node, js) send as they are,
// which the service must read without any change to those clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'compat');
  other = await createApp(api, 'compat-other');
});
afterAll(async () => {
  await server?.close();
});

describe('a path with repeated slashes (node README, python and PHP with a leading slash)', () => {
  it('creates a trigger at /1//trigger/create', async () => {
    const res = await api.post('/1//trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi' },
    });
    expect(res.status).toBe(200);
    const got = await api.get(`/1///trigger/info/${res.body.trigger_id}`, { token: app.access_token });
    expect(got.status).toBe(200);
    expect(got.body.trigger_id).toBe(res.body.trigger_id);
    // Still another application's trigger is not found.
    const foreign = await api.get(`/1//trigger/info/${res.body.trigger_id}`, { token: other.access_token });
    expect(foreign.status).toBe(404);
  });
});
