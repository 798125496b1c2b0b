// Limits on streaming sockets (plugins/stream-limits.ts): a socket that holds no subscription is
// told and closed after STREAM_AUTH_TIMEOUT_MS (from connecting, and again once its last
// subscription ended), and one remote address holds at most STREAM_CONNECTIONS_PER_ADDRESS
// sockets, handshakes in flight included; past that a connection is refused, another address is
// not affected, and a closed socket gives its place back. Real server, real Socket.IO clients.
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { connectWatcher, type Watcher } from '../helpers/socket-watcher.js';

// Long enough for a socket to subscribe on a busy machine; the idle ones are awaited, not timed.
const IDLE_MS = 3000;
const CAP = 3;
let idle: TestServer;
let capped: TestServer;
const open: Array<Watcher | Socket> = [];

beforeAll(async () => {
  // The engine's shards in this thread: these tests are about sockets, not points.
  idle = await startServer({ engine: { inProcess: true }, env: { STREAM_AUTH_TIMEOUT_MS: String(IDLE_MS) } });
  capped = await startServer({ engine: { inProcess: true }, env: { STREAM_CONNECTIONS_PER_ADDRESS: String(CAP) } });
});
afterEach(() => {
  for (const s of open.splice(0)) ('socket' in s ? s.socket : s).disconnect();
});
afterAll(async () => {
  await idle?.close();
  await capped?.close();
});

async function watch(server: TestServer, options: Parameters<typeof connectWatcher>[2] = {}): Promise<Watcher> {
  const w = await connectWatcher(server.url, {}, options);
  open.push(w);
  return w;
}

/** Connects, and resolves with whether the server took the connection (false: refused). */
function tryConnect(server: TestServer, options: Parameters<typeof io>[1] = {}): Promise<boolean> {
  const socket = io(server.url, { reconnection: false, forceNew: true, ...options });
  open.push(socket);
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('connect_error', () => resolve(false));
  });
}

describe('sockets without a subscription', () => {
  it('are told and closed after the timeout; a subscribed socket stays', async () => {
    const app = await createApp(idle.api, 'idle');
    const group = (await idle.api.post('/1/group/create', { token: app.access_token, json: { visibility: 'open' } })).body.group_token;
    const subscribed = await watch(idle);
    expect(await subscribed.subscribe(`group-${group}`)).toEqual({ result: 'ok' });
    // Connected after it: its timer, had it one, would have run out first.
    const silent = await watch(idle);
    const refused = await watch(idle);
    expect(await refused.subscribe('group-NoSuchGroup1')).toMatchObject({ error_code: 404 });

    expect(await silent.disconnected).toBe('io server disconnect');
    expectErrorShape(silent.tokenErrors[0], 408, 'request_timeout');
    expect(await refused.disconnected).toBe('io server disconnect');
    expect(subscribed.socket.connected).toBe(true);
  });

  it('once the last subscription ended, the socket is closed after the timeout too', async () => {
    const app = await createApp(idle.api, 'idle again');
    const alice = await createAnonUser(idle.api, app);
    const trip = (await idle.api.post('/1/trip/create', { token: alice.access_token, json: { minutes: 30 } })).body.token as string;
    const watcher = await watch(idle);
    expect(await watcher.subscribe(`trip-${trip}`)).toEqual({ result: 'ok' });
    expect((await idle.api.post('/1/link/deactivate', { token: alice.access_token, json: { token: trip } })).status).toBe(200);
    const moved = await idle.api.post('/1/location/update', {
      token: alice.access_token,
      json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 5 } } }],
    });
    expect(moved.status).toBe(200);
    expectErrorShape(await watcher.nth(watcher.tokenErrors, 1), 404, 'not_found');
    expect(await watcher.disconnected).toBe('io server disconnect');
    expectErrorShape(watcher.tokenErrors[1], 408, 'request_timeout');
    expect(watcher.locations).toHaveLength(0);
  });
});

describe('connections per address', () => {
  it('are capped, handshakes at once included; another address is not affected; a closed one frees its place', async () => {
    // More at once than the cap, over both transports: exactly the cap gets through.
    const attempts = await Promise.all(Array.from({ length: CAP + 3 }, (_, i) => tryConnect(capped, i % 2 ? { transports: ['websocket'] } : {})));
    expect(attempts.filter(Boolean)).toHaveLength(CAP);
    expect(await tryConnect(capped)).toBe(false);
    expect(await tryConnect(capped, { transports: ['websocket'] })).toBe(false);

    // Another loopback address is another client.
    const elsewhere = await watch(capped, { transports: ['websocket'], localAddress: '127.0.0.2' } as never);
    expect(elsewhere.socket.connected).toBe(true);

    // One of the first closes: its place is free again.
    const first = open.find((s): s is Socket => !('socket' in s) && s.connected)!;
    first.disconnect();
    await expect.poll(() => capped.app.io.engine.clientsCount).toBe(CAP);
    expect(await tryConnect(capped)).toBe(true);
  });
});
