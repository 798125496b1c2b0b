// The inspector plugin without a browser: the built page and its settings are served at
// /inspector/ under a strict Content-Security-Policy, not to be framed nor read by other origins,
// and a checkout where the page was never built says so (503) instead of a bare 404.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectorHeaders, tileSource } from '../../src/plugins/inspector.js';
import { expectErrorShape } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let built: string;
let empty: string;

beforeAll(async () => {
  built = await mkdtemp(path.join(tmpdir(), 'inspector-built-'));
  empty = await mkdtemp(path.join(tmpdir(), 'inspector-empty-'));
  await writeFile(path.join(built, 'index.html'), '<!doctype html><title>inspector</title><div id="app"></div>');
  await mkdir(path.join(built, 'assets'));
  await writeFile(path.join(built, 'assets', 'index-abc.js'), 'console.log(1)');
});
afterAll(async () => {
  await rm(built, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
});

describe('the inspector page', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startApp({ inspector: { assetsDir: built }, env: { INSPECTOR_TILE_URL: 'https://tiles.example.org/{z}/{x}/{y}.png' } });
  });
  afterAll(async () => service?.close());

  it('is served at /inspector/, and /inspector redirects there', async () => {
    const page = await service.app.inject({ method: 'GET', url: '/inspector/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<div id="app">');
    const bare = await service.app.inject({ method: 'GET', url: '/inspector' });
    expect([301, 302, 308]).toContain(bare.statusCode);
    expect(bare.headers.location).toBe('/inspector/');
  });

  it('tells the page the tile URL and the hysteresis constants', async () => {
    const res = await service.app.inject({ method: 'GET', url: '/inspector/settings.json' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tile_url: 'https://tiles.example.org/{z}/{x}/{y}.png',
      tile_attribution: { text: 'Map tiles: configured source' },
      hysteresis: { leave_margin_min_m: 20, leave_margin_ratio: 0.1, max_accuracy_min_m: 100 },
    });
  });

  it('serves the page, its assets and its settings with a strict CSP, no framing, no sniffing and no CORS', async () => {
    for (const url of ['/inspector/', '/inspector/index.html', '/inspector/assets/index-abc.js', '/inspector/settings.json', '/inspector']) {
      const res = await service.app.inject({ method: 'GET', url, headers: { origin: 'https://elsewhere.example' } });
      expect(res.statusCode, url).toBeLessThan(400);
      const csp = String(res.headers['content-security-policy']);
      const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
      expect(directives.get('default-src'), url).toEqual(["'self'"]);
      expect(directives.get('script-src'), url).toEqual(["'self'"]);
      expect(directives.get('style-src'), url).toEqual(["'self'"]);
      expect(directives.get('frame-ancestors'), url).toEqual(["'none'"]);
      expect(directives.get('object-src'), url).toEqual(["'none'"]);
      expect(directives.get('base-uri'), url).toEqual(["'none'"]);
      // The configured tile server may serve images, and nothing else.
      expect(directives.get('img-src'), url).toEqual(["'self'", 'data:', 'https://tiles.example.org']);
      expect(csp).not.toContain('unsafe');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
    }
    // The API itself stays open to every origin.
    const api = await service.app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://elsewhere.example' } });
    expect(api.headers['access-control-allow-origin']).toBe('*');
  });

  it('caches hashed assets for good and asks for the page again each time', async () => {
    const asset = await service.app.inject({ method: 'GET', url: '/inspector/assets/index-abc.js' });
    expect(asset.headers['cache-control']).toContain('immutable');
    const page = await service.app.inject({ method: 'GET', url: '/inspector/' });
    expect(page.headers['cache-control']).toBe('no-cache');
  });

  it('answers a file it does not have with a 404', async () => {
    const res = await service.app.inject({ method: 'GET', url: '/inspector/assets/nothing.js' });
    expect(res.statusCode).toBe(404);
  });
});

describe('the CSP source of a tile server', () => {
  it("is the template's origin, Leaflet's {s} as a wildcard label, else its scheme alone", () => {
    expect(tileSource('https://tiles.example.org/{z}/{x}/{y}.png')).toBe('https://tiles.example.org');
    expect(tileSource('http://localhost:8080/t/{z}/{x}/{y}.png')).toBe('http://localhost:8080');
    expect(tileSource('https://{s}.tile.example.org/{z}/{x}/{y}.png')).toBe('https://*.tile.example.org');
    expect(tileSource('https://tiles-{s}.example.org/{z}/{x}/{y}.png')).toBe('https:');
    // Nothing of the URL can add a directive to the policy.
    expect(tileSource("https://x.example;script-src 'unsafe-inline'/{z}/{x}/{y}")).toBe('https:');
  });

  it('without a tile URL, images come from the service only', () => {
    expect(inspectorHeaders(undefined)['content-security-policy']).toContain("img-src 'self';");
  });
});

describe('a checkout where the page was not built', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startApp({ inspector: { assetsDir: empty } });
  });
  afterAll(async () => service?.close());

  it('answers 503 saying to run the build, while the API works', async () => {
    for (const url of ['/inspector', '/inspector/', '/inspector/assets/index.js']) {
      const res = await service.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expectErrorShape(res.json(), 503, 'service_unavailable');
      expect(res.json().error_description).toContain('npm run build');
    }
    expect((await service.app.inject({ method: 'GET', url: '/inspector/settings.json' })).statusCode).toBe(200);
    expect((await service.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('the tile source', () => {
  const imgSrc = (csp: string) => csp.split(';').map((d) => d.trim().split(/\s+/)).find(([name]) => name === 'img-src')?.slice(1);

  it("is OpenStreetMap's by default, with its attribution, and the page's images may come from there only", async () => {
    const service = await startApp({ inspector: { assetsDir: built } });
    try {
      const res = await service.app.inject({ method: 'GET', url: '/inspector/settings.json' });
      expect(res.json()).toMatchObject({
        tile_url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
        tile_attribution: { text: '© OpenStreetMap contributors', url: 'https://www.openstreetmap.org/copyright' },
      });
      const page = await service.app.inject({ method: 'GET', url: '/inspector/' });
      expect(imgSrc(String(page.headers['content-security-policy']))).toEqual(["'self'", 'data:', 'https://tile.openstreetmap.org']);
      // Only img-src is widened: scripts, styles and connections stay the service's own.
      expect(String(page.headers['content-security-policy'])).toContain("default-src 'self'; script-src 'self'; style-src 'self';");
      expect(String(page.headers['content-security-policy'])).toContain("connect-src 'self';");
    } finally {
      await service.close();
    }
  });

  it('is none with INSPECTOR_TILE_URL=off: a plain map, images from the service only', async () => {
    const service = await startApp({ inspector: { assetsDir: built }, env: { INSPECTOR_TILE_URL: 'off' } });
    try {
      const res = await service.app.inject({ method: 'GET', url: '/inspector/settings.json' });
      expect(res.json()).toMatchObject({ tile_url: null, tile_attribution: null });
      const page = await service.app.inject({ method: 'GET', url: '/inspector/' });
      expect(imgSrc(String(page.headers['content-security-policy']))).toEqual(["'self'"]);
    } finally {
      await service.close();
    }
  });
});
