// GET /1/stream's replay of the queue on connect, over a real server and real sockets, with more
// queued messages than one page of the replay (QUEUE_PAGE): every message queued when a socket
// connects reaches it once, oldest first, then the live ones; a second device of the user that
// connects mid-replay gets each message at most once and misses none stored while it is open; a
// device that drops mid-replay and reconnects gets the rest, once; live messages stored during the
// replay follow it in the order they were sent.
// The store poll (for messages stored by other nodes) is off here: it would mask a replay that
// stops early, a few seconds later and only while no other socket has taken the messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { QUEUE_PAGE } from '../../src/delivery/messages.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { until } from '../delivery/helpers.js';

let server: TestServer;
let api: Api;
let app: TestApp;

// A clock that never repeats a millisecond, so two sockets' connect times always differ and the
// replay hook below can tell the first device's reads from the second's.
let lastNow = 0;
const now = () => (lastNow = Math.max(Date.now(), lastNow + 1));

beforeAll(async () => {
  server = await startServer({ now, delivery: { livePollMs: 0 } });
  api = new Api(server.url);
  app = await createApp(api, 'stream replay');
});
afterAll(async () => {
  await server?.close();
});

const QUEUED = QUEUE_PAGE + 100;

/** Sends `n` messages to the user through message/send (no stream open: they are queued). */
async function queue(user: TestUser, n: number, text = 'queued'): Promise<void> {
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, (_, j) =>
      api.post('/1/message/send', { token: app.access_token, json: { user_id: user.user_id, text: `${text} ${i + j}` } }));
    for (const res of await Promise.all(batch)) expect(res.status).toBe(200);
  }
}

/** The user's message ids in queue order (date, then id), as the replay sends them. */
async function queueOrder(user: TestUser): Promise<string[]> {
  // Undelivered at 0: every message of the user, delivered or not.
  const docs = await server.app.ctx.store.messages.queue(app.application_id, user.user_id, 0, undefined, 1_000_000);
  return docs.map((m) => m._id);
}

async function sendLive(user: TestUser, text: string): Promise<string> {
  const res = await api.post('/1/message/send', { token: app.access_token, json: { user_id: user.user_id, text } });
  expect(res.status).toBe(200);
  return res.body.message_id;
}

interface Device {
  ws: WebSocket;
  /** Message ids in the order they arrived, repeats included. */
  ids: string[];
}

/** Opens a stream; `onFrame` sees each frame as it arrives (frames after a close are still read). */
function open(user: TestUser, onFrame?: (device: Device) => void): Promise<Device> {
  const ws = new WebSocket(server.url.replace(/^http/, 'ws') + '/1/stream', { headers: { authorization: `OAuth ${user.access_token}` } });
  const device: Device = { ws, ids: [] };
  ws.on('message', (data) => {
    device.ids.push(JSON.parse(String(data)).message.message_id);
    onFrame?.(device);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(device));
    ws.once('error', reject);
  });
}

const repeats = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

async function closeAll(...devices: Device[]) {
  await Promise.all(devices.map((d) => new Promise<void>((resolve) => {
    if (d.ws.readyState === WebSocket.CLOSED) return resolve();
    d.ws.once('close', () => resolve());
    d.ws.close();
  })));
}

describe('the queue replayed on connect', () => {
  it('is sent whole, past the first page, oldest first, before the live messages', async () => {
    const user = await createAnonUser(api, app);
    await queue(user, QUEUED);
    const queued = await queueOrder(user);
    const device = await open(user);
    const live = await sendLive(user, 'live');
    await until(() => device.ids.includes(live), 10_000).catch(() => undefined);
    expect(device.ids).toEqual([...queued, live]);
    // Every one is recorded as delivered: none is replayed again.
    const again = await open(user);
    const next = await sendLive(user, 'next');
    await until(() => again.ids.includes(next));
    expect(again.ids).toEqual([next]);
    await closeAll(device, again);
  });
});

