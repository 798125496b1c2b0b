// The live stream's store poll exists for messages other nodes store (MongoDB). On the embedded
// store no other process writes, and the poll read every message of every connected user every
// 2 s (2.4 s of main thread per poll with 1,000 users of 1,000 messages): with default settings an
// open stream must not read the store on a timer, and messages still arrive at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'stream-poll');
});
afterAll(async () => {
  await server?.close();
});

describe('live stream on the embedded store', () => {
  it('does not poll the store while a stream is open, and still delivers at once', async () => {
    const user = await createAnonUser(api, app);
    const messages = server.app.ctx.store.messages as unknown as Record<string, (...a: unknown[]) => unknown>;
    const reads = ['get', 'deliveredAt', 'page', 'queue', 'undelivered', 'firstByTrigger', 'sentDates'];
    const originals = new Map(reads.map((name) => [name, messages[name]!]));
    let polls = 0;
    // Every read of the messages while the stream sits idle counts, whatever its shape.
    for (const [name, read] of originals) {
      messages[name] = (...args: unknown[]) => {
        polls++;
        return read.apply(server.app.ctx.store.messages, args);
      };
    }
    try {
      const ws = new WebSocket(server.url.replace(/^http/, 'ws') + '/1/stream', { headers: { authorization: `OAuth ${user.access_token}` } });
      const frames: Array<{ message: { text: string } }> = [];
      ws.on('message', (data) => frames.push(JSON.parse(String(data))));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      // The replay on connect reads the queue; after it, nothing for longer than the poll's 2 s period.
      await new Promise((r) => setTimeout(r, 200));
      const afterReplay = polls;
      await new Promise((r) => setTimeout(r, 2_300));
      expect(polls).toBe(afterReplay);
      const sent = await api.post('/1/message/send', { token: app.access_token, json: { user_id: user.user_id, text: 'now' } });
      expect(sent.status).toBe(200);
      for (let i = 0; i < 50 && frames.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(frames.map((f) => f.message.text)).toEqual(['now']);
      ws.close();
    } finally {
      for (const [name, read] of originals) messages[name] = read;
    }
  });
});
