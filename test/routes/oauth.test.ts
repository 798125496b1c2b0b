// oauth/token grants and how access tokens travel (seed "Authentication", reference §2.2, §2.3),
// end to end over real HTTP against the real server and the embedded store on disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const TTL_S = 600;
let clock = Date.now();
let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  // The injected clock lets a test move past the token lifetime without waiting.
  server = await startApp({ now: () => clock, env: { ACCESS_TOKEN_TTL: String(TTL_S) } });
  api = server.api;
  app = await createApp(api, 'oauth app');
  other = await createApp(api, 'other app');
  const created = await api.post('/1/user/create', {
    json: { client_id: app.client_id, username: 'walker', email: 'walker@example.com', password: PASSWORD },
  });
  expect(created.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

/** `ttl`: the expires_in expected (a user token's lifetime unless said; 0 for a never-expiring token). */
function expectTokenResponse(res: ApiResponse, ttl = TTL_S) {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.access_token).toMatch(/^[a-z]+-[0-9a-f]{40}$/);
  expect(res.body.expires_in).toBe(ttl);
  expect(res.body.scope).toBeNull();
}

const profile = (opts: Parameters<Api['get']>[1]) => api.get('/1/account/profile', opts);
const listUsers = (token: string) => api.get('/1/user/list', { token });

describe('grant_type=client_credentials', () => {
  it('returns an application token for a JSON body', async () => {
    const res = await api.post('/1/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
    });
    // An application token does not expire unless APP_TOKEN_TTL says so: server apps hold one for good.
    expectTokenResponse(res, 0);
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.user_id).toBeUndefined();
    // An application token does application work.
    expect((await listUsers(res.body.access_token)).status).toBe(200);
  });

  it('accepts the seed form body', async () => {
    const res = await api.post('/1/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
    });
    expectTokenResponse(res, 0);
  });

  it('accepts client credentials as HTTP Basic', async () => {
    const res = await api.post('/1/oauth/token', { basic: [app.client_id, app.client_secret], form: { grant_type: 'client_credentials' } });
    expectTokenResponse(res, 0);
  });

  it('refuses a wrong or missing secret and an unknown client with 401 invalid_client and a challenge', async () => {
    const cases = [
      { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: 'wrong' } },
      { form: { grant_type: 'client_credentials', client_id: app.client_id } },
      { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: other.client_secret } },
      { form: { grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: app.client_secret } },
      { form: { grant_type: 'client_credentials' } },
      { basic: [app.client_id, 'wrong'] as [string, string], form: { grant_type: 'client_credentials' } },
    ];
    for (const c of cases) {
      const res = await api.post('/1/oauth/token', c);
      expect(res.status, JSON.stringify(c)).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('refuses a key or secret sent as a list, never reading it as its item', async () => {
    for (const json of [
      { grant_type: 'client_credentials', client_id: [app.client_id], client_secret: app.client_secret },
      { grant_type: 'client_credentials', client_id: app.client_id, client_secret: [app.client_secret] },
      { grant_type: 'password', client_id: [app.client_id], username: 'nobody', password: 'x' },
    ]) {
      const res = await api.post('/1/oauth/token', { json });
      expect(res.status, JSON.stringify(json)).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_client');
    }
  });
});

describe('grant_type=password', () => {
  it('works without a secret, as mobile clients send none, and returns the identity fields', async () => {
    const res = await api.post('/1/oauth/token', {
      form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD },
    });
    expectTokenResponse(res);
    expect(res.body).toMatchObject({ username: 'walker', display_name: 'walker', is_anonymous: 0, user_id: expect.any(String) });
    expect(res.body.refresh_token).toMatch(/^ref-[0-9a-f]{40}$/);
    const me = await profile({ token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user_id).toBe(res.body.user_id);
  });

  it('works with a secret, with the email address as the login, and with a JSON body', async () => {
    const res = await api.post('/1/oauth/token', {
      json: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'WALKER@example.com', password: PASSWORD },
    });
    expectTokenResponse(res);
    expect(res.body.username).toBe('walker');
  });

  it('a wrong password or unknown login is 400 invalid_grant', async () => {
    for (const [username, password] of [['walker', 'nope'], ['nobody', PASSWORD]]) {
      const res = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username, password } });
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 400, 'invalid_grant');
    }
  });

  it('a burst of password checks beyond what may wait is refused with a 429 and Retry-After, the others answered', async () => {
    // An account has at most four checks in flight (auth/limits.ts); ten logins to one at once.
    const answers = await Promise.all(Array.from({ length: 10 }, () =>
      api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'nobody', password: 'nope' } })));
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10 - 4);
    for (const r of refused) {
      expectErrorShape(r.body, 429, 'too_many_requests');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    for (const r of answers.filter((a) => a.status !== 429)) expectErrorShape(r.body, 400, 'invalid_grant');
    // Once the burst has drained, a login goes through again.
    const ok = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD } });
    expect(ok.status).toBe(200);
  });

  it("another application's key cannot log its users in", async () => {
    const res = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: other.client_id, username: 'walker', password: PASSWORD } });
    expectErrorShape(res.body, 400, 'invalid_grant');
  });

  it('a missing username or password is 400 invalid_request', async () => {
    const res = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker' } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_request');
  });

  it('a wrong secret is refused even though the secret is optional', async () => {
    const res = await api.post('/1/oauth/token', {
      form: { grant_type: 'password', client_id: app.client_id, client_secret: 'wrong', username: 'walker', password: PASSWORD },
    });
    expect(res.status).toBe(401);
    expectErrorShape(res.body, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBeTruthy();
  });
});

