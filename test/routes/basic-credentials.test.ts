// HTTP Basic credentials that are not valid percent-encoding ("%" alone): the service answers 401
// invalid_client and keeps running. Before, decodeURIComponent's URIError was thrown where the
// auth guard composes its strategies, outside any handler, and ended the process (no credentials
// needed: `Authorization: Basic JTp4`, base64 of "%:x").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const basic = (raw: string) => ({ authorization: `Basic ${Buffer.from(raw).toString('base64')}` });

describe('malformed Basic credentials', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    user = await createAnonUser(api, app);
  });
  afterAll(() => server.close());

  it.each([
    ['GET', '/1/user/list'],
    ['GET', '/1/user/info/ID'],
    ['POST', '/1/user/update/ID'],
    ['POST', '/1/user/delete/ID'],
    ['POST', '/1/user/create_anon'],
    ['POST', '/1/oauth/token'],
  ])('%s %s answers 401 invalid_client, and the service keeps serving', async (method, path) => {
    for (const raw of ['%:x', 'CLIENT:%', '%E0%A4%A', 'CLIENT:%zz']) {
      const headers = basic(raw.replace('CLIENT', app.client_id));
      const res = await api.request(method, path.replace('ID', user.user_id), { headers, ...(method === 'POST' ? { json: { grant_type: 'client_credentials' } } : {}) });
      expectErrorShape(res.body, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    }
    expect((await api.get('/health')).status).toBe(200);
    // The user is untouched.
    expect((await api.get(`/1/user/info/${user.user_id}`, { token: app.access_token })).status).toBe(200);
  });
});
