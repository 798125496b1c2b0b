// Popup sign-in (mode=popup, geoloqi-js's authenticateWithPopup) in Chromium: an application's page
// opens /oauth/authorize in a popup, the user signs in there, and the popup posts the answer to the
// page that opened it, `{"oauth":{"auth":"access_token=…&token_type=bearer&…"}}` (what geoloqi-js
// reads, as it reads a redirect's fragment), to the registered redirect URI's origin only, then
// closes. The first tests use a small page of our own; the last runs the unmodified geoloqi-js
// (GEOLOQI_JS, skipped without it), whose OAuth origin https://geoloqi.com the browser sends here.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { routeOriginTo, unmodifiedGeoloqiJs } from '../helpers/geoloqi-js.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery staple';
const APP_ORIGIN = 'http://app.example';

let service: TestServer;
let browser: Browser;
let client: { client_id: string };

beforeAll(async () => {
  service = await startServer();
  const created = await service.api.post('/admin/app/create', {
    bearer: ADMIN_TOKEN, json: { name: 'Popup Maps', redirect_uris: [`${APP_ORIGIN}/`] },
  });
  expect(created.status).toBe(200);
  client = created.body;
  const user = await service.api.post('/1/user/create', { json: { client_id: client.client_id, username: 'hiker', password: PASSWORD } });
  expect(user.status).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** A context whose `origin` serves `body` at `/` (and `extra` paths). */
async function siteContext(origin: string, body: string, extra: Record<string, string> = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 700, height: 500 } });
  for (const [path, script] of Object.entries(extra)) {
    await context.route(`${origin}${path}`, (route) => route.fulfill({ contentType: 'text/javascript', body: script }));
  }
  await context.route(`${origin}/`, (route) => route.fulfill({ contentType: 'text/html', body }));
  return context;
}

/** A page that records the messages it is posted. */
const listeningPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Opener</title><script>
  window.received = [];
  window.addEventListener('message', function (e) { window.received.push({ origin: e.origin, data: e.data }); });
</script></head><body><h1>The application's page</h1></body></html>`;

const authorizeUrl = (extra: Record<string, string> = {}) =>
  `${service.url}/oauth/authorize?${new URLSearchParams({ response_type: 'token', client_id: client.client_id, mode: 'popup', state: 's1', ...extra })}`;

/** Opens the authorize page in a popup of `page` and fills its form; resolves with the popup once the decision is sent. */
async function signInThroughPopup(page: Page, url: string, decision: 'allow' | 'deny', open = (u: string) => page.evaluate((x) => void (globalThis as any).open(x, '_geoloqi_auth_popup', 'height=500,width=700'), u)) {
  const [popup] = await Promise.all([page.waitForEvent('popup'), open(url)]);
  await popup.waitForLoadState();
  await popup.locator('#username').fill('hiker');
  await popup.locator('#password').fill(PASSWORD);
  const closed = popup.waitForEvent('close');
  await popup.locator(`button[value="${decision}"]`).click();
  return { popup, closed };
}