describe('a second device connecting while the first one\'s replay runs', () => {
  it('gets each message at most once, and the first device still gets all of the queue', async () => {
    const user = await createAnonUser(api, app);
    await queue(user, QUEUED);
    const queued = await queueOrder(user);
    const last = queued[queued.length - 1]!;

    // The race, held open: A's replay reads its second page only once B's replay has sent the
    // last queued message (and so marked all it sent delivered), as a slow store or a long queue
    // could make it.
    const messages = server.app.ctx.store.messages;
    const readQueue = messages.queue.bind(messages);
    let releaseA!: () => void;
    const bDone = new Promise<void>((resolve) => (releaseA = resolve));
    let firstCaller: number | undefined;
    let heldA = false;
    messages.queue = async (appId, userId, since, after, max) => {
      firstCaller ??= since;
      if (since === firstCaller && after !== undefined) {
        heldA = true;
        await bDone;
      }
      return readQueue(appId, userId, since, after, max);
    };
    try {
      let b: Promise<Device> | undefined;
      const a = await open(user, (d) => {
        if (d.ids.length === 1) b = open(user, (bd) => bd.ids.includes(last) && releaseA());
      });
      await until(() => b);
      const deviceB = await b!;
      // Stored while both are connected: both get them, once.
      const live = [await sendLive(user, 'live 1'), await sendLive(user, 'live 2')];
      await until(() => a.ids.includes(live[1]!) && live.every((id) => deviceB.ids.includes(id)), 10_000).catch(() => undefined);

      expect(a.ids).toEqual([...queued, ...live]);
      expect(heldA).toBe(true);
      expect(repeats(deviceB.ids)).toEqual([]);
      // B's replay sent what was still queued when it connected (the tail, in order), then the live ones.
      const bQueued = deviceB.ids.filter((id) => !live.includes(id));
      expect(bQueued).toContain(last);
      expect(bQueued).toEqual(queued.slice(queued.length - bQueued.length));
      expect(deviceB.ids.slice(-2).sort()).toEqual([...live].sort());
      await closeAll(a, deviceB);
    } finally {
      messages.queue = readQueue;
      releaseA();
    }
  });
});

describe('a device that drops mid-replay and reconnects', () => {
  it('gets every queued message once across its two connections', async () => {
    const user = await createAnonUser(api, app);
    // Two pages and more: the first connection takes part of the first one.
    await queue(user, 2 * QUEUE_PAGE + 100);
    const queued = await queueOrder(user);

    let dropped!: () => void;
    const closed = new Promise<void>((resolve) => (dropped = resolve));
    const first = await open(user, (d) => {
      if (d.ids.length === 50) d.ws.close();
    });
    first.ws.once('close', () => dropped());
    await closed;
    const second = await open(user);
    const live = await sendLive(user, 'after reconnect');
    await until(() => second.ids.includes(live), 10_000).catch(() => undefined);

    const all = [...first.ids, ...second.ids];
    expect(repeats(all)).toEqual([]);
    expect(all.filter((id) => id !== live).sort()).toEqual([...queued].sort());
    // Each connection's frames are in queue order.
    expect(second.ids.slice(0, -1)).toEqual(queued.slice(queued.length - second.ids.length + 1));
    await closeAll(second);
    expect(await server.app.ctx.store.messages.undelivered([user.user_id], 10_000)).toEqual([]);
  });
});

describe('live messages stored while the replay runs', () => {
  it('follow it in the order they were sent, even when another arrives as they are written', async () => {
    const user = await createAnonUser(api, app);
    const messages = server.app.ctx.store.messages;
    const readQueue = messages.queue.bind(messages);
    const markDelivered = messages.markDelivered.bind(messages);
    // The replay reads the (empty) queue, then waits until two live messages are stored, so both
    // wait for it; then, as the first of them is marked delivered (its frame written), a third is
    // sent.
    let releaseReplay!: () => void;
    const stored = new Promise<void>((resolve) => (releaseReplay = resolve));
    let third: Promise<string> | undefined;
    let queueRead!: () => void;
    const read = new Promise<void>((resolve) => (queueRead = resolve));
    messages.queue = async (appId, userId, since, after, max) => {
      const page = await readQueue(appId, userId, since, after, max);
      queueRead();
      await stored;
      return page;
    };
    try {
      const device = await open(user);
      await read;
      const first = await sendLive(user, 'live 1');
      const second = await sendLive(user, 'live 2');
      messages.markDelivered = async (appId, id, at) => {
        if (id === first && !third) await (third = sendLive(user, 'live 3'));
        return markDelivered(appId, id, at);
      };
      releaseReplay();
      await until(() => third);
      const thirdId = await third!;
      await until(() => device.ids.length >= 3, 10_000).catch(() => undefined);
      expect(device.ids).toEqual([first, second, thirdId]);
      await closeAll(device);
    } finally {
      messages.queue = readQueue;
      messages.markDelivered = markDelivered;
      releaseReplay();
    }
  });
});
