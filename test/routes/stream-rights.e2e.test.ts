// The streaming API's rights are held, not only checked once (services/stream-rights.ts): a
// subscription whose right is withdrawn ends at once, the socket is told with a `token error` and
// hears nothing more, while sockets that keep the right go on. One case per way a right goes: the
// watched user's location made private, an open group made invite-only, the watcher leaving an
// invite group, the watcher's application token revoked. Real server, real Socket.IO clients.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';
import { connectWatcher, type Watcher } from '../helpers/socket-watcher.js';

let server: TestServer;
let api: Api;
const watchers: Watcher[] = [];

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
});
afterEach(() => {
  for (const w of watchers.splice(0)) w.socket.disconnect();
});
afterAll(async () => {
  await server?.close();
});

async function watch(auth: Record<string, string> = {}): Promise<Watcher> {
  const w = await connectWatcher(server.url, auth);
  watchers.push(w);
  return w;
}

const move = async (user: TestUser, latitude: number, longitude: number) => {
  const res = await api.post('/1/location/update', {
    token: user.access_token,
    json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude, longitude, horizontal_accuracy: 5 } } }],
  });
  expect(res.status).toBe(200);
};

const ok = async (res: Promise<{ status: number; body: any }>) => {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

async function group(app: TestApp, visibility: 'open' | 'invite') {
  return (await ok(api.post('/1/group/create', { token: app.access_token, json: { visibility, publish_access: 'open' } }))).group_token as string;
}

/** The watcher was told its subscription ended, and heard only the `heard` locations before it. */
async function expectEnded(w: Watcher, heard: number, status: number, error: string) {
  const told = await w.nth(w.tokenErrors, 1);
  expectErrorShape(told, status, error);
  // A refused credential closes the socket after telling it; else a round trip shows nothing followed.
  if (status === 401) await w.disconnected;
  else await w.barrier();
  expect(w.locations).toHaveLength(heard);
}

describe('a subscription ends when its right is withdrawn', () => {
  it('after the watched user sets public_location to 0', async () => {
    const app = await createApp(api, 'privacy');
    const alice = await createAnonUser(api, app);
    await ok(api.post('/1/account/privacy', { token: alice.access_token, json: { public_location: 1 } }));
    const stranger = await watch({ client_id: app.client_id });
    const owner = await watch({ access_token: app.access_token });
    expect(await stranger.subscribe(`user-${alice.username}`)).toEqual({ result: 'ok' });
    expect(await owner.subscribe(`user-${alice.username}`)).toEqual({ result: 'ok' });
    await move(alice, 45.51, -122.68);
    expect(await stranger.nth(stranger.locations, 1)).toMatchObject({ user_id: alice.user_id, latitude: 45.51 });

    await ok(api.post('/1/account/privacy', { token: alice.access_token, json: { public_location: 0 } }));
    await move(alice, 45.52, -122.67);
    await move(alice, 45.53, -122.66);
    // The application still sees its user; the stranger heard nothing after the change.
    expect(await owner.nth(owner.locations, 3)).toMatchObject({ latitude: 45.53 });
    await expectEnded(stranger, 1, 404, 'not_found');
    expect(stranger.tokenErrors[0].error_description).toContain(`user-${alice.username}`);
    expect(await stranger.subscribe(`user-${alice.username}`)).toMatchObject({ error_code: 404 });
  });

  it('after an open group becomes invite-only', async () => {
    const app = await createApp(api, 'open to invite');
    const [alice, bob] = [await createAnonUser(api, app), await createAnonUser(api, app)];
    const token = await group(app, 'open');
    await ok(api.post(`/1/group/join/${token}`, { token: alice.access_token }));
    await ok(api.post(`/1/group/join/${token}`, { token: bob.access_token }));
    const anonymous = await watch();
    const member = await watch({ access_token: bob.access_token });
    expect(await anonymous.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    expect(await member.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    await move(alice, 45.51, -122.68);
    await anonymous.nth(anonymous.locations, 1);

    await ok(api.post(`/1/group/update/${token}`, { token: app.access_token, json: { visibility: 'invite' } }));
    await move(alice, 45.52, -122.67);
    await ok(api.post(`/1/group/message/${token}`, { token: app.access_token, json: { note: 'members only' } }));
    // A member may still watch an invite group: the location and the message reach them.
    expect(await member.nth(member.locations, 3)).toEqual({ note: 'members only' });
    await expectEnded(anonymous, 1, 404, 'not_found');
  });

  it('after the watcher leaves an invite-only group', async () => {
    const app = await createApp(api, 'leaving');
    const [alice, bob] = [await createAnonUser(api, app), await createAnonUser(api, app)];
    const token = await group(app, 'invite');
    for (const u of [alice, bob]) await ok(api.post(`/1/group/join/${token}`, { token: app.access_token, json: { user_id: u.user_id } }));
    const leaver = await watch({ access_token: bob.access_token });
    const owner = await watch({ access_token: app.access_token });
    expect(await leaver.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    expect(await owner.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    await move(alice, 45.51, -122.68);
    await leaver.nth(leaver.locations, 1);

    await ok(api.post(`/1/group/leave/${token}`, { token: bob.access_token }));
    await move(alice, 45.52, -122.67);
    expect(await owner.nth(owner.locations, 2)).toMatchObject({ latitude: 45.52 });
    await expectEnded(leaver, 1, 404, 'not_found');
    // The socket itself stays: its other subscriptions (none here) and new ones are its own.
    expect(leaver.socket.connected).toBe(true);
  });

  it("after the watcher's application token is revoked, the socket is told and closed", async () => {
    const app = await createApp(api, 'rotated');
    const alice = await createAnonUser(api, app);
    const watcher = await watch({ access_token: app.access_token });
    const anonymous = await watch({ client_id: app.client_id });
    const token = await group(app, 'open');
    await ok(api.post(`/1/group/join/${token}`, { token: alice.access_token }));
    expect(await watcher.subscribe(`user-${alice.username}`)).toEqual({ result: 'ok' });
    expect(await anonymous.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    await move(alice, 45.51, -122.68);
    await watcher.nth(watcher.locations, 1);

    await ok(api.post(`/admin/app/rotate_secret/${app.application_id}`, { bearer: ADMIN_TOKEN, json: {} }));
    await move(alice, 45.52, -122.67);
    // A socket that needed no token goes on.
    expect(await anonymous.nth(anonymous.locations, 2)).toMatchObject({ latitude: 45.52 });
    await expectEnded(watcher, 1, 401, 'invalid_token');
    expect(await watcher.disconnected).toBe('io server disconnect');
  });
});
