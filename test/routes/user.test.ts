// /1/user/*: creating (anonymous, keyed, named), listing, reading, updating and deleting an
// application's users with its API key and secret (seed "Authentication", reference §2.6, §4.6),
// over real HTTP against the real server and the embedded store; a restart keeps it all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, createAnonUser, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { monotonicClock, startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  // Users created in one millisecond would list in id order, not creation order.
  server = await startApp({ now: monotonicClock() });
  api = server.api;
  app = await createApp(api, 'users app');
  other = await createApp(api, 'other app');
});
afterAll(async () => {
  await server?.close();
});

const basic = (a: TestApp): [string, string] => [a.client_id, a.client_secret];
const profile = (token: string) => api.get('/1/account/profile', { token });

describe('user/create_anon', () => {
  it('creates an anonymous user from the client id alone, with extra from a nested form field', async () => {
    const res = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, extra: { color: 'blue', size: '3' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      display_name: 'Anonymous', is_anonymous: 1, user_id: expect.any(String), access_token: expect.any(String), extra: { color: 'blue', size: '3' },
    });
    // Raw form text, exactly as the historical clients sent it.
    const raw = await api.post('/1/user/create_anon', { rawBody: `client_id=${app.client_id}&extra%5Bcolor%5D=blue`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(raw.body.extra).toEqual({ color: 'blue' });
    expect(res.body.username).toMatch(/^_[A-Za-z0-9_-]{17}$/);
    expect(res.body.key).toBeUndefined();
    const me = await profile(res.body.access_token);
    expect(me.body).toMatchObject({ user_id: res.body.user_id, is_anonymous: 1, extra: { color: 'blue', size: '3' } });
  });

  it('takes extra as a JSON object, values kept with their types', async () => {
    const res = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, extra: { n: 2, nested: { ok: true } } } });
    expect(res.status).toBe(200);
    expect(res.body.extra).toEqual({ n: 2, nested: { ok: true } });
  });

  it('accepts the API key as HTTP Basic with an empty password', async () => {
    const res = await api.post('/1/user/create_anon', { basic: [app.client_id, ''], json: {} });
    expect(res.status).toBe(200);
    expect(res.body.is_anonymous).toBe(1);
  });

  it('refuses an unknown client id with 401 invalid_client', async () => {
    const res = await api.post('/1/user/create_anon', { form: { client_id: 'no-such-app' } });
    expect(res.status).toBe(401);
    expectErrorShape(res.body, 401, 'invalid_client');
    const none = await api.post('/1/user/create_anon', { json: {} });
    expectErrorShape(none.body, 401, 'invalid_client');
  });

  describe('the seed key flow', () => {
    it('key + secret creates; repeating it returns the same user with a working token', async () => {
      const first = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, client_secret: app.client_secret, key: '1234567890' } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ display_name: 'Anonymous', is_anonymous: 1, key: '1234567890', extra: {} });
      for (const field of ['display_name', 'username', 'user_id', 'is_anonymous', 'key', 'access_token', 'extra']) {
        expect(first.body, field).toHaveProperty(field);
      }
      const again = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, client_secret: app.client_secret, key: '1234567890' } });
      expect(again.status).toBe(200);
      expect(again.body.user_id).toBe(first.body.user_id);
      expect(again.body.username).toBe(first.body.username);
      expect((await profile(again.body.access_token)).body.user_id).toBe(first.body.user_id);
      expect((await profile(first.body.access_token)).body.user_id).toBe(first.body.user_id);
    });

    it('repeating a key without the secret is the seed 409 duplicate_key, with exactly its three fields', async () => {
      await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'dup-key' } });
      const res = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, key: 'dup-key' } });
      expect(res.status).toBe(409);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'error_code', 'error_description']);
      expect(res.body.error_code).toBe(409);
      expect(res.body.error).toBe('duplicate_key');
      expect(res.body.error_description).toMatch(/user already exists with this key/i);
      expect(res.body.access_token).toBeUndefined();
    });

    it('a new key without the secret creates nothing', async () => {
      const before = (await api.get('/1/user/list', { basic: basic(app) })).body.paging.total;
      const res = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, key: 'never-created' } });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectErrorShape(res.body, res.status);
      expect((await api.get('/1/user/list', { basic: basic(app) })).body.paging.total).toBe(before);
      // And the key is still free for a proper call.
      const ok = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, client_secret: app.client_secret, key: 'never-created' } });
      expect(ok.status).toBe(200);
    });

    it('a wrong secret with a key is refused', async () => {
      const res = await api.post('/1/user/create_anon', { form: { client_id: app.client_id, client_secret: 'wrong', key: 'k-wrong' } });
      expect(res.status).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_client');
    });

    it('keys are per application', async () => {
      const a = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'shared-key' } });
      const b = await api.post('/1/user/create_anon', { json: { client_id: other.client_id, client_secret: other.client_secret, key: 'shared-key' } });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body.user_id).not.toBe(a.body.user_id);
    });

    it('concurrent creates with one key make one user', async () => {
      const calls = Array.from({ length: 10 }, () =>
        api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'race-key' } }));
      const results = await Promise.all(calls);
      for (const r of results) expect(r.status).toBe(200);
      expect(new Set(results.map((r) => r.body.user_id)).size).toBe(1);
      const listed = await api.get('/1/user/list', { basic: basic(app), query: { limit: 1000 } });
      expect(listed.body.users.filter((u: { key?: string }) => u.key === 'race-key')).toHaveLength(1);
    });
  });
});