describe('grant_type=refresh_token', () => {
  it('rotates: a new access and refresh token, and the old refresh token is spent', async () => {
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD } });
    const first = login.body.refresh_token as string;
    const res = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: first } });
    expectTokenResponse(res);
    expect(res.body.refresh_token).toMatch(/^ref-/);
    expect(res.body.refresh_token).not.toBe(first);
    expect(res.body.user_id).toBe(login.body.user_id);
    expect((await profile({ token: res.body.access_token })).body.user_id).toBe(login.body.user_id);

    const again = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: first } });
    expect(again.status).toBe(400);
    expectErrorShape(again.body, 400, 'invalid_grant');
    // The rotated one still works once.
    const next = await api.post('/1/oauth/token', { json: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: res.body.refresh_token } });
    expectTokenResponse(next);
  });

  it("is bound to its application and is not an access token", async () => {
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD } });
    const refresh = login.body.refresh_token as string;
    const res = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: other.client_id, refresh_token: refresh } });
    expectErrorShape(res.body, 400, 'invalid_grant');
    const asAccess = await profile({ token: refresh });
    expect(asAccess.status).toBe(401);
    expectErrorShape(asAccess.body, 401, 'invalid_token');
    // Still valid for its own application: the failed attempts did not spend it.
    const ok = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: refresh } });
    expectTokenResponse(ok);
  });

  it('an unknown refresh token is invalid_grant; a missing one is invalid_request', async () => {
    const unknown = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: 'ref-0000' } });
    expectErrorShape(unknown.body, 400, 'invalid_grant');
    const missing = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id } });
    expectErrorShape(missing.body, 400, 'invalid_request');
  });
});

