// A request that arrives on an open connection while the service shuts down (SIGTERM, app.close())
// is refused with a 503 in the error shape and a Retry-After, not Fastify's own body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape } from '../helpers/fixtures.js';
import { connect } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe('shutdown', () => {
  it('a request arriving while the app closes is a 503 service_unavailable in the error shape', async () => {
    const conn = await connect(server.url);
    // A request in flight (its body not sent yet) keeps the connection open through the close; the
    // server's 100 Continue says it has been routed, before the close began.
    const body = JSON.stringify({ client_id: 'none' });
    await conn.write(`POST /1/user/create_anon HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
    await conn.received('100 Continue');
    const closing = server.app.close();
    // The server stops listening after the preClose hooks (engine, dispatcher) ran: closing is well under way.
    while (server.app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
    // The rest of the first request, and a second one pipelined behind it.
    await conn.write(`${body}GET /1/account/profile HTTP/1.1\r\nHost: t\r\n\r\n`);
    await conn.closed();
    await closing;

    const [first, second] = conn.responses();
    expect(first!.status).toBe(401); // answered normally: it was routed before the close began
    expect(second!.status).toBe(503);
    expect(second!.headers['retry-after']).toBe('1');
    expect(second!.headers['content-type']).toMatch(/^application\/json/);
    expect(second!.headers.connection).toBe('close');
    expectErrorShape(JSON.parse(second!.body), 503, 'service_unavailable');

    await server.restart(); // afterAll closes it again
  });

  it('a POST whose body is still arriving while the app closes gets its 503 after the body, not a reset', async () => {
    const conn = await connect(server.url);
    const body = JSON.stringify({ client_id: 'none' });
    await conn.write(`POST /1/user/create_anon HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
    await conn.received('100 Continue');
    const closing = server.app.close();
    while (server.app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
    // A second POST behind the first: half its body, a pause, the rest; read only at the end.
    const big = JSON.stringify({ client_id: 'none', pad: 'x'.repeat(400_000) });
    await conn.write(`${body}POST /1/user/create_anon HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big.slice(0, 200_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await conn.write(big.slice(200_000));
    await conn.closed();
    await closing;

    expect(conn.error()).toBeUndefined();
    const [first, second] = conn.responses();
    expect(first!.status).toBe(401);
    expect(second!.status).toBe(503);
    expectErrorShape(JSON.parse(second!.body), 503, 'service_unavailable');

    await server.restart();
  });
});