describe('user/create', () => {
  it('creates a named user from username and password; the password grant then works', async () => {
    const res = await api.post('/1/user/create', { form: { client_id: app.client_id, username: 'Named1', password: 'pw-named-1', extra: { ref: 'x' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_id: expect.any(String), username: 'Named1', is_anonymous: 0, has_custom_username: 1, extra: { ref: 'x' },
      access_token: expect.any(String), refresh_token: expect.any(String), scope: null,
    });
    expect((await profile(res.body.access_token)).body.username).toBe('Named1');
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'named1', password: 'pw-named-1' } });
    expect(login.status).toBe(200);
    expect(login.body.user_id).toBe(res.body.user_id);
  });

  it('creates a user from an email address', async () => {
    const res = await api.post('/1/user/create', { json: { client_id: app.client_id, email: 'someone@example.com', password: 'pw' } });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('someone@example.com');
  });

  it('a taken username (any case) is 409 username_exists and creates nothing', async () => {
    const before = (await api.get('/1/user/list', { basic: basic(app) })).body.paging.total;
    const res = await api.post('/1/user/create', { json: { client_id: app.client_id, username: 'NAMED1', password: 'other' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error_code: 409, error: 'username_exists', error_description: 'The requested username is not available' });
    expect((await api.get('/1/user/list', { basic: basic(app) })).body.paging.total).toBe(before);
    // The same name is free in another application.
    const elsewhere = await api.post('/1/user/create', { json: { client_id: other.client_id, username: 'Named1', password: 'x' } });
    expect(elsewhere.status).toBe(200);
  });

  it('concurrent creates of one username make one user', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () =>
      api.post('/1/user/create', { json: { client_id: app.client_id, username: 'racer' } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectErrorShape(r.body, 409, 'username_exists');
  });

  it('needs a username or an email', async () => {
    const res = await api.post('/1/user/create', { json: { client_id: app.client_id, password: 'x' } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400);
    expect(res.body.error_description).toMatch(/username or email/);
  });
});

describe('user/list', () => {
  let listApp: TestApp;
  const N = 30;
  beforeAll(async () => {
    listApp = await createApp(api, 'list app');
    for (let i = 0; i < N; i++) await createAnonUser(api, listApp, { extra: { i } });
  });

  it('pages with offset and limit (default 25); next_offset only while more remain', async () => {
    const first = await api.get('/1/user/list', { basic: basic(listApp) });
    expect(first.status).toBe(200);
    expect(first.body.users).toHaveLength(25);
    expect(first.body.paging).toEqual({ limit: 25, total: N, next_offset: 25 });
    const second = await api.get('/1/user/list', { basic: basic(listApp), query: { offset: 25 } });
    expect(second.body.users).toHaveLength(5);
    expect(second.body.paging).toEqual({ limit: 25, total: N });
    const ids = [...first.body.users, ...second.body.users].map((u: { user_id: string }) => u.user_id);
    expect(new Set(ids).size).toBe(N);
    // Oldest first, so pages are stable while users are added.
    expect([...first.body.users, ...second.body.users].map((u: { extra: { i: number } }) => u.extra.i)).toEqual([...Array(N).keys()]);
    const small = await api.get('/1/user/list', { basic: basic(listApp), query: { offset: '10', limit: '7' } });
    expect(small.body.paging).toEqual({ limit: 7, total: N, next_offset: 17 });
    expect(small.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(ids.slice(10, 17));
    const past = await api.get('/1/user/list', { basic: basic(listApp), query: { offset: 100 } });
    expect(past.body).toEqual({ users: [], paging: { limit: 25, total: N } });
  });

  it('lists only the application’s own users', async () => {
    const res = await api.get('/1/user/list', { basic: basic(other), query: { limit: 1000 } });
    const listIds = new Set((await api.get('/1/user/list', { basic: basic(listApp), query: { limit: 1000 } })).body.users.map((u: { user_id: string }) => u.user_id));
    expect(res.body.users.some((u: { user_id: string }) => listIds.has(u.user_id))).toBe(false);
  });

  it('carries every seed user field with the right type', async () => {
    const res = await api.get('/1/user/list', { basic: basic(listApp), query: { limit: 1 } });
    const u = res.body.users[0];
    for (const f of ['user_id', 'username', 'name', 'display_name', 'bio', 'website', 'timezone', 'profile_image', 'email', 'phone']) {
      expect(typeof u[f], f).toBe('string');
    }
    expect(u.timezone).toBe('UTC');
    expect(u.timezone_offset).toMatch(/^[+-]\d{4}$/);
    for (const f of ['is_anonymous', 'has_custom_username', 'has_push_token', 'public_location', 'public_geonotes', 'public_geonote_email']) {
      expect([0, 1], f).toContain(u[f]);
    }
    expect(u.extra).toEqual({ i: 0 });
    for (const list of ['apns_dev', 'apns_live', 'c2dm']) expect(Array.isArray(u.devices[list]), list).toBe(true);
    // The two social-network identifiers of the seed.
    expect(typeof u.twitter).toBe('string');
    expect(typeof u.facebook).toBe('string');
    expect(u.password_hash).toBeUndefined();
    expect(u.uniq_username).toBeUndefined();
  });

  it('accepts a JSON content type on the GET, as the seed allows', async () => {
    const res = await api.get('/1/user/list', { basic: basic(listApp), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.paging.total).toBe(N);
  });

  it('needs the secret: a wrong or missing one is 401 invalid_client with a Basic challenge', async () => {
    for (const opts of [{ basic: [listApp.client_id, 'wrong'] as [string, string] }, { basic: [listApp.client_id, ''] as [string, string] }, {}]) {
      const res = await api.get('/1/user/list', opts);
      expect(res.status, JSON.stringify(opts)).toBe(401);
      expectErrorShape(res.body, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    }
  });

  it('refuses bad paging values with 400 naming the field', async () => {
    for (const query of [{ limit: 'abc' }, { offset: -1 }, { limit: 5000 }]) {
      const res = await api.get('/1/user/list', { basic: basic(listApp), query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expectErrorShape(res.body, 400);
      expect(res.body.error_description).toContain(Object.keys(query)[0]);
    }
  });
});

describe('user/info, user/update, user/delete', () => {
  it('reads a user with Basic or the application token; an unknown id is 404', async () => {
    const u = await createAnonUser(api, app, { extra: { color: 'red' } });
    const viaBasic = await api.get(`/1/user/info/${u.user_id}`, { basic: basic(app) });
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body).toMatchObject({ user_id: u.user_id, username: u.username, is_anonymous: 1, extra: { color: 'red' } });
    const viaToken = await api.get(`/1/user/info/${u.user_id}`, { token: app.access_token });
    expect(viaToken.body).toEqual(viaBasic.body);
    const missing = await api.get('/1/user/info/doesNotExist', { basic: basic(app) });
    expect(missing.status).toBe(404);
    expectErrorShape(missing.body, 404, 'not_found');
  });

  it('updates name, phone, bio, website and extra (replaced, not merged)', async () => {
    const u = await createAnonUser(api, app, { extra: { a: 1 } });
    const res = await api.post(`/1/user/update/${u.user_id}`, {
      basic: basic(app), form: { name: 'Ann', phone: '+15035550100', bio: 'walks', website: 'https://example.com', extra: { b: '2' } },
    });
    expect(res.status).toBe(200);
    const info = await api.get(`/1/user/info/${u.user_id}`, { basic: basic(app) });
    expect(info.body).toMatchObject({ name: 'Ann', phone: '+15035550100', bio: 'walks', website: 'https://example.com', extra: { b: '2' } });
    const bad = await api.post(`/1/user/update/${u.user_id}`, { basic: basic(app), json: { timezone: 'Mars/Olympus' } });
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 400);
    expect((await api.get(`/1/user/info/${u.user_id}`, { basic: basic(app) })).body.timezone).toBe('UTC');
  });

  it('stores and shows a time zone name sent in the wrong case in its canonical spelling, however the profile is written', async () => {
    const info = async (userId: string) => (await api.get(`/1/user/info/${userId}`, { basic: basic(app) })).body;
    const anon = await createAnonUser(api, app, { timezone: 'europe/paris' });
    expect(await info(anon.user_id)).toMatchObject({ timezone: 'Europe/Paris', timezone_offset: expect.stringMatching(/^\+0[12]00$/) });
    const named = await api.post('/1/user/create', { json: { client_id: app.client_id, username: 'tz-case', password: 'pw-123456', timezone: 'AMERICA/LOS_ANGELES' } });
    expect(named.status).toBe(200);
    expect((await info(named.body.user_id)).timezone).toBe('America/Los_Angeles');
    expect((await api.post(`/1/user/update/${anon.user_id}`, { basic: basic(app), json: { timezone: 'utc' } })).body.timezone).toBe('UTC');
    expect((await api.post('/1/account/profile', { token: anon.access_token, json: { timezone: 'etc/gmt+5' } })).body.timezone).toBe('Etc/GMT+5');
    expect((await profile(anon.access_token)).body).toMatchObject({ timezone: 'Etc/GMT+5', timezone_offset: '-0500' });
    // A name already spelt right is kept as sent, even an alias Intl would rename (Asia/Calcutta, America/New_York).
    for (const tz of ['Asia/Kolkata', 'US/Eastern']) {
      expect((await api.post(`/1/user/update/${anon.user_id}`, { basic: basic(app), json: { timezone: tz } })).body.timezone).toBe(tz);
    }
  });

  it('deletes a user: its tokens stop working, it is gone from the list, a second delete is 404', async () => {
    const u = await createAnonUser(api, app);
    const refresh = (await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'to-delete' } })).body;
    for (const victim of [u, refresh]) {
      expect((await profile(victim.access_token)).status).toBe(200);
      const res = await api.post(`/1/user/delete/${victim.user_id}`, { basic: basic(app) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: victim.user_id });
      const after = await profile(victim.access_token);
      expect(after.status).toBe(401);
      expectErrorShape(after.body, 401, 'invalid_token');
      expect((await api.get(`/1/user/info/${victim.user_id}`, { basic: basic(app) })).status).toBe(404);
      const again = await api.post(`/1/user/delete/${victim.user_id}`, { basic: basic(app) });
      expect(again.status).toBe(404);
      expectErrorShape(again.body, 404, 'not_found');
    }
    // The refresh token died with the user.
    const r = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: refresh.refresh_token } });
    expectErrorShape(r.body, 400, 'invalid_grant');
    // And the key is free again.
    const reused = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'to-delete' } });
    expect(reused.status).toBe(200);
    expect(reused.body.user_id).not.toBe(refresh.user_id);
  });

  it('a user token cannot manage users', async () => {
    const u = await createAnonUser(api, app);
    const victim = await createAnonUser(api, app);
    for (const [method, path] of [['GET', `/1/user/info/${victim.user_id}`], ['POST', `/1/user/delete/${victim.user_id}`], ['GET', '/1/user/list']]) {
      const res = await api.request(method, path, { token: u.access_token });
      expect(res.status, path).toBeGreaterThanOrEqual(401);
      expect(res.status, path).toBeLessThan(404);
      expectErrorShape(res.body, res.status);
    }
    expect((await profile(victim.access_token)).status).toBe(200);
  });
});