describe('grant_type errors', () => {
  it('an unknown grant is 400 unsupported_grant_type; a missing one is 400 invalid_request', async () => {
    const unknown = await api.post('/1/oauth/token', { form: { grant_type: 'urn:example:magic', client_id: app.client_id, code: 'x' } });
    expect(unknown.status).toBe(400);
    expectErrorShape(unknown.body, 400, 'unsupported_grant_type');
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    const missing = await api.post('/1/oauth/token', { form: { client_id: app.client_id } });
    expectErrorShape(missing.body, 400, 'invalid_request');
  });

  it('parameters in the query string are a 400 saying they belong in the POST body, even with the rest in the body', async () => {
    const where = 'oauth/token takes its parameters in the POST body, not the query string';
    for (const [query, body, named] of [
      [{ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }, undefined, 'grant_type, client_secret'],
      [{ grant_type: 'client_credentials' }, { client_id: app.client_id, client_secret: app.client_secret }, 'grant_type'],
      [{ client_secret: app.client_secret }, { grant_type: 'client_credentials', client_id: app.client_id }, 'client_secret'],
      [{ password: PASSWORD }, { grant_type: 'password', client_id: app.client_id, username: 'walker' }, 'password'],
    ] as const) {
      const res = await api.post('/1/oauth/token', { query, ...(body ? { form: body } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expectErrorShape(res.body, 400, 'invalid_request');
      expect(res.body.error_description).toBe(`${where} (${named})`);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // Other query parameters (a cache buster) are no token parameters: the body's request is served.
    expectTokenResponse(await api.post('/1/oauth/token', {
      query: { _: '1' }, form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
    }), 0);
    // client_id is no secret: read from the query as on user/create and every route taking app keys.
    expectTokenResponse(await api.post('/1/oauth/token', {
      query: { client_id: app.client_id }, form: { grant_type: 'client_credentials', client_secret: app.client_secret },
    }), 0);
  });

  it('wrong field types are 400 in the error shape', async () => {
    const res = await api.post('/1/oauth/token', { json: { grant_type: 'password', client_id: app.client_id, username: { a: 1 }, password: 'x' } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400);
    expect(res.body.error_description).toContain('username');
  });
});

describe('token transport', () => {
  let userToken: string;
  beforeAll(async () => {
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD } });
    userToken = login.body.access_token;
  });

  it('accepts the token as Authorization: OAuth, ?access_token= and ?oauth_token=', async () => {
    for (const opts of [{ token: userToken }, { query: { access_token: userToken } }, { query: { oauth_token: userToken } }]) {
      const res = await profile(opts);
      expect(res.status, JSON.stringify(opts)).toBe(200);
      expect(res.body.username).toBe('walker');
    }
  });

  it('accepts oauth_token in a form body', async () => {
    const res = await api.post('/1/account/profile', { form: { oauth_token: userToken, bio: 'from a form' } });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe('from a form');
  });

  it('a token in both the header and a parameter is the 400 invalid_request of the reference', async () => {
    const res = await profile({ token: userToken, query: { access_token: userToken } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error_code: 400, error: 'invalid_request', error_description: 'Auth token found in GET or POST when token present in header',
    });
    const body = await api.post('/1/account/profile', { token: userToken, form: { oauth_token: userToken } });
    expectErrorShape(body.body, 400, 'invalid_request');
  });

  it('a missing or unknown token is 401 invalid_token with WWW-Authenticate', async () => {
    for (const opts of [{}, { token: 'usr-0123456789abcdef0123456789abcdef01234567' }, { query: { access_token: 'nope' } }]) {
      const res = await profile(opts);
      expect(res.status, JSON.stringify(opts)).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_token');
      expect(res.headers.get('www-authenticate')).toMatch(/^OAuth realm=.*error="invalid_token"/);
    }
  });

  it('an application token on a user method is refused, and a user token on an application method', async () => {
    const appToken = await profile({ token: app.access_token });
    expect(appToken.status).toBe(403);
    expectErrorShape(appToken.body, 403, 'access_denied');
    const userOnAppMethod = await listUsers(userToken);
    expect(userOnAppMethod.status).toBeGreaterThanOrEqual(400);
    expect(userOnAppMethod.status).toBeLessThan(500);
    expectErrorShape(userOnAppMethod.body, userOnAppMethod.status);
  });

  it('an expired token is 401 expired_token with the error in WWW-Authenticate', async () => {
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'walker', password: PASSWORD } });
    const token = login.body.access_token as string;
    expect((await profile({ token })).status).toBe(200);
    clock += (TTL_S + 1) * 1000;
    try {
      const res = await profile({ token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error_code: 401, error: 'expired_token', error_description: 'The token provided has expired' });
      expect(res.headers.get('www-authenticate')).toContain('error="expired_token"');
      // The refresh token outlives the access token: the client's auto-refresh path works.
      const refreshed = await api.post('/1/oauth/token', {
        form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: login.body.refresh_token },
      });
      expectTokenResponse(refreshed);
      expect((await profile({ token: refreshed.body.access_token })).status).toBe(200);
      // The operator's application token never expires.
      expect((await listUsers(app.access_token)).status).toBe(200);
    } finally {
      clock = Date.now();
    }
  });
});

describe('application token lifetime (APP_TOKEN_TTL)', () => {
  it('set, client_credentials tokens expire and come with a refresh token that needs the secret', async () => {
    const APP_TTL = 120;
    let now = Date.now();
    const svc = await startApp({ now: () => now, env: { APP_TOKEN_TTL: String(APP_TTL) } });
    try {
      const a = await createApp(svc.api, 'expiring app tokens');
      const granted = await svc.api.post('/1/oauth/token', { basic: [a.client_id, a.client_secret], form: { grant_type: 'client_credentials' } });
      expect(granted.status).toBe(200);
      expect(granted.body.expires_in).toBe(APP_TTL);
      expect(granted.body.refresh_token).toMatch(/^ref-/);
      expect((await svc.api.get('/1/user/list', { token: granted.body.access_token })).status).toBe(200);
      now += (APP_TTL + 1) * 1000;
      const expired = await svc.api.get('/1/user/list', { token: granted.body.access_token });
      expect(expired.status).toBe(401);
      expect(expired.body.error).toBe('expired_token');
      // Without the secret the application's refresh token is refused (and not spent).
      const noSecret = await svc.api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: a.client_id, refresh_token: granted.body.refresh_token } });
      expectErrorShape(noSecret.body, 400, 'invalid_grant');
      const refreshed = await svc.api.post('/1/oauth/token', {
        basic: [a.client_id, a.client_secret], form: { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token },
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.expires_in).toBe(APP_TTL);
      expect(refreshed.body.user_id).toBeUndefined();
      expect((await svc.api.get('/1/user/list', { token: refreshed.body.access_token })).status).toBe(200);
      // The operator's token from app/create never expires.
      expect((await svc.api.get('/1/user/list', { token: a.access_token })).status).toBe(200);
      // A rotated secret withdraws the application's refresh tokens with its access tokens.
      const rotated = await svc.api.post(`/admin/app/rotate_secret/${a.application_id}`, { bearer: ADMIN_TOKEN, json: {} });
      expect(rotated.status).toBe(200);
      const afterRotation = await svc.api.post('/1/oauth/token', {
        basic: [a.client_id, rotated.body.client_secret], form: { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token },
      });
      expectErrorShape(afterRotation.body, 400, 'invalid_grant');
    } finally {
      await svc.close();
    }
  });
});
