// A named user's email address (reference §2.3: the password grant takes a username or an email):
// another user's username equal to it must not lock its owner out, and a clash over it is
// reported as an email clash, not a username one. Over real HTTP.
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
  app = await createApp(api, 'email app');
});
afterAll(async () => {
  await server?.close();
});

const createUser = async (fields: Record<string, unknown>) => {
  const res = await api.post('/1/user/create', { json: { client_id: app.client_id, ...fields } });
  expect(res.status).toBe(200);
  return res.body as { user_id: string; access_token: string };
};
const login = (username: string, password: string) =>
  api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username, password } });
const userCount = async () => (await api.get('/1/user/list', { basic: [app.client_id, app.client_secret] })).body.paging.total as number;

describe('password grant with an email address', () => {
  it("logs its owner in even when another user's username is that address (any case)", async () => {
    const owner = await createUser({ username: 'ada', email: 'Ada@Example.com', password: 'pw-owner' });
    const shadow = await createUser({ username: 'ada@example.COM', password: 'pw-shadow' });

    const byEmail = await login('ADA@example.com', 'pw-owner');
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.user_id).toBe(owner.user_id);
    // The username still logs its own user in.
    const byUsername = await login('ada@example.com', 'pw-shadow');
    expect(byUsername.status).toBe(200);
    expect(byUsername.body.user_id).toBe(shadow.user_id);
    // A password that is neither one's is still refused.
    const wrong = await login('ada@example.com', 'pw-neither');
    expect(wrong.status).toBe(400);
    expectErrorShape(wrong.body, 400, 'invalid_grant');
  });
});

describe('an email address already in use', () => {
  it('user/create answers 409 naming the email address, and creates nothing', async () => {
    await createUser({ username: 'grace', email: 'grace@example.com', password: 'pw' });
    const before = await userCount();
    const res = await api.post('/1/user/create', { json: { client_id: app.client_id, username: 'hopper', email: 'GRACE@example.com', password: 'pw' } });
    expect(res.status).toBe(409);
    expectErrorShape(res.body, 409, 'username_exists');
    expect(res.body.error_description).toMatch(/email/i);
    expect(res.body.error_description).not.toMatch(/username/i);
    expect(await userCount()).toBe(before);
  });

  it('account/profile with a free desired_username and a taken email names the email and changes nothing', async () => {
    await createUser({ username: 'linus', email: 'linus@example.com', password: 'pw' });
    const me = await createUser({ username: 'margaret', email: 'margaret@example.com', password: 'pw' });
    const res = await api.post('/1/account/profile', { token: me.access_token, json: { desired_username: 'maggie', email: 'Linus@example.com' } });
    expect(res.status).toBe(409);
    expectErrorShape(res.body, 409, 'username_exists');
    expect(res.body.error_description).toMatch(/email/i);
    expect((await api.get('/1/account/profile', { token: me.access_token })).body).toMatchObject({ username: 'margaret' });
  });
});
