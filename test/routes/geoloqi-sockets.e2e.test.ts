// geoloqi-js's streaming client, unmodified (source/geoloqi-sockets.js, named by GEOLOQI_JS_SOCKETS;
// skipped without it), in Chromium against the real server. The page loads it as geoloqi-js's
// demos/socket.html does, after the Socket.IO client of the streaming host
// (https://subscribe.geoloqi.com/socket.io/socket.io.js): the browser sends that host's requests and
// WebSockets to the server under test, which serves its own client there. `new geoloqi.Socket(type,
// token)` then subscribes with `<type>-<token>` (group, user, trip), and a location posted through the API reaches the
// page's `location` callback, parsed.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { Api } from '../helpers/api.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { routeOriginTo, routeWebSocketsTo, unmodifiedGeoloqiJs } from '../helpers/geoloqi-js.js';
import { startServer, type TestServer } from '../helpers/server.js';

const STREAMING = 'https://subscribe.geoloqi.com';

let server: TestServer;
let api: Api;
let app: TestApp;
let alice: TestUser;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'geoloqi-sockets');
  alice = await createAnonUser(api, app);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The page: geoloqi-js's socket demo, with the Socket.IO client from the streaming host. `before` runs between the two scripts. */
const demoPage = (before = '') => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Geoloqi Socket JS Test</title>
<script src="${STREAMING}/socket.io/socket.io.js"></script>
<script>${before}</script>
<script src="/geoloqi-sockets.js"></script>
</head><body><h1>Unmodified geoloqi-sockets.js</h1><ol id="locations"></ol></body></html>`;

async function openDemo(ctx: TestContext, before = ''): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const client = unmodifiedGeoloqiJs(ctx, 'GEOLOQI_JS_SOCKETS');
  const context = await browser.newContext();
  await routeOriginTo(context, STREAMING, server.url);
  await routeWebSocketsTo(context, STREAMING.replace('https:', 'wss:'), server.url);
  await context.route('http://app.example/geoloqi-sockets.js', (route) => route.fulfill({ contentType: 'text/javascript', body: client }));
  await context.route('http://app.example/', (route) => route.fulfill({ contentType: 'text/html', body: demoPage(before) }));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto('http://app.example/');
  return { context, page, errors };
}

/** A long poll may still be in flight through the route: it is dropped with the context. */
async function closeDemo(context: BrowserContext) {
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.close();
}

/** `new geoloqi.Socket(type, token)`, started, its locations collected in the page; resolves once the server holds the subscription. */
async function subscribe(page: Page, type: string, token: string): Promise<void> {
  await page.evaluate(([t, k]) => {
    const w = globalThis as any;
    w.received = [];
    const socket = new w.geoloqi.Socket(t, k);
    socket.events.location = (location: unknown) => {
      w.received.push(location);
      const item = w.document.createElement('li');
      item.textContent = JSON.stringify(location);
      w.document.getElementById('locations').appendChild(item);
    };
    socket.start();
    w.testSocket = socket;
  }, [type, token] as const);
  // The client has no acknowledgement: wait until the server has put the page's socket in a room.
  const id = await page.waitForFunction(() => (globalThis as any).testSocket.socket.id).then((h) => h.jsonValue() as Promise<string>);
  await expect.poll(() => server.app.io.of('/').sockets.get(id)?.rooms.size ?? 0, { timeout: 10_000 }).toBe(2);
}

const received = (page: Page, n: number) =>
  page.waitForFunction((count) => (globalThis as any).received.length >= count, n, { timeout: 10_000 }).then(() =>
    page.evaluate(() => (globalThis as any).received as any[]));

const move = async (user: TestUser, latitude: number, longitude: number) => {
  const res = await api.post('/1/location/update', {
    token: user.access_token,
    json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude, longitude, horizontal_accuracy: 5 } } }],
  });
  expect(res.status).toBe(200);
};

describe('the unmodified geoloqi-js socket client', () => {
  it('receives a group member\'s location, parsed, with `new geoloqi.Socket(\'group\', token)`', async (ctx) => {
    const { context, page, errors } = await openDemo(ctx);
    try {
      const group = await api.post('/1/group/create', { token: app.access_token, json: { visibility: 'open', publish_access: 'open' } });
      const token = group.body.group_token as string;
      expect((await api.post(`/1/group/join/${token}`, { token: alice.access_token })).status).toBe(200);
      await subscribe(page, 'group', token);
      await move(alice, 45.5231, -122.6765);
      const [location] = await received(page, 1);
      expect(location).toMatchObject({ user_id: alice.user_id, username: alice.username, latitude: 45.5231, longitude: -122.6765 });
      // The page's Socket.IO client reached the server over a WebSocket, through the route.
      await page.waitForFunction(() => (globalThis as any).testSocket.socket.io.engine.transport.name === 'websocket', null, { timeout: 10_000 });
      expect(errors).toEqual([]);
      await screenshot(page, 'geoloqi-sockets-group');
    } finally {
      await closeDemo(context);
    }
  });

  it('receives a public user\'s location with `new geoloqi.Socket(\'user\', username)` once the page names its application', async (ctx) => {
    // Usernames are per application here: the socket's handshake names it (its API key). The page
    // gives io.connect that option; geoloqi-sockets.js itself is unchanged.
    const before = `var connect = io.connect;
io.connect = function (url, options) { return connect(url, Object.assign({ query: { client_id: ${JSON.stringify(app.client_id)} } }, options)); };`;
    const { context, page, errors } = await openDemo(ctx, before);
    try {
      const bob = await createAnonUser(api, app);
      expect((await api.post('/1/account/privacy', { token: bob.access_token, json: { public_location: 1 } })).status).toBe(200);
      await subscribe(page, 'user', bob.username);
      await move(bob, 45.6, -122.7);
      const [location] = await received(page, 1);
      expect(location).toMatchObject({ user_id: bob.user_id, latitude: 45.6, longitude: -122.7 });
      expect(errors).toEqual([]);
    } finally {
      await closeDemo(context);
    }
  });

  it('receives a trip\'s locations with `new geoloqi.Socket(\'trip\', token)` for the token of trip/create', async (ctx) => {
    const { context, page, errors } = await openDemo(ctx);
    try {
      const trip = await api.post('/1/trip/create', { token: alice.access_token, json: { description: 'Walking over', minutes: 20 } });
      expect(trip.status).toBe(200);
      await subscribe(page, 'trip', trip.body.token);
      await move(alice, 45.5122, -122.6587);
      const [location] = await received(page, 1);
      expect(location).toMatchObject({ user_id: alice.user_id, latitude: 45.5122, longitude: -122.6587 });
      expect(errors).toEqual([]);
      await screenshot(page, 'geoloqi-sockets-trip');
    } finally {
      await closeDemo(context);
    }
  });
});
