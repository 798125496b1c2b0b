// GET /1/stream at its edges, over a real server and real sockets:
// - a plain GET (no Upgrade) is a 426 in the error shape, not an empty 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'streams');
});
afterAll(async () => {
  await server?.close();
});

describe('GET /1/stream without an upgrade', () => {
  it('is a 426 in the error shape that names the missing upgrade', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.get('/1/stream', { token: user.access_token });
    expect(res.status).toBe(426);
    expectErrorShape(res.body, 426, 'upgrade_required');
    expect(res.body.error_description).toMatch(/WebSocket/);
    expect(res.headers.get('upgrade')).toBe('websocket');
    // Credentials are still checked first: no token, no hint about the route.
    expectErrorShape((await api.get('/1/stream')).body, 401);
  });
});
