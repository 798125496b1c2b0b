// account/permanent_token (reference §2.3, §4.9): never-expiring user tokens for pre-approved applications.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const HOUR = 3_600_000;

describe('account/permanent_token', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let user: TestUser;
  let skew = 0;

  beforeAll(async () => {
    server = await startApp({ now: () => Date.now() + skew });
    api = server.api;
    app = await createApp(api, 'permanent');
    user = await createAnonUser(api, app);
  });
  afterAll(() => server?.close());

  const approve = (on: boolean) => api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { permanent_tokens: on } });

  it('is refused to an application the operator has not pre-approved', async () => {
    const res = await api.post('/1/account/permanent_token', { token: user.access_token, json: {} });
    expect(res.body).toEqual({ error_code: 403, error: 'access_denied', error_description: 'This application is not approved for permanent tokens' });
    const info = await api.get(`/1/application/info/${app.application_id}`, { token: app.access_token });
    expect(info.body.permissions.permanent_token).toBe(0);
  });

  it('once approved, answers a user token that outlives the hour of ordinary ones', async () => {
    const approved = await approve(true);
    expect(approved.body).toMatchObject({ application_id: app.application_id, permanent_tokens: 1 });
    const res = await api.post('/1/account/permanent_token', { token: user.access_token, json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), expires_in: 0, scope: null,
      user_id: user.user_id, username: user.username, display_name: expect.any(String), is_anonymous: 1,
    });
    expect((await api.get(`/1/application/info/${app.application_id}`, { token: app.access_token })).body.permissions.permanent_token).toBe(1);
    skew += 2 * HOUR;
    expectErrorShape((await api.get('/1/account/profile', { token: user.access_token })).body, 401);
    const profile = await api.get('/1/account/profile', { token: res.body.access_token });
    expect(profile.body.user_id).toBe(user.user_id);
  });

  it('answers a GET as a POST: geoloqi-python sends its post(\'account/permanent_token\'), which has no data, as a GET', async () => {
    await approve(true);
    const phone = await createAnonUser(api, app);
    const res = await api.get('/1/account/permanent_token', { token: phone.access_token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ expires_in: 0, user_id: phone.user_id });
    expect((await api.get('/1/account/profile', { token: res.body.access_token })).body.user_id).toBe(phone.user_id);
  });

  it('takes a user token only, and a withdrawn approval holds at once', async () => {
    const fresh = await createAnonUser(api, app);
    expectErrorShape((await api.post('/1/account/permanent_token', { token: app.access_token, json: {} })).body, 403, 'access_denied');
    await approve(false);
    expectErrorShape((await api.post('/1/account/permanent_token', { token: fresh.access_token, json: {} })).body, 403, 'access_denied');
    expectErrorShape((await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { permanent_tokens: 'yes' } })).body, 400);
  });
});
