// The cross-domain receiver (/js/receiver.html) in a real browser: a page on another origin calls
// the API through it with easyXDM, the way geoloqi-js does, and gets the answers (a success, the
// 409 that geoloqi-js reads as a success, an error).
//
// Nothing of geoloqi-js is committed here: the page below reproduces geoloqi-js 1.0.18's calls
// (source/geoloqi-client.js: easyXDM.noConflict("geoloqi"), a Socket whose remote is
// <api>/js/receiver.html, requests posted as JSON strings, answers read back by callbackId).
// With GEOLOQI_JS set to the path of an unmodified geoloqi.min.js (`.ci/run` sets it when a copy
// of geoloqi-js is on the machine), a second test runs that file itself: the browser routes
// https://api.geoloqi.com, which it calls, to the server under test. Without it, that test is skipped.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { routeOriginTo, unmodifiedGeoloqiJs } from '../helpers/geoloqi-js.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;
let browser: Browser;
let site: Server;
let siteUrl: string;

/** An application's page on its own origin, calling the API the way geoloqi-js does. */
const fixturePage = (apiUrl: string) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>geoloqi-js fixture</title>
<script src="${apiUrl}/js/easyXDM.js"></script>
<script>
  var apiUrl = ${JSON.stringify(apiUrl)};
  var xdm = easyXDM.noConflict('geoloqi');
  var callbacks = {};
  var socket = new xdm.Socket({
    remote: apiUrl + '/js/receiver.html',
    onMessage: function (message, origin) {
      if (origin != apiUrl) return false;
      var payload = JSON.parse(message);
      if (typeof payload.response === 'string') payload.response = JSON.parse(payload.response);
      if (typeof payload.error === 'string') {
        payload.error = payload.error[0] == '{' ? JSON.parse(payload.error) : { error_code: 500, error: 'unknown_error', error_description: payload.error };
      }
      if (typeof callbacks[payload.callbackId] === 'function') callbacks[payload.callbackId](payload.response, payload.error, payload.headers);
    }
  });
  function execute(method, path, args, accessToken) {
    return new Promise(function (resolve) {
      var callbackId = 'g' + (Math.random() * (1 << 30)).toString(16).replace('.', '');
      callbacks[callbackId] = function (response, error, headers) {
        var line = document.createElement('li');
        line.textContent = method + ' ' + path + ' → ' + JSON.stringify(error || response);
        document.getElementById('calls').appendChild(line);
        resolve({ response: response, error: error, headers: headers });
      };
      socket.postMessage(JSON.stringify({
        method: method, path: path, args: args, accessToken: accessToken, callbackId: callbackId,
        sdkVersion: '1.0.18', sdkBuild: 'fixture', packageName: null, packageVersion: null
      }));
    });
  }
</script></head>
<body><h1>An application's page, calling the API through /js/receiver.html</h1><ol id="calls"></ol></body></html>`;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'receiver');
  browser = await launchBrowser();
  // The application's own site: another origin (another port) than the API's.
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(fixturePage(server.url)));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
  await server?.close();
});

type Answer = { response?: any; error?: any; headers?: string };

