// GET /1/inspector/events over a real socket: an application token in the header opens a stream of
// server-sent events; a location/update of the watched user (and of no other) is noted once stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer();
  app = await createApp(server.api, 'watched');
  other = await createApp(server.api, 'other');
});
afterAll(async () => server?.close());

/** Opens the stream and reads its events one at a time. */
async function open(token: string, userId?: string) {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/1/inspector/events${userId ? `?user_id=${userId}` : ''}`, { headers: { authorization: `OAuth ${token}` }, signal: abort.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const next = async (): Promise<{ event: string; data: any }> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue;
        return { event: /^event: (.*)$/m.exec(block)![1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += value;
    }
  };
  return { res, next, close: () => abort.abort() };
}

const point = (latitude: number) => [{ date: new Date().toISOString(), location: { position: { latitude, longitude: 2.35, horizontal_accuracy: 10 } } }];

describe('GET /1/inspector/events', () => {
  it("notes each stored location/update of the watched user, and not another user's", async () => {
    const watched = await createAnonUser(server.api, app);
    const bystander = await createAnonUser(server.api, app);
    const stream = await open(app.access_token, watched.user_id);
    try {
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toContain('text/event-stream');
      expect(await stream.next()).toEqual({ event: 'ready', data: {} });
      expect((await server.api.post('/1/location/update', { token: bystander.access_token, json: point(48.85) })).status).toBe(200);
      expect((await server.api.post('/1/location/update', { token: watched.access_token, json: point(48.86) })).status).toBe(200);
      // The bystander's point came first: had it been noted, it would be the next event.
      expect(await stream.next()).toEqual({ event: 'location', data: { type: 'location', user_id: watched.user_id } });
    } finally {
      stream.close();
    }
  });

  it('without user_id, notes every user of the application', async () => {
    const u = await createAnonUser(server.api, app);
    const stream = await open(app.access_token);
    try {
      await stream.next();
      await server.api.post('/1/location/update', { token: u.access_token, json: point(48.87) });
      expect(await stream.next()).toMatchObject({ event: 'location', data: { user_id: u.user_id } });
    } finally {
      stream.close();
    }
  });

  it("refuses a user token, no token, and another application's user (404, as a missing one)", async () => {
    const u = await createAnonUser(server.api, app);
    const asUser = await server.api.get('/1/inspector/events', { token: u.access_token });
    expect([401, 403]).toContain(asUser.status);
    const none = await server.api.get('/1/inspector/events');
    expect(none.status).toBe(401);
    const foreign = await server.api.get('/1/inspector/events', { token: other.access_token, query: { user_id: u.user_id } });
    const missing = await server.api.get('/1/inspector/events', { token: other.access_token, query: { user_id: 'Mi55ing0' } });
    expectErrorShape(foreign.body, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
  });
});
