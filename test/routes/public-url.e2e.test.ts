// Without PUBLIC_URL, a service listening on a port the system chose names itself by that address
// in the links it hands out, over a real socket, whatever Host header the request names
// (http/public-url.ts; the fast tier checks PUBLIC_URL and the other routes: test/http/public-url.test.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { connect } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

it('link/create names the address listened on, not the Host header', async () => {
  const app = await createApp(server.api);
  const user = await createAnonUser(server.api, app);
  const conn = await connect(server.url);
  try {
    const body = '{"minutes":5}';
    await conn.write(
      'POST /1/link/create HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n' +
        `Authorization: OAuth ${user.access_token}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    await conn.closed();
    const [res] = conn.responses();
    expect(res!.status).toBe(200);
    const { link } = JSON.parse(res!.body) as { link: string };
    expect(link).toMatch(new RegExp(`^${server.url.replace(/\./g, '\\.')}/1/share/last\\?geoloqi_token=[\\w-]{7}$`));
  } finally {
    conn.destroy();
  }
});
