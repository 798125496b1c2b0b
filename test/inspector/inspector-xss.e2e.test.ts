// Names in the inspector are data, never markup (issue 37, item 1). Script-bearing names are
// planted in every field that reaches the page (the application, a layer, a place, a trigger,
// users' display name, name and username, a geonote's text and place_name, the last two from a
// phone's own user token); then Chromium opens every view that shows them, hovers and clicks the
// places on the maps, and the test checks that no planted script ran (each payload calls a binding
// the test exposes), that each name reads back as the literal text that was stored, and that the
// page's Content-Security-Policy reported no violation for the page's own resources, the tiles of
// a configured tile server included (a real one on another port: another origin).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';
import { buildInspector } from './build.js';

/** A name that runs `__xss(field)` if any part of the page reads it as HTML. */
const planted = (field: string) =>
  `<img src=x onerror="__xss('${field}')"><script>__xss('${field}')</script>"><svg onload="__xss('${field}')">`;
/** The same for a username, which may hold no space. */
const plantedLogin = (field: string) => `"><img/src/onerror=__xss('${field}')>`;

const CENTRE = { latitude: 45.5165, longitude: -122.6764 };
const NOTE_AT = { latitude: 45.5185, longitude: -122.6764 };
const point = (p: { latitude: number; longitude: number }, at: number) => ({
  date: new Date(at).toISOString(),
  location: { position: { ...p, horizontal_accuracy: 10 } },
});

/** A 1×1 PNG, every tile of the tile server. */
const TILE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let tiles: Server;
let tilesServed = 0;
let server: TestServer;
let browser: Browser;
let app: TestApp;
let walker: TestUser;
let layer: { layer_id: string };
let place: { place_id: string };
let trigger: { trigger_id: string };
let note: { trigger_id: string; place_id: string };
const names = {
  app: planted('application'),
  layer: planted('layer'),
  place: planted('place'),
  trigger: planted('trigger'),
  displayName: planted('display_name'),
  name: planted('name'),
  username: plantedLogin('username'),
  noteText: planted('geonote-text'),
  notePlace: planted('geonote-place_name'),
};

