// Requests the HTTP parser refuses before any route runs are answered in the documented error
// shape (http/client-errors.ts): a request line or headers over the limit is a 431
// request_header_fields_too_large, broken framing a 400 invalid_request, as is an HTTP/1.1 request
// without a Host header (http/host-header.ts). Over real sockets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADER_SIZE } from '../../src/http/client-errors.js';
import { expectErrorShape } from '../helpers/fixtures.js';
import { connect } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** Sends `request` on a fresh connection; the one answer, once the server has closed the connection. */
async function answerTo(request: string) {
  const conn = await connect(server.url);
  try {
    await conn.write(request).catch(() => undefined); // the server may close before all is written
    await conn.closed();
    const responses = conn.responses();
    expect(responses).toHaveLength(1);
    const [res] = responses;
    expect(res!.headers['content-type']).toMatch(/^application\/json/);
    return { status: res!.status, headers: res!.headers, body: JSON.parse(res!.body) };
  } finally {
    conn.destroy();
  }
}

const big = 'a'.repeat(MAX_HEADER_SIZE + 100);

describe('431 request_header_fields_too_large', () => {
  it.each([
    ['a header', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`],
    ['many headers', `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(50)}\r\n`).join('')}\r\n`],
    ['the URL', `GET /health?q=${big} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ])('too large: %s', async (_what, request) => {
    const res = await answerTo(request);
    expect(res.status).toBe(431);
    expectErrorShape(res.body, 431, 'request_header_fields_too_large');
    expect(res.body.error_description).toMatch(new RegExp(`larger than ${MAX_HEADER_SIZE} bytes`));
  });
});

describe('400 invalid_request for broken framing', () => {
  it.each([
    ['a request line that is not HTTP', 'HELLO WORLD\r\n\r\n'],
    ['a Content-Length that is not a number', 'POST /1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
    ['a chunk size that is not hex', 'POST /1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['a header without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n'],
  ])('%s', async (_what, request) => {
    const res = await answerTo(request);
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_request');
  });
});

describe('400 invalid_request for an HTTP/1.1 request without a Host header', () => {
  it.each([
    ['a GET', 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['an API method', 'GET /1/trigger/list?offset=99999999999999999999 HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['a POST with a body', 'POST /1/oauth/token HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'],
    ['a path no route has', 'GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n'],
  ])('%s', async (_what, request) => {
    const res = await answerTo(request);
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_request');
    expect(res.body.error_description).toContain('Host header');
  });

  it('while HTTP/1.0, which had no Host header, is served without one', async () => {
    const res = await answerTo('GET /health HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
  });
});

it('a well-formed request on the same server is answered as ever', async () => {
  const conn = await connect(server.url);
  try {
    await conn.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await conn.received('\r\n\r\n{');
    expect(conn.responses()[0]?.status).toBe(200);
  } finally {
    conn.destroy();
  }
});
