// Rotating an application's API secret (admin app/rotate_secret) after a leak: whoever held the
// old secret may have minted application tokens with it, so every application token of that app
// stops working at once (the auth token cache included), a new one comes back in the rotate
// response, and user tokens and other applications are untouched. Over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantAppToken } from '../../src/services/tokens.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { storedRows } from '../helpers/stored.js';

let server: TestService;
let api: Api;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
});
afterAll(async () => {
  await server?.close();
});

const mintAppToken = async (clientId: string, clientSecret: string) => {
  const res = await api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
};
const listUsers = (token: string) => api.get('/1/user/list', { token });

describe('admin app/rotate_secret and access tokens', () => {
  it('revokes every application token of the app at once and returns a new one; user tokens and other apps keep working', async () => {
    const a = await createApp(api, 'leaked');
    const b = await createApp(api, 'bystander');
    const minted = await mintAppToken(a.client_id, a.client_secret);
    const user = await createAnonUser(api, a);
    const bMinted = await mintAppToken(b.client_id, b.client_secret);
    // Used just before the rotation: the token cache holds them.
    expect((await listUsers(minted)).status).toBe(200);
    expect((await listUsers(a.access_token)).status).toBe(200);

    const rotated = await api.post(`/admin/app/rotate_secret/${a.application_id}`, { bearer: ADMIN_TOKEN, json: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.access_token).toMatch(/^app-[0-9a-f]{40}$/);

    for (const old of [minted, a.access_token]) {
      const res = await listUsers(old);
      expect(res.status).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_token');
    }
    expect((await listUsers(rotated.body.access_token)).status).toBe(200);
    expect((await listUsers(await mintAppToken(a.client_id, rotated.body.client_secret))).status).toBe(200);
    expect((await api.get('/1/account/profile', { token: user.access_token })).status).toBe(200);
    expect((await listUsers(bMinted)).status).toBe(200);
    expect((await listUsers(b.access_token)).status).toBe(200);
  });

  it('a client_credentials grant checked before the rotation and stored after it is withdrawn', async () => {
    // The interleaving, step by step: HTTP timing cannot force it. The application as the grant's
    // secret check read it, then the rotation, then the grant's insert.
    const a = await createApp(api, 'raced');
    const ctx = server.app.ctx;
    const checked = await ctx.store.applications.get(a.application_id);
    const rotated = await api.post(`/admin/app/rotate_secret/${a.application_id}`, { bearer: ADMIN_TOKEN, json: {} });
    expect(rotated.status).toBe(200);
    expect(await grantAppToken(ctx, checked!)).toBeNull();
    // Only the rotation's own application token is left.
    expect(storedRows(server, 'tokens', { app_id: a.application_id, kind: 'app' })).toBe(1);
    expect((await listUsers(rotated.body.access_token)).status).toBe(200);
  });
});
