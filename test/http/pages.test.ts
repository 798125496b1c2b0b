// The service's HTML pages (the OAuth authorize page and geoloqi-js's receiver; the inspector's are
// in test/plugins/inspector.test.ts) are not API answers: no other origin may read them, so they
// carry no Access-Control-Allow-Origin, while every API answer still does. The receiver, which
// applications' pages frame, runs under a CSP of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let service: TestService;
let app: TestApp;
const ORIGIN = 'https://elsewhere.example';

beforeAll(async () => {
  service = await startApp();
  app = await createApp(service.api);
});
afterAll(async () => service?.close());

const get = (url: string) => service.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });

describe('pages send no CORS headers', () => {
  it.each([
    ['the authorize page', () => `/oauth/authorize?response_type=code&client_id=${app.client_id}`],
    ['an authorize request it cannot answer', () => '/oauth/authorize?client_id=nobody'],
    ['the receiver page', () => '/js/receiver.html'],
    ['its script', () => '/js/receiver.js'],
    ['easyXDM', () => '/js/easyXDM.js'],
  ])('%s', async (_what, url) => {
    const res = await get(url());
    expect(res.statusCode).toBeLessThan(500);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a POST of the authorize form has none either, whatever its answer', async () => {
    const res = await service.app.inject({
      method: 'POST', url: '/oauth/authorize', headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `client_id=${app.client_id}`,
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('while API answers, successes and errors, still allow every origin', async () => {
    for (const url of ['/health', `/1/layer/list?access_token=${app.access_token}`, '/1/layer/list', '/1/no/such/method']) {
      expect((await get(url)).headers['access-control-allow-origin'], url).toBe('*');
    }
    const preflight = await service.app.inject({
      method: 'OPTIONS', url: '/1/location/update', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('the receiver page', () => {
  it('runs its own scripts only and calls nothing but the service, and is not sniffed', async () => {
    const res = await get('/js/receiver.html');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe');
    // Applications' pages frame it: framing stays allowed.
    expect(csp).not.toContain('frame-ancestors');
    expect(res.headers['x-frame-options']).toBeUndefined();
    for (const url of ['/js/receiver.html', '/js/receiver.js', '/js/easyXDM.js']) expect((await get(url)).headers['x-content-type-options'], url).toBe('nosniff');
  });
});

describe('the receiver with PUBLIC_URL', () => {
  it('calls /1/ under PUBLIC_URL, which its CSP allows', async () => {
    const service = await startApp({ env: { PUBLIC_URL: 'https://geo.example.com/api' } });
    try {
      const script = (await service.app.inject({ method: 'GET', url: '/js/receiver.js' })).body;
      expect(script).toContain('var api = new URL("https://geo.example.com/api/1/");');
      const page = await service.app.inject({ method: 'GET', url: '/js/receiver.html' });
      expect(page.headers['content-security-policy']).toContain("connect-src 'self' https://geo.example.com;");
    } finally {
      await service.close();
    }
  });

  it('without it, calls the /1/ beside the page, wherever the browser reached it', async () => {
    const service = await startApp({ env: { PUBLIC_URL: '' } });
    try {
      const script = (await service.app.inject({ method: 'GET', url: '/js/receiver.js' })).body;
      expect(script).toContain("var api = new URL('../1/', location.href);");
      const page = await service.app.inject({ method: 'GET', url: '/js/receiver.html' });
      expect(page.headers['content-security-policy']).toContain("connect-src 'self';");
    } finally {
      await service.close();
    }
  });
});
