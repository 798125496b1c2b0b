// Text a request may carry: a username or email (a login) holds no control characters, and no text
// anywhere holds a lone UTF-16 surrogate (a JSON "\ud800" escape), which no UTF-8 store or reply can
// carry: it came back as U+FFFD. Well-formed text outside the BMP (an emoji's surrogate pair) is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'text fields');
  user = await createAnonUser(api, app);
});
afterAll(() => server?.close());

const userCount = async () => (await api.get('/1/user/list', { basic: [app.client_id, app.client_secret] })).body.paging.total;
const profile = async () => (await api.get('/1/account/profile', { token: user.access_token })).body;
/** A JSON body written by hand, so that \u escapes reach the server as sent. */
const rawJson = (path: string, text: string, token?: string) => api.post(path, { token, headers: { 'content-type': 'application/json' }, rawBody: text });

function expectRefused(res: ApiResponse, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expectErrorShape(res.body, 400, 'invalid_input');
  expect(res.body.error_description).toContain(field);
}

describe('a username or email', () => {
  const controls = ['a\\u0000b', 'a\\u0007b', 'a\\u001bb', 'a\\u007fb', 'a\\u0085b', 'a\\u009fb'];

  it('with a control character or a lone surrogate creates no user', async () => {
    const before = await userCount();
    for (const name of [...controls, 'a\\ud800b', 'a\\udfffb']) {
      expectRefused(await rawJson('/1/user/create', `{"client_id":"${app.client_id}","username":"${name}","password":"pw-123456"}`), 'username');
    }
    expectRefused(await api.post('/1/user/create', { form: { client_id: app.client_id, username: 'nul\u0000name', password: 'pw-123456' } }), 'username');
    for (const email of ['a\\u0000b@example.com', 'a@exa\\u0085mple.com', 'a\\ud800@example.com']) {
      expectRefused(await rawJson('/1/user/create', `{"client_id":"${app.client_id}","email":"${email}","password":"pw-123456"}`), 'email');
    }
    expect(await userCount()).toBe(before);
  });

  it('with a control character or a lone surrogate leaves the username and email as they were', async () => {
    const before = await profile();
    for (const name of [...controls, 'a\\ud800b']) {
      // Each names the field as the request did.
      expectRefused(await rawJson('/1/account/profile', `{"desired_username":"${name}"}`, user.access_token), 'desired_username');
      const renamed = await rawJson('/1/account/username', `{"username":"${name}"}`, user.access_token);
      expectRefused(renamed, 'username');
      expect(renamed.body.error_description).toMatch(/(^|")username\b/);
      expectRefused(await rawJson('/1/account/profile', `{"email":"${name}@example.com"}`, user.access_token), 'email');
    }
    expect(await profile()).toEqual(before);
  });

  it('of any script, emoji included, is taken and given back as sent', async () => {
    const res = await rawJson('/1/user/create', `{"client_id":"${app.client_id}","username":"J\\u00f6rg-\\u6771\\u4eac-\\ud83d\\ude00","password":"pw-123456"}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.username).toBe('Jörg-東京-😀');
    const token = await api.post('/1/oauth/token', { json: { grant_type: 'password', client_id: app.client_id, username: 'jörg-東京-😀', password: 'pw-123456' } });
    expect(token.status).toBe(200);
    expect(token.body.user_id).toBe(res.body.user_id);
  });
});

describe('any other text', () => {
  it('with a lone surrogate is refused, naming the field, and nothing is written', async () => {
    const before = await profile();
    expectRefused(await rawJson('/1/account/profile', '{"name":"x\\ud800"}', user.access_token), '"name"');
    expectRefused(await rawJson('/1/account/profile', '{"bio":"ok","extra":{"note":"\\udc00 alone"}}', user.access_token), '"note"');
    expectRefused(await rawJson('/1/account/profile', '{"extra":{"\\ud800":1}}', user.access_token), 'field name');
    expect(await profile()).toEqual(before);
    const point = `{"date":${Math.floor(Date.now() / 1000)},"location":{"position":{"latitude":1,"longitude":2}},"raw":{"note":"\\ud800"}}`;
    expectRefused(await rawJson('/1/location/update', `[${point}]`, user.access_token), '"note"');
    expect((await api.get('/1/location/last', { token: user.access_token })).body.location).toBeUndefined();
  });

  it('with a surrogate pair is kept as sent', async () => {
    const res = await rawJson('/1/account/profile', '{"name":"Smile \\ud83d\\ude00","extra":{"mood":"\\ud83c\\udf89"}}', user.access_token);
    expect(res.status).toBe(200);
    expect(await profile()).toMatchObject({ name: 'Smile 😀', extra: { mood: '🎉' } });
  });
});