describe('restart', () => {
  it('keeps users, keys, passwords and tokens', async () => {
    const anon = await createAnonUser(api, app, { extra: { survives: 'yes' } });
    const keyed = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'restart-key' } });
    const named = await api.post('/1/user/create', { json: { client_id: app.client_id, username: 'restarter', password: 'pw-restart' } });
    const totalBefore = (await api.get('/1/user/list', { basic: basic(app) })).body.paging.total;

    await server.restart();

    expect((await profile(anon.access_token)).body).toMatchObject({ user_id: anon.user_id, extra: { survives: 'yes' } });
    expect((await profile(named.body.access_token)).body.username).toBe('restarter');
    expect((await api.get('/1/user/list', { basic: basic(app) })).body.paging.total).toBe(totalBefore);
    const again = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key: 'restart-key' } });
    expect(again.body.user_id).toBe(keyed.body.user_id);
    const dup = await api.post('/1/user/create', { json: { client_id: app.client_id, username: 'restarter' } });
    expectErrorShape(dup.body, 409, 'username_exists');
    const login = await api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username: 'restarter', password: 'pw-restart' } });
    expect(login.body.user_id).toBe(named.body.user_id);
    const refreshed = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: keyed.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect((await api.get('/1/user/list', { token: app.access_token })).status).toBe(200);
  });
});
