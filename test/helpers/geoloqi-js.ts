// Unmodified historical clients for the browser tests. Nothing of theirs is in this repository:
// GEOLOQI_JS names geoloqi-js's geoloqi.min.js, GEOLOQI_JS_SOCKETS its source/geoloqi-sockets.js and
// MAPATTACK_WEB_JS MapAttack's public/mapattack-web.js (`.ci/run` extracts them from copies of
// their repositories when those are on the machine); a test that needs a file that is not named is
// skipped, saying which variable to set.
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import WebSocket from 'ws';
import type { TestContext } from 'vitest';

const FILES = {
  GEOLOQI_JS: "geoloqi-js's geoloqi.min.js",
  GEOLOQI_JS_SOCKETS: "geoloqi-js's source/geoloqi-sockets.js",
  MAPATTACK_WEB_JS: "MapAttack's public/mapattack-web.js",
} as const;

/** The text of an unmodified client file; the test is skipped when its variable is not set. */
export function unmodifiedGeoloqiJs(ctx: TestContext, variable: keyof typeof FILES): string {
  const file = process.env[variable];
  if (!file) {
    return ctx.skip(
      `${variable} is not set: point it at ${FILES[variable]} to run this test, or run .ci/run, which extracts it ` +
        'from copies of the client repositories under CLIENT_MIRRORS (default ../.mirror beside the checkout)',
    );
  }
  return readFileSync(file, 'utf8');
}

/**
 * Sends the browser's requests for `origin` (one geoloqi-js names, such as https://api.geoloqi.com)
 * to the server under test, path and query kept.
 */
export async function routeOriginTo(target: Page | BrowserContext, origin: string, serverUrl: string): Promise<void> {
  await target.route(`${origin}/**`, async (route) => {
    const url = new URL(route.request().url());
    const res = await route.fetch({ url: serverUrl + url.pathname + url.search });
    await route.fulfill({ response: res });
  });
}

/**
 * Relays the page's WebSockets to `origin` (wss://…) to the server under test: Playwright's
 * connectToServer only reaches the URL the page named, so the test opens the connection itself and
 * passes frames both ways.
 */
export async function routeWebSocketsTo(target: Page | BrowserContext, origin: string, serverUrl: string): Promise<void> {
  await target.routeWebSocket((url) => url.origin === origin, (route) => {
    const url = new URL(route.url());
    const upstream = new WebSocket(serverUrl.replace(/^http/, 'ws') + url.pathname + url.search);
    const early: Array<string | Buffer> = [];
    route.onMessage((message) => (upstream.readyState === WebSocket.OPEN ? upstream.send(message) : early.push(message)));
    upstream.on('open', () => {
      for (const message of early.splice(0)) upstream.send(message);
    });
    upstream.on('message', (data: Buffer, binary: boolean) => route.send(binary ? data : data.toString('utf8')));
    upstream.on('close', (code, reason) => void route.close({ code: code === 1005 ? undefined : code, reason: reason.toString() }).catch(() => {}));
    upstream.on('error', () => void route.close({ code: 1011 }).catch(() => {}));
    route.onClose(() => upstream.close());
  });
}
