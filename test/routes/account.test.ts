// /1/account/*: what a logged-in user's app does with its user token (reference §4.9): the
// profile, the username, and the push tokens that fill `devices` and `has_push_token`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, createAnonUser, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'account app');
});
afterAll(async () => {
  await server?.close();
});

const profile = (token: string) => api.get('/1/account/profile', { token });
const basic = (): [string, string] => [app.client_id, app.client_secret];

describe('account/profile', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createAnonUser(api, app, { extra: { color: 'blue' } });
  });

  it('GET returns the full profile record of the token’s user', async () => {
    const res = await profile(user.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_id: user.user_id, username: user.username, display_name: 'Anonymous', is_anonymous: 1, has_push_token: 0,
      timezone: 'UTC', timezone_offset: '+0000', extra: { color: 'blue' }, devices: { apns_dev: [], apns_live: [], c2dm: [] },
    });
  });

  it('POST changes the profile fields (JSON or form) and the change is what GET and user/info show', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token,
      form: { name: 'Pat', bio: 'likes maps', website: 'https://pat.example', timezone: 'America/Los_Angeles', extra: { team: 'red' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toBe('ok');
    const me = (await profile(user.access_token)).body;
    expect(me).toMatchObject({ name: 'Pat', bio: 'likes maps', website: 'https://pat.example', timezone: 'America/Los_Angeles', extra: { team: 'red' } });
    expect(me.timezone_offset).toMatch(/^-0[78]00$/);
    const info = await api.get(`/1/user/info/${user.user_id}`, { basic: basic() });
    expect(info.body).toMatchObject({ name: 'Pat', timezone: 'America/Los_Angeles' });
    const json = await api.post('/1/account/profile', { token: user.access_token, json: { public_location: '1', extra: { n: 1 } } });
    expect(json.status).toBe(200);
    expect((await profile(user.access_token)).body).toMatchObject({ public_location: 1, extra: { n: 1 }, name: 'Pat' });
  });

  it('refuses an unknown time zone and a malformed email with 400, changing nothing', async () => {
    for (const body of [{ timezone: 'Mars/Olympus', name: 'changed' }, { email: 'not an email', name: 'changed' }]) {
      const res = await api.post('/1/account/profile', { token: user.access_token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectErrorShape(res.body, 400);
    }
    expect((await profile(user.access_token)).body.name).toBe('Pat');
  });

  it('desired_username renames the user; a taken one is 409 username_exists', async () => {
    const other = await createAnonUser(api, app);
    const renamed = await api.post('/1/account/profile', { token: user.access_token, json: { desired_username: 'pathfinder' } });
    expect(renamed.status).toBe(200);
    expect((await profile(user.access_token)).body).toMatchObject({ username: 'pathfinder', has_custom_username: 1 });
    const taken = await api.post('/1/account/profile', { token: other.access_token, json: { desired_username: 'PathFinder' } });
    expect(taken.status).toBe(409);
    expectErrorShape(taken.body, 409, 'username_exists');
    expect((await profile(other.access_token)).body.username).toBe(other.username);
  });

  it('needs a user token', async () => {
    const none = await api.get('/1/account/profile');
    expect(none.status).toBe(401);
    expectErrorShape(none.body, 401, 'invalid_token');
    const appToken = await api.get('/1/account/profile', { token: app.access_token });
    expect(appToken.status).toBe(403);
    expectErrorShape(appToken.body, 403, 'access_denied');
    const basicOnly = await api.get('/1/account/profile', { basic: basic() });
    expect(basicOnly.status).toBe(401);
    expectErrorShape(basicOnly.body, 401);
  });
});

describe('account/username and account/check_username', () => {
  it('GET account/username returns the current username; POST changes it', async () => {
    const user = await createAnonUser(api, app);
    expect((await api.get('/1/account/username', { token: user.access_token })).body).toEqual({ username: user.username });
    const res = await api.post('/1/account/username', { token: user.access_token, form: { username: 'newname' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: 'newname' });
    expect((await api.get('/1/account/username', { token: user.access_token })).body).toEqual({ username: 'newname' });
    const bad = await api.post('/1/account/username', { token: user.access_token, json: { username: 'has space' } });
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 400);
  });

  it('check_username says available or unavailable (taken), case-insensitively', async () => {
    const user = await createAnonUser(api, app);
    const holder = await createAnonUser(api, app);
    await api.post('/1/account/username', { token: holder.access_token, json: { username: 'TakenName' } });
    const taken = await api.post('/1/account/check_username', { token: user.access_token, form: { desired_username: 'takenname' } });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ username: 'unavailable', reason: 'taken' });
    const free = await api.post('/1/account/check_username', { token: user.access_token, form: { desired_username: 'free-name-1' } });
    expect(free.body).toEqual({ username: 'available' });
    const missing = await api.post('/1/account/check_username', { token: user.access_token, json: {} });
    expect(missing.status).toBe(400);
    expectErrorShape(missing.body, 400);
    expect(missing.body.error_description).toContain('desired_username');
  });

  it('check_username works with app credentials too, as a sign-up form asks before the user exists', async () => {
    const holder = await createAnonUser(api, app);
    await api.post('/1/account/username', { token: holder.access_token, json: { username: 'SignUpTaken' } });
    for (const creds of [{ form: { client_id: app.client_id } }, { token: app.access_token, form: {} }]) {
      const taken = await api.post('/1/account/check_username', { ...creds, form: { ...creds.form, desired_username: 'signuptaken' } });
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
      expect(taken.body).toEqual({ username: 'unavailable', reason: 'taken' });
      const free = await api.post('/1/account/check_username', { ...creds, form: { ...creds.form, desired_username: 'signup-free-1' } });
      expect(free.body).toEqual({ username: 'available' });
    }
    // Without any credential it stays a 401.
    expect((await api.post('/1/account/check_username', { form: { desired_username: 'x' } })).status).toBe(401);
  });

  it('check_username says a name no one may take is unavailable (invalid), not available', async () => {
    const user = await createAnonUser(api, app);
    for (const desired of ['two words', 'colon:name', 'nul\u0000name']) {
      const res = await api.post('/1/account/check_username', { token: user.access_token, json: { desired_username: desired } });
      expect(res.status).toBe(200);
      expect(res.body, desired).toEqual({ username: 'unavailable', reason: 'invalid' });
      // And indeed it cannot be taken.
      expect((await api.post('/1/account/username', { token: user.access_token, json: { username: desired } })).status).toBe(400);
    }
  });

  it("check_username says the caller's own username (any case) is available: it is theirs", async () => {
    const user = await createAnonUser(api, app);
    await api.post('/1/account/username', { token: user.access_token, json: { username: 'MyOwnName' } });
    for (const desired of ['MyOwnName', 'myownname']) {
      const res = await api.post('/1/account/check_username', { token: user.access_token, form: { desired_username: desired } });
      expect(res.status).toBe(200);
      expect(res.body, desired).toEqual({ username: 'available' });
    }
    // Still taken for anyone else.
    const other = await createAnonUser(api, app);
    const taken = await api.post('/1/account/check_username', { token: other.access_token, form: { desired_username: 'MYOWNNAME' } });
    expect(taken.body).toEqual({ username: 'unavailable', reason: 'taken' });
  });
});

