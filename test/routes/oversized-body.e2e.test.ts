// A body over the 2 MiB limit is a 413 payload_too_large the client can read, whether its length
// is declared or it is chunked, and also for a client that reads only after it sent the whole body
// (the server used to close the connection mid-body: the client saw EPIPE or ECONNRESET).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../src/app.js';
import { Api } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { connect } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'oversized');
});
afterAll(() => server?.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the body in 64 KiB pieces, pausing once past the limit (the server has refused it by then), and reads only at the end. */
async function postOversized(path: string, chunked: boolean) {
  const body = Buffer.from(JSON.stringify({ latitude: 45.5, longitude: -122.6, radius: 100, type: 'message', text: 'hi', extra: { big: 'x'.repeat(BODY_LIMIT + 512 * 1024) } }));
  const conn = await connect(server.url);
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`;
  await conn.write(`POST ${path} HTTP/1.1\r\nHost: t\r\nAuthorization: OAuth ${app.access_token}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`);
  let paused = false;
  for (let at = 0; at < body.length; at += 65536) {
    const piece = body.subarray(at, at + 65536);
    await conn.write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
    if (!paused && at > BODY_LIMIT) {
      paused = true;
      await pause(300);
    }
  }
  if (chunked) await conn.write('0\r\n\r\n');
  await conn.closed();
  return { responses: conn.responses(), error: conn.error() };
}

describe('a body over the limit', () => {
  it.each([
    ['/1/place/create', false],
    ['/1/place/create', true],
    ['/1/trigger/create', false],
    ['/1/trigger/create', true],
  ])('POST %s (chunked: %s) is a readable 413 payload_too_large, and nothing is stored', async (path, chunked) => {
    const { responses, error } = await postOversized(path, chunked);
    expect(error).toBeUndefined();
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(413);
    expect(responses[0]!.headers['content-type']).toMatch(/^application\/json/);
    expectErrorShape(JSON.parse(responses[0]!.body), 413, 'payload_too_large');
    expect((await api.get('/1/place/list', { token: app.access_token })).body.places).toEqual([]);
    expect((await api.get('/1/trigger/list', { token: app.access_token })).body.triggers).toEqual([]);
  });

  it('a body declared far too big is refused at once, without waiting for it', async () => {
    const conn = await connect(server.url);
    await conn.write(`POST /1/place/create HTTP/1.1\r\nHost: t\r\nAuthorization: OAuth ${app.access_token}\r\nContent-Type: application/json\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n{"a":`);
    await conn.closed();
    expect(conn.responses()[0]!.status).toBe(413);
    expectErrorShape(JSON.parse(conn.responses()[0]!.body), 413, 'payload_too_large');
  });
});
