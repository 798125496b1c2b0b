// GET /1/stream at its edges, over a real server and real sockets:
// - a plain GET (no Upgrade) is a 426 in the error shape, not an empty 404;
// - deleting the user closes their open streams (4401, "user deleted") and refuses new ones (401);
// - an oversized client frame closes the stream with 1009 and is logged as the client's fault
//   (warn, with the user id, never the frame), not as a service error;
// - the service shutting down closes open streams with 1001 (going away), not without a code.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { until } from '../delivery/helpers.js';

let server: TestServer;
let api: Api;
let app: TestApp;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
      cb();
    },
  });
  server = await startServer({ env: { LOG_LEVEL: 'info' }, logStream });
  api = new Api(server.url);
  app = await createApp(api, 'streams');
});
afterAll(async () => {
  await server?.close();
});

const wsUrl = () => server.url.replace(/^http/, 'ws') + '/1/stream';

function open(token: string): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(), { headers: { authorization: `OAuth ${token}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** How the socket closed; fails after 5 s if it stays open. */
const closed = (ws: WebSocket) => new Promise<{ code: number; reason: string }>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the stream stayed open')), 5_000);
  ws.once('close', (code, reason) => {
    clearTimeout(timer);
    resolve({ code, reason: String(reason) });
  });
});

/** The status of a refused upgrade. */
const upgradeStatus = (token: string) => new Promise<number>((resolve, reject) => {
  const ws = new WebSocket(wsUrl(), { headers: { authorization: `OAuth ${token}` } });
  ws.once('unexpected-response', (_req, res) => {
    resolve(res.statusCode ?? 0);
    ws.terminate();
  });
  ws.once('open', () => reject(new Error('upgrade should have been refused')));
  ws.once('error', () => undefined);
});

describe('GET /1/stream without an upgrade', () => {
  it('is a 426 in the error shape that names the missing upgrade', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.get('/1/stream', { token: user.access_token });
    expect(res.status).toBe(426);
    expectErrorShape(res.body, 426, 'upgrade_required');
    expect(res.body.error_description).toMatch(/WebSocket/);
    expect(res.headers.get('upgrade')).toBe('websocket');
    // Credentials are still checked first: no token, no hint about the route.
    expectErrorShape((await api.get('/1/stream')).body, 401);
  });
});

describe('a deleted user\'s streams', () => {
  it('are closed with 4401 "user deleted", and no new one opens', async () => {
    const [gone, kept] = [await createAnonUser(api, app), await createAnonUser(api, app)];
    const [a, b, other] = [await open(gone.access_token), await open(gone.access_token), await open(kept.access_token)];
    const [aClosed, bClosed] = [closed(a), closed(b)];
    let otherClosed = false;
    other.once('close', () => (otherClosed = true));

    expect((await api.post(`/1/user/delete/${gone.user_id}`, { token: app.access_token })).status).toBe(200);
    expect(await aClosed).toEqual({ code: 4401, reason: 'user deleted' });
    expect(await bClosed).toEqual({ code: 4401, reason: 'user deleted' });
    expect(await upgradeStatus(gone.access_token)).toBe(401);

    // The other user's stream is untouched and still delivers.
    const frames: string[] = [];
    other.on('message', (data) => frames.push(String(data)));
    await api.post('/1/message/send', { token: app.access_token, json: { user_id: kept.user_id, text: 'still here' } });
    await until(() => frames.length === 1);
    expect(otherClosed).toBe(false);
    other.close();
  });
});

describe('an oversized client frame', () => {
  it('closes the stream with 1009 and logs a warning with the user id, not an error or the frame', async () => {
    const user = await createAnonUser(api, app);
    const ws = await open(user.access_token);
    const end = closed(ws);
    const marker = 'frame-content-marker';
    ws.send(marker + 'x'.repeat(8192));
    expect((await end).code).toBe(1009);
    const line = await until(() => logLines.find((l) => l.msg === 'stream client sent a bad frame'));
    expect(line).toMatchObject({ level: 40, user_id: user.user_id, close_code: 1009 });
    expect(logLines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(JSON.stringify(logLines)).not.toContain(marker);
  });
});

describe('the service shutting down', () => {
  it('closes open streams with 1001 "going away", so SDKs reconnect', async () => {
    const own = await startServer();
    const ownApi = new Api(own.url);
    const user = await createAnonUser(ownApi, await createApp(ownApi, 'shutdown'));
    const ws = new WebSocket(own.url.replace(/^http/, 'ws') + '/1/stream', { headers: { authorization: `OAuth ${user.access_token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const end = closed(ws);
    await own.close();
    expect(await end).toEqual({ code: 1001, reason: 'server shutting down' });
  });
});
