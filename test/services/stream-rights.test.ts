// How long a streaming subscription's check stands (services/stream-rights.ts), with an injected
// clock: a write made through this process's store ends it at the next event; a change this process
// did not make (another API node on the same MongoDB, written here straight to the engine) is seen
// once AUTH_CACHE_TTL_MS has passed; a token that expires ends every subscription of its socket;
// a user who renames themself is still watched (a right is checked by ids, not by the name asked).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamRights } from '../../src/services/stream-rights.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { setStoredField } from '../helpers/stored.js';

const TTL_MS = 5000;
const TOKEN_TTL_S = 600;
let clock = Date.now();
let server: TestService;
let app: TestApp;
let alice: TestUser;

beforeAll(async () => {
  server = await startApp({ now: () => clock, env: { AUTH_CACHE_TTL_MS: String(TTL_MS), ACCESS_TOKEN_TTL: String(TOKEN_TTL_S) } });
  app = await createApp(server.api, 'rights');
  alice = await createAnonUser(server.api, app);
});
afterAll(async () => {
  await server?.close();
});

const setPublic = async (flag: 0 | 1) =>
  expect((await server.api.post('/1/account/privacy', { token: alice.access_token, json: { public_location: flag } })).status).toBe(200);

describe('StreamRights', () => {
  it('sees a change made in this process at once, and one made elsewhere after AUTH_CACHE_TTL_MS', async () => {
    const rights = new StreamRights(server.app.ctx);
    await setPublic(1);
    rights.add('w', { client_id: app.client_id });
    const room = await rights.subscribe('w', `user-${alice.username}`);
    expect(await rights.refusals(room, ['w'])).toEqual([]);

    // Elsewhere: straight to the engine, which tells no one in this process.
    setStoredField(server, 'users', alice.user_id, 'public_location', 0);
    expect(await rights.refusals(room, ['w'])).toEqual([]);
    clock += TTL_MS;
    const [refusal] = await rights.refusals(room, ['w']);
    expect(refusal).toMatchObject({ watcher: 'w', credential: false });
    expect(refusal!.error.body()).toMatchObject({ error_code: 404, error: 'not_found' });
    expect(rights.subscriptions('w')).toBe(0);

    // Here: the next check sees it, whatever the time.
    await setPublic(1);
    await rights.subscribe('w', `user-${alice.username}`);
    await setPublic(0);
    expect(await rights.refusals(room, ['w'])).toHaveLength(1);
  });

  it('keeps watching a user who changed their username: the right is the user\'s, not the name\'s', async () => {
    const rights = new StreamRights(server.app.ctx);
    const carol = await createAnonUser(server.api, app);
    rights.add('w', { access_token: app.access_token });
    const room = await rights.subscribe('w', `user-${carol.username}`);
    const renamed = await server.api.post('/1/account/profile', { token: carol.access_token, json: { desired_username: 'carol-renamed' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await rights.refusals(room, ['w'])).toEqual([]);
  });

  it('ends every subscription of a socket whose token expired', async () => {
    const rights = new StreamRights(server.app.ctx);
    // Its token issued now, on the moved clock.
    const bob = await createAnonUser(server.api, app);
    rights.add('own', { access_token: bob.access_token });
    const room = await rights.subscribe('own', `user-${bob.username}`);
    clock += TOKEN_TTL_S * 1000 - 1;
    expect(await rights.refusals(room, ['own'])).toEqual([]);
    clock += 1;
    const [refusal] = await rights.refusals(room, ['own']);
    expect(refusal).toMatchObject({ watcher: 'own', credential: true });
    expect(refusal!.error.body()).toMatchObject({ error_code: 401, error: 'expired_token' });
    await expect(rights.subscribe('own', `user-${bob.username}`)).rejects.toMatchObject({ code: 'expired_token' });
  });
});
