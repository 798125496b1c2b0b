// message/send, message/list and the live stream (GET /1/stream) end to end over real HTTP and a
// real WebSocket: queued messages arrive on connect, oldest first, then live ones; delivery is
// recorded; recipients are limited to the caller's application.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { until } from '../delivery/helpers.js';

let server: TestServer;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startServer({ delivery: { pollMs: 50, livePollMs: 100 } });
  api = new Api(server.url);
  app = await createApp(api, 'messaging');
});
afterAll(async () => {
  await server?.close();
});

const send = (token: string, json: Record<string, unknown>) => api.post('/1/message/send', { token, json });

interface Frame {
  type: string;
  message: { message_id: string; text: string; url: string; date: string; date_ts: number; delivered: number; layer_id?: string };
}

/** Opens a stream and collects its frames. */
async function connect(token: string, how: 'header' | 'query' = 'header') {
  const wsUrl = server.url.replace(/^http/, 'ws') + '/1/stream' + (how === 'query' ? `?access_token=${encodeURIComponent(token)}` : '');
  const ws = new WebSocket(wsUrl, how === 'header' ? { headers: { authorization: `OAuth ${token}` } } : {});
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const waitFor = async (n: number) => {
    const end = Date.now() + 5_000;
    while (frames.length < n) {
      if (Date.now() > end) throw new Error(`expected ${n} frames, got ${frames.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return frames;
  };
  const close = () => new Promise<void>((r) => {
    ws.once('close', () => r());
    ws.close();
  });
  return { ws, frames, waitFor, close };
}

describe('message/send', () => {
  it('answers the reference shape and stores the message for message/list', async () => {
    const user = await createAnonUser(api, app);
    const res = await send(app.access_token, { user_id: user.user_id, text: 'Welcome to Powells', url: 'https://powells.example/deal' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok', username: user.username, user_id: user.user_id, message_id: expect.any(String) });
    const list = await api.get('/1/message/list', { token: user.access_token });
    expect(list.status).toBe(200);
    expect(list.body.messages).toEqual([{
      message_id: res.body.message_id, type: 'message', date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
      date_ts: expect.any(Number), text: 'Welcome to Powells', url: 'https://powells.example/deal', delivered: 0,
    }]);
    expect(list.body.paging).toEqual({ limit: 25, total: 1 });
  });

  it('a user token messages itself by default; form bodies work too', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.post('/1/message/send', { token: user.access_token, form: { text: 'note to self' } });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.user_id);
  });

  it('accepts text longer than 140 characters and a layer of the application', async () => {
    const user = await createAnonUser(api, app);
    const text = 'x'.repeat(500);
    const res = await send(app.access_token, { user_id: user.user_id, text, layer_id: app.default_layer_id });
    expect(res.status).toBe(200);
    const list = await api.get('/1/message/list', { token: app.access_token, query: { user_id: user.user_id } });
    expect(list.body.messages[0]).toMatchObject({ text, layer_id: app.default_layer_id });
  });

  it('refuses bad input and recipients outside the application', async () => {
    const user = await createAnonUser(api, app);
    const other = await createApp(api, 'another');
    const stranger = await createAnonUser(api, other);

    const noUser = await send(app.access_token, { text: 'hi' });
    expect(noUser.status).toBe(400);
    expectErrorShape(noUser.body, 400, 'missing_input');
    const noText = await send(app.access_token, { user_id: user.user_id });
    expect(noText.status).toBe(400);
    expectErrorShape(noText.body, 400, 'missing_input');
    const blank = await send(app.access_token, { user_id: user.user_id, text: '   ' });
    expectErrorShape(blank.body, 400, 'missing_input');

    // Another application's user is reported exactly as a missing one.
    const foreign = await send(app.access_token, { user_id: stranger.user_id, text: 'hi' });
    expect(foreign.status).toBe(404);
    expectErrorShape(foreign.body, 404, 'not_found');
    expect((await send(app.access_token, { user_id: 'nobody', text: 'hi' })).body).toEqual(foreign.body);
    const foreignLayer = await send(app.access_token, { user_id: user.user_id, text: 'hi', layer_id: other.default_layer_id });
    expectErrorShape(foreignLayer.body, 404, 'not_found');
    // A user token cannot message another user.
    expect((await send(user.access_token, { user_id: stranger.user_id, text: 'hi' })).status).toBe(404);
    const noToken = await api.post('/1/message/send', { json: { text: 'hi' } });
    expect(noToken.status).toBe(401);
  });
});

describe('message/list', () => {
  it('is newest first and paged', async () => {
    const user = await createAnonUser(api, app);
    for (const text of ['one', 'two', 'three']) {
      await send(app.access_token, { user_id: user.user_id, text });
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await api.get('/1/message/list', { token: user.access_token, query: { limit: 2 } });
    expect(first.body.messages.map((m: { text: string }) => m.text)).toEqual(['three', 'two']);
    expect(first.body.paging).toEqual({ limit: 2, total: 3, next_offset: 2 });
    const second = await api.get('/1/message/list', { token: user.access_token, query: { limit: 2, offset: 2 } });
    expect(second.body.messages.map((m: { text: string }) => m.text)).toEqual(['one']);
    expect(second.body.paging).toEqual({ limit: 2, total: 3 });
  });

  it('needs user_id with an application token and hides other applications\' users', async () => {
    const other = await createApp(api, 'other list');
    const stranger = await createAnonUser(api, other);
    expectErrorShape((await api.get('/1/message/list', { token: app.access_token })).body, 400, 'missing_input');
    expectErrorShape((await api.get('/1/message/list', { token: app.access_token, query: { user_id: stranger.user_id } })).body, 404, 'not_found');
  });
});

describe('live stream', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createAnonUser(api, app);
  });

  it('sends queued messages on connect (oldest first), then live ones, and marks them delivered', async () => {
    await send(app.access_token, { user_id: user.user_id, text: 'queued 1' });
    await new Promise((r) => setTimeout(r, 5));
    await send(app.access_token, { user_id: user.user_id, text: 'queued 2' });
    const stream = await connect(user.access_token);
    const queued = await stream.waitFor(2);
    expect(queued.map((f) => [f.type, f.message.text])).toEqual([['message', 'queued 1'], ['message', 'queued 2']]);

    const live = await send(app.access_token, { user_id: user.user_id, text: 'live one', url: 'https://x.example/' });
    const frames = await stream.waitFor(3);
    expect(frames[2]).toMatchObject({ type: 'message', message: { message_id: live.body.message_id, text: 'live one', url: 'https://x.example/' } });

    // delivered_at is written right after the socket took the frame.
    await until(async () => {
      const list = await api.get('/1/message/list', { token: user.access_token });
      return list.body.messages.every((m: { delivered: number }) => m.delivered === 1) && list.body.messages.length === 3;
    });
    await stream.close();

    // Delivered messages are not queued again on the next connect.
    const again = await connect(user.access_token, 'query');
    await send(app.access_token, { user_id: user.user_id, text: 'after reconnect' });
    expect((await again.waitFor(1)).map((f) => f.message.text)).toEqual(['after reconnect']);
    await new Promise((r) => setTimeout(r, 100));
    expect(again.frames).toHaveLength(1);
    await again.close();
  });

  it('writes to every open stream of the user, and to no one else', async () => {
    const u = await createAnonUser(api, app);
    const bystander = await createAnonUser(api, app);
    const a = await connect(u.access_token);
    const b = await connect(u.access_token, 'query');
    const c = await connect(bystander.access_token);
    await send(app.access_token, { user_id: u.user_id, text: 'to both' });
    expect((await a.waitFor(1))[0].message.text).toBe('to both');
    expect((await b.waitFor(1))[0].message.text).toBe('to both');
    await new Promise((r) => setTimeout(r, 100));
    expect(c.frames).toHaveLength(0);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('picks up messages stored behind its back (another node) by polling', async () => {
    const u = await createAnonUser(api, app);
    const stream = await connect(u.access_token);
    // Written straight to the store, as another API node would: no live push from this process.
    await server.app.ctx.store.messages.insert({ _id: 'from-elsewhere', app_id: app.application_id, user_id: u.user_id, text: 'elsewhere', url: '', date: Date.now() });
    expect((await stream.waitFor(1))[0].message.text).toBe('elsewhere');
    await stream.close();
  });

  it('refuses the upgrade without a valid user token', async () => {
    const wsUrl = server.url.replace(/^http/, 'ws') + '/1/stream';
    const statusOf = (headers: Record<string, string>, url = wsUrl) => new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('open', () => reject(new Error('upgrade should have been refused')));
      ws.once('error', () => undefined);
    });
    expect(await statusOf({})).toBe(401);
    expect(await statusOf({ authorization: 'OAuth not-a-token' })).toBe(401);
    // An application token is not a phone.
    expect(await statusOf({ authorization: `OAuth ${app.access_token}` })).toBe(403);
  });
});
