// "Log in with Geoloqi" end to end, in a real browser (Debian's Chromium): a tiny web application
// on its own port sends the browser to /oauth/authorize, the user signs in on the real page, the
// browser comes back to the application's redirect_uri with the code and the state, and the
// application exchanges the code at /1/oauth/token and reads /1/account/profile with the token, as
// the ruby Sinatra examples and the PHP getAuthWithCode demo do.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery staple';

let service: TestServer;
let browser: Browser;
let appServer: Server;
let appUrl: string;
let client: { client_id: string; client_secret: string };

/** What the application saw on its callbacks. */
const seen: Array<{ code?: string; state?: string; error?: string; username?: string; stateMatched: boolean }> = [];

/** The web application: /login starts the flow, /callback finishes it on the server side. */
function startWebApp(): Promise<void> {
  const states = new Set<string>();
  appServer = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', appUrl);
      if (url.pathname === '/login') {
        const state = randomBytes(12).toString('hex');
        states.add(state);
        const authorize = new URL('/oauth/authorize', service.url);
        authorize.search = new URLSearchParams({
          response_type: 'code', client_id: client.client_id, redirect_uri: `${appUrl}/callback`, state,
        }).toString();
        res.writeHead(302, { location: authorize.toString() }).end();
        return;
      }
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      const state = url.searchParams.get('state') ?? undefined;
      const visit: (typeof seen)[number] = { state, stateMatched: state !== undefined && states.delete(state) };
      seen.push(visit);
      const error = url.searchParams.get('error');
      if (error) {
        visit.error = error;
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Not signed in: ${error}</h1>`);
      }
      visit.code = url.searchParams.get('code') ?? undefined;
      const token = await fetch(`${service.url}/1/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: visit.code ?? '', redirect_uri: `${appUrl}/callback` }).toString(),
      }).then((r) => r.json() as Promise<{ access_token?: string; error_description?: string }>);
      if (!token.access_token) return void res.writeHead(500).end(`exchange failed: ${token.error_description}`);
      const profile = await fetch(`${service.url}/1/account/profile`, { headers: { authorization: `OAuth ${token.access_token}` } })
        .then((r) => r.json() as Promise<{ username: string }>);
      visit.username = profile.username;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Signed in as ${profile.username}</h1>`);
    })().catch((err: Error) => res.writeHead(500).end(err.message));
  });
  return new Promise((resolve) => appServer.listen(0, '127.0.0.1', () => {
    appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    resolve();
  }));
}

beforeAll(async () => {
  service = await startServer();
  await startWebApp();
  const created = await service.api.post('/admin/app/create', {
    bearer: ADMIN_TOKEN, json: { name: 'Trail Maps', redirect_uris: [`${appUrl}/callback`] },
  });
  expect(created.status).toBe(200);
  client = created.body;
  const user = await service.api.post('/1/user/create', { json: { client_id: client.client_id, username: 'walker', password: PASSWORD } });
  expect(user.status).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (appServer ? appServer.close(r) : r(undefined)));
  await service?.close();
});

describe('log in with the service from a web application', () => {
  it('the app redirects, the user signs in on the page, the app exchanges the code and reads the profile', async () => {
    const context = await browser.newContext({ viewport: { width: 480, height: 600 } });
    const page = await context.newPage();
    await page.goto(`${appUrl}/login`);
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    expect(await page.locator('.app').textContent()).toBe('Trail Maps');
    await screenshot(page, 'oauth-authorize');

    // A wrong password keeps the user on the page, told why.
    await page.fill('#username', 'walker');
    await page.fill('#password', 'not the password');
    await page.click('button[value="allow"]');
    await page.locator('.error').waitFor();
    expect(await page.locator('.error').textContent()).toBe('The username or password is incorrect.');
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    await screenshot(page, 'oauth-authorize-wrong-password');

    await page.fill('#password', PASSWORD);
    await page.click('button[value="allow"]');
    await page.waitForURL((u) => u.href.startsWith(`${appUrl}/callback`));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Signed in as walker');
    await screenshot(page, 'oauth-signed-in');
    const visit = seen.at(-1)!;
    expect(visit).toMatchObject({ stateMatched: true, username: 'walker' });
    expect(visit.code).toBeTruthy();
    await context.close();
  });

  it('deny brings the user back to the app with access_denied and the state', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${appUrl}/login`);
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    await page.click('button[value="deny"]');
    await page.waitForURL((u) => u.href.startsWith(`${appUrl}/callback`));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Not signed in: access_denied');
    expect(seen.at(-1)).toMatchObject({ error: 'access_denied', stateMatched: true });
    await context.close();
  });

  it('the page cannot be framed by another site', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorize = `${service.url}/oauth/authorize?response_type=code&client_id=${client.client_id}`;
    const served = page.waitForResponse((r) => r.url().startsWith(`${service.url}/oauth/authorize`));
    await page.setContent(`<iframe id="f" src="${authorize}" width="400" height="400"></iframe>`);
    expect((await served).status()).toBe(200);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.waitForLoadState('load');
    // Served, but blocked by frame-ancestors and X-Frame-Options: the frame never shows the form.
    const hasForm = await frame.locator('#password').count();
    expect(hasForm).toBe(0);
    await context.close();
  });
});
