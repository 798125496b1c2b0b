// The streaming API (reference §4.8) end to end: a real server, the Socket.IO client over real
// sockets. The server asks for authentication, the client subscribes with `group-<token>` or
// `user-<username>`, and location updates and group messages arrive as `location` events carrying
// JSON strings; what a socket may not watch is refused, another application's group included.
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;
let other: TestApp;
let alice: TestUser;
let bob: TestUser;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'streaming');
  other = await createApp(api, 'streaming elsewhere');
  alice = await createAnonUser(api, app);
  bob = await createAnonUser(api, app);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});
afterAll(async () => {
  await server?.close();
});

/** A connected socket that collects its `location` events (or `event`'s, parsed) once the server asked for authentication. */
async function connect(auth: Record<string, string> = {}, transports?: Array<'polling' | 'websocket'>, event = 'location') {
  const socket = io(server.url, { auth, reconnection: false, forceNew: true, ...(transports && { transports }) });
  sockets.push(socket);
  const events: any[] = [];
  const waiters: Array<() => void> = [];
  socket.on(event, (data: unknown) => {
    expect(typeof data).toBe('string');
    events.push(JSON.parse(data as string));
    for (const w of waiters.splice(0)) w();
  });
  // The greeting earlier MapAttack pages wait for, sent after `enter authentication`.
  const oldGreeting = new Promise<void>((resolve) => socket.once('enter group token', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('enter authentication', () => resolve());
    socket.once('connect_error', reject);
  });
  const subscribe = (value: string) => socket.timeout(5_000).emitWithAck('token', value) as Promise<Record<string, unknown>>;
  /** Resolves with the n-th event (1-based) once it has arrived. */
  const nth = (n: number) => new Promise<any>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`expected ${n} location events, got ${JSON.stringify(events)}`)), 5_000);
    const check = () => {
      if (events.length >= n) {
        clearTimeout(timer);
        resolve(events[n - 1]);
      } else waiters.push(check);
    };
    check();
  });
  return { socket, events, subscribe, nth, oldGreeting };
}

const move = (user: TestUser, latitude: number, longitude: number) =>
  api.post('/1/location/update', {
    token: user.access_token,
    json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude, longitude, horizontal_accuracy: 5 } } }],
  });

async function openGroup(opts: Record<string, unknown> = {}) {
  const res = await api.post('/1/group/create', { token: app.access_token, json: { visibility: 'open', publish_access: 'open', ...opts } });
  expect(res.status).toBe(200);
  return res.body.group_token as string;
}

