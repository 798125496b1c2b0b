// Requests the router refuses before any route runs still answer in the one error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'framework errors');
});
afterAll(async () => server?.close());

describe('router refusals', () => {
  it('a path with bad percent-encoding is a 400 invalid_request', async () => {
    for (const path of ['/1/layer/info/%E0%A4%A', '/1/place/info/%C0%AF']) {
      const res = await api.get(path, { token: app.access_token });
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 400, 'invalid_request');
    }
  });

  it('an id longer than the router keeps is a 400 invalid_input, like any id over 64 characters', async () => {
    for (const id of ['x'.repeat(65), 'x'.repeat(101), 'x'.repeat(5000)]) {
      const res = await api.get(`/1/trigger/info/${id}`, { token: app.access_token });
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 400, 'invalid_input');
    }
  });
});