describe('push tokens', () => {
  it('set_apn_token, set_gcm_token and set_c2dm_token fill devices and has_push_token', async () => {
    const user = await createAnonUser(api, app);
    expect((await profile(user.access_token)).body.has_push_token).toBe(0);

    const apn = await api.post('/1/account/set_apn_token', { token: user.access_token, form: { device_id: 'dev-1', token: 'apns-live-token' } });
    expect(apn.status).toBe(200);
    expect(apn.body).toEqual({ response: 'ok' });
    let me = (await profile(user.access_token)).body;
    expect(me.has_push_token).toBe(1);
    expect(me.devices.apns_live).toEqual(['apns-live-token']);

    await api.post('/1/account/set_apn_token', { token: user.access_token, json: { device_id: 'dev-2', token: 'apns-dev-token', mode: 'dev' } });
    await api.post('/1/account/set_gcm_token', { token: user.access_token, form: { gcm_token: 'gcm-token' } });
    await api.post('/1/account/set_c2dm_token', { token: user.access_token, form: { c2dm_token: 'c2dm-token' } });
    // Registering a token again does not duplicate it.
    await api.post('/1/account/set_gcm_token', { token: user.access_token, form: { gcm_token: 'gcm-token' } });
    me = (await profile(user.access_token)).body;
    expect(me.devices).toEqual({ apns_live: ['apns-live-token'], apns_dev: ['apns-dev-token'], c2dm: ['c2dm-token'], gcm: ['gcm-token'] });

    const listed = await api.get('/1/user/list', { basic: basic(), query: { limit: 1000 } });
    const row = listed.body.users.find((u: { user_id: string }) => u.user_id === user.user_id);
    expect(row.has_push_token).toBe(1);
    expect(row.devices.c2dm).toEqual(['c2dm-token']);
  });

  it('a missing or empty token is 400 and registers nothing', async () => {
    const user = await createAnonUser(api, app);
    for (const [path, body] of [
      ['/1/account/set_apn_token', { device_id: 'd' }],
      ['/1/account/set_gcm_token', { gcm_token: '' }],
      ['/1/account/set_c2dm_token', {}],
    ] as const) {
      const res = await api.post(path, { token: user.access_token, json: body });
      expect(res.status, path).toBe(400);
      expectErrorShape(res.body, 400);
    }
    expect((await profile(user.access_token)).body.has_push_token).toBe(0);
  });

  it('needs a user token', async () => {
    const res = await api.post('/1/account/set_gcm_token', { token: app.access_token, form: { gcm_token: 'x' } });
    expect(res.status).toBe(403);
    expectErrorShape(res.body, 403, 'access_denied');
  });
});