describe('Socket.IO streaming', () => {
  it('sends a group\'s member locations and its messages to a subscribed socket', async () => {
    const token = await openGroup();
    expect((await api.post(`/1/group/join/${token}`, { token: alice.access_token })).status).toBe(200);
    const watcher = await connect();
    expect(await watcher.subscribe(`group-${token}`)).toEqual({ result: 'ok' });

    // Bob is no member: his point is not sent, Alice's is (and is the first event).
    expect((await move(bob, 10, 10)).status).toBe(200);
    expect((await move(alice, 45.5231, -122.6765)).status).toBe(200);
    const first = await watcher.nth(1);
    expect(first).toMatchObject({ user_id: alice.user_id, username: alice.username, latitude: 45.5231, longitude: -122.6765 });
    expect(first.location.position).toMatchObject({ latitude: 45.5231, longitude: -122.6765 });

    const capture = { mapattack: { place_id: 'P1', team: 'red', points: 10 } };
    expect((await api.post(`/1/group/message/${token}`, { token: app.access_token, json: capture })).status).toBe(200);
    expect(await watcher.nth(2)).toEqual(capture);
  });

  it('speaks MapAttack\'s dialect: `group` with the bare token, then `group` events with locations and messages', async () => {
    const token = await openGroup();
    expect((await api.post(`/1/group/join/${token}`, { token: alice.access_token })).status).toBe(200);
    const map = await connect({}, undefined, 'group');
    await map.oldGreeting;
    expect(await map.socket.timeout(5_000).emitWithAck('group', token)).toEqual({ result: 'ok' });

    expect((await move(alice, 45.52, -122.68)).status).toBe(200);
    expect(await map.nth(1)).toMatchObject({ user_id: alice.user_id, username: alice.username, latitude: 45.52, longitude: -122.68 });
    const capture = { mapattack: { place_id: 'P2', team: 'blue', points: 20 } };
    expect((await api.post(`/1/group/message/${token}`, { token: app.access_token, json: capture })).status).toBe(200);
    expect(await map.nth(2)).toEqual(capture);

    // A token that names no group is refused as with `token`.
    expect(await map.socket.timeout(5_000).emitWithAck('group', 'NoSuchGroup')).toMatchObject({ error_code: 404 });
  });

  it('sends a user\'s locations to a socket of their application', async () => {
    const watcher = await connect({ access_token: app.access_token });
    expect(await watcher.subscribe(`user-${alice.username}`)).toEqual({ result: 'ok' });
    await move(alice, 45.6, -122.7);
    expect(await watcher.nth(1)).toMatchObject({ user_id: alice.user_id, latitude: 45.6, longitude: -122.7 });
  });

  it('refuses what the socket may not watch, with the error in the ack and a `token error` event', async () => {
    const invite = await openGroup({ visibility: 'invite' });
    const open = await openGroup();
    const anonymous = await connect();
    const errors: string[] = [];
    anonymous.socket.on('token error', (data: string) => errors.push(data));
    for (const value of ['group-NoSuchGroup1', `group-${invite}`, `user-${alice.username}`, 'trip-Cf9Krwu', 'nonsense']) {
      expect(await anonymous.subscribe(value), value).toMatchObject({ error_code: 404, error: 'not_found' });
    }
    await expect.poll(() => errors.length).toBe(5);
    expect(JSON.parse(errors[0]!)).toMatchObject({ error_code: 404, error: 'not_found' });

    // Another application's socket sees neither group, and no user of this one.
    const elsewhere = await connect({ client_id: other.client_id });
    expect(await elsewhere.subscribe(`group-${open}`)).toMatchObject({ error_code: 404 });
    expect(await elsewhere.subscribe(`user-${alice.username}`)).toMatchObject({ error_code: 404 });
    // A user's location is not public by default: another user's token may not watch it.
    const nosy = await connect({ access_token: bob.access_token });
    expect(await nosy.subscribe(`user-${alice.username}`)).toMatchObject({ error_code: 404 });
    // The application sees its invite-only group.
    const owner = await connect({ access_token: app.access_token });
    expect(await owner.subscribe(`group-${invite}`)).toEqual({ result: 'ok' });
  });

  it('serves a client that connects over a WebSocket from the start', async () => {
    const token = await openGroup();
    expect((await api.post(`/1/group/join/${token}`, { token: alice.access_token })).status).toBe(200);
    const watcher = await connect({}, ['websocket']);
    expect(watcher.socket.io.engine.transport.name).toBe('websocket');
    expect(await watcher.subscribe(`group-${token}`)).toEqual({ result: 'ok' });
    await move(alice, 45.51, -122.68);
    expect(await watcher.nth(1)).toMatchObject({ user_id: alice.user_id, latitude: 45.51, longitude: -122.68 });
  });

  it('sends a trip\'s locations while its share link shows them, to the token alone', async () => {
    const trip = await api.post('/1/trip/create', { token: alice.access_token, json: { description: 'Commute', minutes: 30 } });
    expect(trip.status).toBe(200);
    const token = trip.body.token as string;
    const watcher = await connect();
    expect(await watcher.subscribe(`trip-${token}`)).toEqual({ result: 'ok' });
    await move(bob, 10, 10);
    await move(alice, 45.53, -122.66);
    expect(await watcher.nth(1)).toMatchObject({ user_id: alice.user_id, latitude: 45.53, longitude: -122.66 });

    // A deactivated link: new subscriptions are refused, and the watching socket hears nothing more.
    const sockets = () => server.app.io.of('/').sockets;
    expect((await api.post('/1/link/deactivate', { token: alice.access_token, json: { token } })).body).toEqual({ result: 'ok' });
    const late = await connect();
    expect(await late.subscribe(`trip-${token}`)).toMatchObject({ error_code: 404, error: 'not_found' });
    await move(alice, 45.54, -122.65);
    await expect.poll(() => sockets().get(watcher.socket.id!)?.rooms.size).toBe(1);
    expect(watcher.events).toHaveLength(1);

    // An expired link, and another application's socket, are refused the same way; the link's own application is not.
    const second = await api.post('/1/trip/create', { token: alice.access_token, json: { minutes: 30 } });
    const open = second.body.token as string;
    const elsewhere = await connect({ client_id: other.client_id });
    expect(await elsewhere.subscribe(`trip-${open}`)).toMatchObject({ error_code: 404 });
    expect(await (await connect({ client_id: app.client_id })).subscribe(`trip-${open}`)).toEqual({ result: 'ok' });
    expect((await api.post('/1/link/expire', { token: alice.access_token, json: { token: open } })).body).toEqual({ result: 'ok' });
    expect(await (await connect()).subscribe(`trip-${open}`)).toMatchObject({ error_code: 404 });
  });

  it('refuses a handshake credential that is not valid', async () => {
    const socket = await connect({ access_token: 'not-a-token' });
    expect(await socket.subscribe('group-NoSuchGroup1')).toMatchObject({ error_code: 401, error: 'invalid_token' });
  });
});
