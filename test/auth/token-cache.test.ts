// The auth token cache: requests reuse a token's documents for a few seconds, yet never see stale
// data after a change made through this process's store, and see another process's change once
// the TTL has passed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCache, type TokenEntry } from '../../src/auth/token-cache.js';
import { loadConfig } from '../../src/config.js';
import type { ApplicationDoc, TokenDoc, UserDoc } from '../../src/store/documents.js';
import type { Store } from '../../src/store/store.js';
import { WriteFeed } from '../../src/store/write-watch.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { setStoredField } from '../helpers/stored.js';

describe('TokenCache', () => {
  const entry = (): TokenEntry => ({
    token: { _id: 'h', kind: 'user', app_id: 'a', user_id: 'u', expires_at: null, created_at: 0 } as TokenDoc,
    app: { _id: 'a' } as ApplicationDoc,
    user: { _id: 'u', app_id: 'a', extra: { n: 1 } } as unknown as UserDoc,
  });
  const setup = (ttl: number) => {
    const writes = new WriteFeed();
    let now = 0;
    const cache = new TokenCache({ writes } as unknown as Store, ttl, () => now);
    return { writes, cache, advance: (ms: number) => (now += ms) };
  };

  it('serves an entry until its TTL has passed', () => {
    const { cache, advance } = setup(1000);
    cache.set('h', entry(), cache.mark());
    advance(999);
    expect(cache.get('h')?.user?._id).toBe('u');
    advance(1);
    expect(cache.get('h')).toBeUndefined();
  });

  it('drops everything when an application, user or token is updated or deleted, not for other collections', () => {
    const { cache, writes } = setup(60_000);
    for (const name of ['applications', 'users', 'tokens']) {
      cache.set('h', entry(), cache.mark());
      writes.emit('places');
      expect(cache.get('h')).toBeDefined();
      writes.emit(name);
      expect(cache.get('h'), name).toBeUndefined();
    }
  });

  it('does not keep what was read while a write settled: the write wins', () => {
    const { cache, writes } = setup(60_000);
    const mark = cache.mark();
    writes.emit('users');
    const served = cache.set('h', entry(), mark);
    expect(served.user?._id).toBe('u');
    expect(cache.get('h')).toBeUndefined();
  });

  it('hands out frozen documents, shared by every request of the token', () => {
    const { cache } = setup(60_000);
    const served = cache.set('h', entry(), cache.mark());
    expect(Object.isFrozen(served.user)).toBe(true);
    expect(Object.isFrozen(served.user!.extra)).toBe(true);
  });

  it('keeps nothing with a TTL of 0', () => {
    const { cache } = setup(0);
    cache.set('h', entry(), cache.mark());
    expect(cache.get('h')).toBeUndefined();
  });

  it('reads AUTH_CACHE_TTL_MS (default 5 s, at most 60 s)', () => {
    expect(loadConfig({}).authCacheTtlMs).toBe(5000);
    expect(loadConfig({ AUTH_CACHE_TTL_MS: '0' }).authCacheTtlMs).toBe(0);
    expect(() => loadConfig({ AUTH_CACHE_TTL_MS: '60001' })).toThrow(/AUTH_CACHE_TTL_MS/);
  });
});

describe('cached tokens over HTTP', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  const basic = (): [string, string] => [app.client_id, app.client_secret];

  beforeAll(async () => {
    // A short TTL so the cross-process case does not wait long; same-process freshness must not depend on it.
    server = await startApp({ env: { AUTH_CACHE_TTL_MS: '1500' } });
    api = server.api;
    app = await createApp(api, 'token cache');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('account/profile shows a change made by user/update at once, though the token was just used', async () => {
    const user = await createAnonUser(api, app);
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.name).toBe('');
    expect((await api.post(`/1/user/update/${user.user_id}`, { basic: basic(), json: { name: 'Kim', timezone: 'Asia/Kolkata' } })).status).toBe(200);
    expect((await api.get('/1/account/profile', { token: user.access_token })).body).toMatchObject({ name: 'Kim', timezone: 'Asia/Kolkata' });
  });

  it('sees a write made behind the routes through the store (a push provider dropping a device token)', async () => {
    const user = await createAnonUser(api, app);
    expect((await api.post('/1/account/set_apn_token', { token: user.access_token, json: { token: 'dev-1', mode: 'live' } })).status).toBe(200);
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.has_push_token).toBe(1);
    await server.app.ctx.store.users.removeDevice(app.application_id, user.user_id, 'apns_live', 'dev-1');
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.has_push_token).toBe(0);
  });

  it('refuses a deleted user’s token on the very next request', async () => {
    const user = await createAnonUser(api, app);
    expect((await api.get('/1/account/profile', { token: user.access_token })).status).toBe(200);
    expect((await api.post(`/1/user/delete/${user.user_id}`, { basic: basic() })).status).toBe(200);
    const res = await api.get('/1/account/profile', { token: user.access_token });
    expect(res.status).toBe(401);
    expectErrorShape(res.body, 401, 'invalid_token');
  });

  it('sees a change written by another process (not through this store) once the TTL has passed', async () => {
    const user = await createAnonUser(api, app);
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.bio).toBe('');
    // Straight in the database, past the store's change reporting: as another node's write.
    setStoredField(server, 'users', user.user_id, 'bio', 'elsewhere');
    await expect.poll(async () => (await api.get('/1/account/profile', { token: user.access_token })).body.bio, { timeout: 10_000, interval: 250 }).toBe('elsewhere');
  });
});