describe('mode=popup', () => {
  it('posts the token to the opener, from a page whose CSP allows only its own script, then closes', async () => {
    const context = await siteContext(APP_ORIGIN, listeningPage);
    try {
      const page = await context.newPage();
      await page.goto(`${APP_ORIGIN}/`);
      const answers: Array<Record<string, string>> = [];
      context.on('response', async (res) => {
        if (res.url().startsWith(`${service.url}/oauth/authorize`) && res.request().method() === 'POST') answers.push(await res.allHeaders());
      });
      const { closed } = await signInThroughPopup(page, authorizeUrl(), 'allow');
      await closed;
      const [message] = await page.waitForFunction(() => (globalThis as any).received.length > 0 && (globalThis as any).received).then((h) => h.jsonValue());
      expect(message.origin).toBe(service.url);
      const payload = JSON.parse(message.data);
      expect(Object.keys(payload)).toEqual(['oauth']);
      const auth = new URLSearchParams(payload.oauth.auth);
      expect(auth.get('token_type')).toBe('bearer');
      expect(auth.get('state')).toBe('s1');
      expect(Number(auth.get('expires_in'))).toBeGreaterThan(0);
      const profile = await service.api.get('/1/account/profile', { token: auth.get('access_token')! });
      expect(profile.body).toMatchObject({ username: 'hiker' });

      const csp = answers[0]?.['content-security-policy'] ?? '';
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(answers[0]?.['x-frame-options']).toBe('DENY');
    } finally {
      await context.close();
    }
  });

  it('posts a denial as {"oauth":{"error":"access_denied"}}', async () => {
    const context = await siteContext(APP_ORIGIN, listeningPage);
    try {
      const page = await context.newPage();
      await page.goto(`${APP_ORIGIN}/`);
      const { closed } = await signInThroughPopup(page, authorizeUrl(), 'deny');
      await closed;
      const [message] = await page.waitForFunction(() => (globalThis as any).received.length > 0 && (globalThis as any).received).then((h) => h.jsonValue());
      expect(JSON.parse(message.data)).toMatchObject({ oauth: { error: 'access_denied', state: 's1' } });
    } finally {
      await context.close();
    }
  });

  it('posts nothing to an opener of another origin than the redirect URI\'s', async () => {
    const context = await siteContext('http://elsewhere.example', listeningPage);
    try {
      const page = await context.newPage();
      await page.goto('http://elsewhere.example/');
      const { closed } = await signInThroughPopup(page, authorizeUrl(), 'allow');
      await closed;
      // Posted messages arrive in order: one the page posts itself after the popup closed comes
      // after anything the popup posted. Only it arrives: the browser dropped the popup's, whose
      // target origin is the redirect URI's.
      await page.evaluate(() => (globalThis as any).postMessage('after the popup', '*'));
      await page.waitForFunction(() => (globalThis as any).received.length > 0);
      expect(await page.evaluate(() => (globalThis as any).received)).toEqual([{ origin: 'http://elsewhere.example', data: 'after the popup' }]);
    } finally {
      await context.close();
    }
  });

  it('signs in the unmodified geoloqi-js with authenticateWithPopup()', async (ctx) => {
    const script = unmodifiedGeoloqiJs(ctx, 'GEOLOQI_JS');
    const context = await siteContext(APP_ORIGIN, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>geoloqi-js popup</title>
<script src="/geoloqi.min.js"></script></head><body><h1>Unmodified geoloqi-js</h1><pre id="out"></pre></body></html>`, { '/geoloqi.min.js': script });
    try {
      // geoloqi-js names https://api.geoloqi.com (its API) and https://geoloqi.com (its sign-in page).
      await routeOriginTo(context, 'https://api.geoloqi.com', service.url);
      await routeOriginTo(context, 'https://geoloqi.com', service.url);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${APP_ORIGIN}/`);
      await page.evaluate((id) => (globalThis as any).geoloqi.init({ client_id: id }), client.client_id);
      expect(await page.evaluate(() => (globalThis as any).geoloqi.logged_in())).toBe(false);

      const { popup, closed } = await signInThroughPopup(page, '', 'allow', () => page.evaluate(() => (globalThis as any).geoloqi.authenticateWithPopup()));
      expect(new URL(popup.url()).origin).toBe('https://geoloqi.com');
      await closed;
      await page.waitForFunction(() => (globalThis as any).geoloqi.logged_in());
      const token = await page.evaluate(() => (globalThis as any).geoloqi.auth.access_token as string);
      expect(token).toEqual(expect.any(String));
      const profile = await page.evaluate(() => new Promise<any>((resolve) => (globalThis as any).geoloqi.get('account/profile', (response: any, error: any) => {
        (globalThis as any).document.getElementById('out').textContent = JSON.stringify(error ?? response, null, 2);
        resolve({ response, error });
      })));
      expect(profile.error).toBeUndefined();
      expect(profile.response).toMatchObject({ username: 'hiker' });
      expect(errors).toEqual([]);
      await screenshot(page, 'oauth-popup-geoloqi-js');
    } finally {
      await context.unrouteAll({ behavior: 'ignoreErrors' });
      await context.close();
    }
  });
});
