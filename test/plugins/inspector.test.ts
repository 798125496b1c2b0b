// The inspector plugin without a browser: the built page and its settings are served at
// /inspector/, and a checkout where the page was never built says so (503) instead of a bare 404.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let built: string;
let empty: string;

beforeAll(async () => {
  built = await mkdtemp(path.join(tmpdir(), 'inspector-built-'));
  empty = await mkdtemp(path.join(tmpdir(), 'inspector-empty-'));
  await writeFile(path.join(built, 'index.html'), '<!doctype html><title>inspector</title><div id="app"></div>');
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
      hysteresis: { leave_margin_min_m: 20, leave_margin_ratio: 0.1, max_accuracy_min_m: 100 },
    });
  });

  it('answers a file it does not have with a 404', async () => {
    const res = await service.app.inject({ method: 'GET', url: '/inspector/assets/nothing.js' });
    expect(res.statusCode).toBe(404);
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
    expect((await service.app.inject({ method: 'GET', url: '/inspector/settings.json' })).json()).toMatchObject({ tile_url: null });
    expect((await service.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