async function call(method: 'get' | 'post', path: string, opts: { token?: string; json?: unknown; basic?: [string, string]; bearer?: string; query?: Record<string, unknown> }) {
  const res = await server.api[method](path, opts);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** What the planted scripts called, and what the page's CSP refused, per browser context. */
interface Watched {
  context: BrowserContext;
  ran: string[];
  refused: string[];
}

async function watchedContext(): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 } });
  const ran: string[] = [];
  const refused: string[] = [];
  await context.exposeFunction('__xss', (field: string) => void ran.push(field));
  await context.exposeFunction('__cspViolation', (what: string) => void refused.push(what));
  await context.addInitScript(() => {
    const page = globalThis as any;
    page.document.addEventListener('securitypolicyviolation', (e: any) => page.__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  return { context, ran, refused };
}

async function loggedIn(w: Watched): Promise<Page> {
  const page = await w.context.newPage();
  await page.goto(`${server.url}/inspector/`);
  await page.fill('#token', app.access_token);
  await page.click('button[type=submit]');
  await page.waitForSelector('#logout');
  return page;
}

/** Hovers and clicks every place drawn on the page's map, waiting for each tooltip; returns their texts. */
async function touchPlaces(page: Page): Promise<string[]> {
  const shapes = page.locator('path.place');
  const texts: string[] = [];
  for (let i = 0; i < (await shapes.count()); i++) {
    const shape = shapes.nth(i);
    // Near the circle's western edge: a marker of the user's position may sit on its centre.
    const tip = page.locator('.leaflet-tooltip').last();
    // The map may still move (a late fit to the track) after the pointer arrives: hover again where the shape is now.
    let at = { x: 0, y: 0 };
    for (let tries = 0; ; tries++) {
      const box = (await shape.boundingBox())!;
      at = { x: Math.min(6, box.width / 2), y: box.height / 2 };
      await page.mouse.move(0, 0);
      await shape.hover({ position: at, force: true });
      const shown = await tip.waitFor({ timeout: 3_000 }).then(() => true, (err: unknown) => {
        if (tries >= 5) throw err;
        return false;
      });
      if (shown) break;
    }
    texts.push((await tip.textContent()) ?? '');
    await shape.click({ position: at, force: true });
    await page.mouse.move(0, 0);
  }
  return texts;
}

/**
 * Once every image in the page has loaded or failed, and the events that queued have run: a
 * planted `<img src=x onerror=…>` read as HTML has called the binding by then. (Not "network
 * idle": the user view keeps its live stream open.)
 */
const settled = (page: Page) =>
  page.evaluate(async () => {
    const images: any[] = [...(globalThis as any).document.images];
    await Promise.all(images.map((img) => (img.complete ? undefined : new Promise((done) => {
      img.addEventListener('load', done);
      img.addEventListener('error', done);
    }))));
    await new Promise((done) => setTimeout(done, 0));
  });

beforeAll(async () => {
  buildInspector();
  tiles = createServer((_request, response) => {
    tilesServed++;
    response.writeHead(200, { 'content-type': 'image/png' }).end(TILE);
  });
  await new Promise<void>((listening) => tiles.listen(0, '127.0.0.1', listening));
  const tileUrl = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}/{z}/{x}/{y}.png`;
  server = await startServer({ env: { INSPECTOR_TILE_URL: tileUrl } });
  browser = await launchBrowser();
  app = await createApp(server.api, names.app);
  await call('post', `/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
  layer = await call('post', '/1/layer/create', { token: app.access_token, json: { name: names.layer } });
  place = await call('post', '/1/place/create', { token: app.access_token, json: { ...CENTRE, radius: 100, name: names.place, layer_id: layer.layer_id } });
  trigger = await call('post', '/1/trigger/create', { token: app.access_token, json: { place_id: place.place_id, trigger_on: 'enter', type: 'message', text: names.trigger } });
  walker = await createAnonUser(server.api, app, { display_name: names.displayName, layer_ids: [] });
  await call('post', `/1/layer/subscribe/${layer.layer_id}`, { token: app.access_token, json: { user_id: walker.user_id } });
  // A phone user leaves a geonote: its text and place name come from the end user, not the developer.
  const left: { place_id: string } = await call('post', '/1/geonote/create', { token: walker.access_token, json: { text: names.noteText, place_name: names.notePlace, ...NOTE_AT, radius: 50 } });
  const noteTriggers: { triggers: Array<{ trigger_id: string }> } = await call('get', '/1/trigger/list', { token: app.access_token, query: { place_id: left.place_id } });
  note = { trigger_id: noteTriggers.triggers[0]!.trigger_id, place_id: left.place_id };
  const named = await createAnonUser(server.api, app);
  await call('post', `/1/user/update/${named.user_id}`, { token: app.access_token, json: { display_name: '', name: names.name } });
  await call('post', '/1/user/create', { basic: [app.client_id, app.client_secret], json: { username: names.username, password: 'a password for the test' } });
  // The walker enters the place and then the geonote's, so their pairs have states, timelines and firings.
  const t0 = Date.now() - 120_000;
  await call('post', '/1/location/update', { token: walker.access_token, json: [point({ latitude: CENTRE.latitude - 0.01, longitude: CENTRE.longitude }, t0), point(CENTRE, t0 + 30_000), point(NOTE_AT, t0 + 60_000)] });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((closed) => tiles?.close(closed));
});

describe('names in the inspector are text', () => {
  it('the map view: layers, places, users and the places\' tooltips', async () => {
    const w = await watchedContext();
    const page = await loggedIn(w);
    await page.waitForSelector(`.places li[data-place="${place.place_id}"]`);
    await page.waitForSelector('.users li');
    await expect(page.locator('.layers').textContent()).resolves.toContain(names.layer);
    const placeList = await page.locator('.places').textContent();
    expect(placeList).toContain(names.place);
    const users = await page.locator('.users').textContent();
    for (const n of [names.displayName, names.name, names.username]) expect(users).toContain(n);
    const tips = await touchPlaces(page);
    expect(tips).toContain(names.place);
    await page.waitForSelector('img.leaflet-tile-loaded');
    expect(tilesServed).toBeGreaterThan(0);
    await settled(page);
    expect(w.ran).toEqual([]);
    expect(w.refused).toEqual([]);
    await w.context.close();
  });

  it("the user view: the user's name, the places near them, their pairs and the map", async () => {
    const w = await watchedContext();
    const page = await loggedIn(w);
    await page.goto(`${server.url}/inspector/#/user/${walker.user_id}`);
    await page.waitForSelector(`tr[data-trigger="${trigger.trigger_id}"][data-place="${place.place_id}"]`);
    await expect(page.locator('aside h2').first().textContent()).resolves.toContain(names.displayName);
    const near = await page.locator('.near').textContent();
    expect(near).toContain(names.place);
    const pairs = await page.locator('table.pairs').textContent();
    expect(pairs).toContain(names.trigger);
    expect(pairs).toContain(names.place);
    await touchPlaces(page);
    await settled(page);
    expect(w.ran).toEqual([]);
    expect(w.refused).toEqual([]);
    await w.context.close();
  });

  it('the pair view of a trigger and of a geonote: heading, statechart, timeline and map', async () => {
    const w = await watchedContext();
    const page = await loggedIn(w);
    for (const [t, p, texts] of [
      [trigger.trigger_id, place.place_id, [names.trigger, names.place]],
      [note.trigger_id, note.place_id, [names.noteText, names.notePlace]],
    ] as const) {
      await page.goto(`${server.url}/inspector/#/pair/${walker.user_id}/${t}/${p}`);
      await page.waitForSelector('.statechart');
      await page.waitForSelector('#timeline :is(.timeline, .notice, .muted:not(:has-text("Loading")))');
      const heading = await page.locator('.pair h2').textContent();
      for (const text of texts) expect(heading).toContain(text);
      await expect(touchPlaces(page)).resolves.toEqual([texts[1]]);
    }
    await settled(page);
    expect(w.ran).toEqual([]);
    expect(w.refused).toEqual([]);
    await w.context.close();
  });

  it('the replay view: the pairs table, the firings and the map', async () => {
    const w = await watchedContext();
    const page = await loggedIn(w);
    await page.goto(`${server.url}/inspector/#/replay`);
    const t0 = Date.parse('2024-05-01T10:00:00Z');
    await page.fill('#track', JSON.stringify([point({ latitude: CENTRE.latitude - 0.01, longitude: CENTRE.longitude }, t0), point(CENTRE, t0 + 30_000), point(NOTE_AT, t0 + 60_000)]));
    await page.fill('#replay-user', walker.user_id);
    await page.click('#run-replay');
    await page.waitForSelector('.replay-result');
    await page.focus('#scrub');
    await page.keyboard.press('End');
    // By the end both pairs have moved (the trigger's and the geonote's) and both have fired.
    await page.waitForSelector(`.replay-result tr[data-trigger="${trigger.trigger_id}"]`);
    await page.waitForSelector(`.replay-result tr[data-trigger="${note.trigger_id}"]`);
    await expect(page.locator('#firing-count').textContent()).resolves.toBe('2');
    const result = await page.locator('.replay-result').textContent();
    for (const text of [names.trigger, names.place, names.noteText, names.notePlace]) expect(result).toContain(text);
    const tips = await touchPlaces(page);
    expect(tips).toEqual(expect.arrayContaining([names.place, names.notePlace]));
    await settled(page);
    expect(w.ran).toEqual([]);
    expect(w.refused).toEqual([]);
    await w.context.close();
  });
});
