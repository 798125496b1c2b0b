// A POST without any body (no Content-Type, no bytes): what curl -X POST and many SDK helpers send
// when every field is optional or travels elsewhere (HTTP Basic, the query string).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { Receiver } from '../delivery/receiver.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  server = await startApp({ delivery: { pollMs: 25, round: { retries: 0 }, timeoutMs: 2_000 } });
  api = server.api;
  app = await createApp(api, 'bodiless');
  user = await createAnonUser(api, app);
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await server?.close();
});

describe('a POST with no body', () => {
  it('creates an anonymous user from the API key given as HTTP Basic', async () => {
    const res = await api.post('/1/user/create_anon', { basic: [app.client_id, ''] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_anonymous: 1, access_token: expect.stringMatching(/^usr-/) });
  });

  it('runs a callback trigger, which needs no user', async () => {
    const created = await api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 1, longitude: 1, radius: 100, type: 'callback', url: receiver.url },
    });
    const res = await api.post(`/1/trigger/run/${created.body.trigger_id}`, { token: app.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'sent', type: 'callback' });
  });

  it('rotates an application secret (the webhook flag is optional)', async () => {
    const other = await createApp(api, 'rotated');
    const res = await api.post(`/admin/app/rotate_secret/${other.application_id}`, { bearer: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    expect(res.body.client_secret).not.toBe(other.client_secret);
  });

  it('answers a profile POST with the profile, unchanged', async () => {
    const res = await api.post('/1/account/profile', { token: user.access_token });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.user_id);
  });

  it('names the missing field where one is required', async () => {
    for (const [path, field, error, auth] of [
      ['/1/message/send', 'text', 'missing_input', { token: user.access_token }],
      ['/1/account/check_username', 'desired_username', 'missing_input', { token: user.access_token }],
      // OAuth's own error for a missing parameter (RFC 6749 §5.2).
      ['/1/oauth/token', 'grant_type', 'invalid_request', { basic: [app.client_id, app.client_secret] as [string, string] }],
    ] as const) {
      const res = await api.post(path, auth);
      expectErrorShape(res.body, 400, error);
      expect(res.body.error_description).toContain(field);
    }
  });

  it('leaves location/update as it was: a body that is not an array of points', async () => {
    const res = await api.post('/1/location/update', { token: user.access_token });
    expectErrorShape(res.body, 400, 'invalid_input');
  });
});