describe('/js/receiver.html', () => {
  it('carries a page\'s API calls across origins and brings back the answers', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(siteUrl);
      const call = (method: string, path: string, args: unknown, token = '') =>
        page.evaluate(([m, p, a, t]) => (globalThis as any).execute(m, p, a, t), [method, path, args, token] as const) as Promise<Answer>;

      const created = await call('POST', 'user/create_anon', { client_id: app.client_id });
      expect(created.error).toBeUndefined();
      expect(created.response).toMatchObject({ access_token: expect.any(String), user_id: expect.any(String) });
      expect(created.headers).toMatch(/content-type: application\/json/i);
      const token = created.response.access_token as string;

      const profile = await call('GET', 'account/profile', {}, token);
      expect(profile.response).toMatchObject({ user_id: created.response.user_id });

      // A GET's args travel in the query string; a POST's as its JSON body.
      const group = await call('POST', 'group/create', { title: 'Browser game' }, token);
      const info = await call('GET', `group/info/${group.response.group_token}`, { timezone: 'ignored' }, token);
      expect(info.response).toMatchObject({ group_token: group.response.group_token, title: 'Browser game' });

      // A 409 with the object is a success to geoloqi-js; other statuses are errors, in the error shape.
      const layer = await call('POST', 'layer/create', { name: 'L', key: 'dup' }, app.access_token);
      const again = await call('POST', 'layer/create', { name: 'L', key: 'dup' }, app.access_token);
      expect(again.error).toBeUndefined();
      expect(again.response.layer_id).toBe(layer.response.layer_id);
      const missing = await call('GET', 'group/info/NoSuchGroup1', {}, token);
      expect(missing.response).toBeUndefined();
      expect(missing.error).toMatchObject({ error_code: 404, error: 'not_found' });
      const denied = await call('GET', 'account/profile', {}, 'not-a-token');
      expect(denied.error).toMatchObject({ error_code: 401 });

      await page.locator('#calls li').nth(6).waitFor();
      await screenshot(page, 'receiver-cross-origin-calls');
    } finally {
      await page.close();
    }
  });

  it('refuses a path that leaves /1/, in any spelling, and sends it nowhere', async () => {
    const page = await browser.newPage();
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    try {
      await page.goto(siteUrl);
      const call = (method: string, path: string) =>
        page.evaluate(([m, p]) => (globalThis as any).execute(m, p, {}, ''), [method, path] as const) as Promise<Answer>;
      for (const path of [
        '../health', '../../health', '/../health', 'x/../../health', '..\\health', '%2e%2e/health', '.%2E/health', '%2e%2e%2fhealth',
        '..%2fhealth', '..%5chealth', '../oauth/authorize?client_id=x', '../js/receiver.html', 'https://elsewhere.example/1/layer/list',
      ]) {
        for (const method of ['GET', 'POST']) {
          const answer = await call(method, path);
          expect(answer.response, `${method} ${path}`).toBeUndefined();
          expect(answer.error, `${method} ${path}`).toEqual({ error_code: 400, error: 'invalid_request', error_description: 'The path must name an API method under /1/' });
        }
      }
      // Paths that stay under /1/ still go through, a ../ within it and a query in the path included.
      for (const path of ['group/../layer/list', 'layer/list?count=1']) {
        const listed = await page.evaluate(([p, token]) => (globalThis as any).execute('GET', p, {}, token), [path, app.access_token] as const) as Answer;
        expect(listed.error, path).toBeUndefined();
        expect(listed.response.layers, path).toEqual(expect.any(Array));
      }
      expect(refusedByPolicy).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('works with the unmodified geoloqi-js client', async (ctx) => {
    const client = unmodifiedGeoloqiJs(ctx, 'GEOLOQI_JS');
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      // geoloqi-js calls https://api.geoloqi.com: the browser sends those requests to the server under test.
      await routeOriginTo(page, 'https://api.geoloqi.com', server.url);
      await page.route('http://app.example/geoloqi.min.js', (route) => route.fulfill({ contentType: 'text/javascript', body: client }));
      await page.route('http://app.example/', (route) => route.fulfill({
        contentType: 'text/html',
        body: '<!DOCTYPE html><html><head><script src="/geoloqi.min.js"></script></head><body><h1>Unmodified geoloqi-js</h1><pre id="out"></pre></body></html>',
      }));
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto('http://app.example/');
      expect(errors).toEqual([]);
      const answer = await page.evaluate((clientId) => new Promise<any>((resolve) => {
        const g = (globalThis as any).geoloqi;
        g.execute('POST', 'user/create_anon', { client_id: clientId }, (response: any, error: any) => {
          g.auth = response;
          g.get('account/profile', (profile: any, err: any) => {
            (globalThis as any).document.getElementById('out').textContent = JSON.stringify({ response, error, profile, err }, null, 2);
            resolve({ response, error, profile, err });
          });
        });
      }), app.client_id);
      expect(errors).toEqual([]);
      expect(answer.error).toBeUndefined();
      expect(answer.profile.user_id).toBe(answer.response.user_id);
      await screenshot(page, 'receiver-geoloqi-js');
    } finally {
      await context.close();
    }
  });
});
