// The inspector as a developer uses it, in Chromium at a desktop size (1280×800) and on phones
// (390×844, 360×740), against a real server and a real tile server on another port (the tests run
// offline; INSPECTOR_TILE_URL points at it): tiles load under the page's CSP and the attribution
// shows; a user is found by name, id or recent activity, anonymous ones told apart; the user view
// frames the track and the places near it (not a far one), labels the places, gives each point its
// time and accuracy circle, shows a timeline entry's point when picked and narrows the track to a
// time range; the user and pair views are live; and at every size the map, the statechart and the
// timeline each have room, the statechart's labels clear of each other. Layout is asserted with
// element boxes; screenshots go to reports/screenshots/ (the docs' images come from the desktop ones).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';
import { buildInspector } from './build.js';
import { startTileServer, type TileServer } from './tile-server.js';

const OFFICE = { latitude: 45.5165, longitude: -122.6764 };
const CAFE = { latitude: 45.5185, longitude: -122.6790 };
/** About 11 km north: on the app's map, but not near the walker's track. */
const FAR = { latitude: 45.6165, longitude: -122.6764 };
const east = (c: { latitude: number; longitude: number }, m: number) => ({ latitude: c.latitude, longitude: c.longitude + m / (111_320 * Math.cos((c.latitude * Math.PI) / 180)) });
const point = (p: { latitude: number; longitude: number }, at: number, accuracy = 15) => ({
  date: new Date(at).toISOString(),
  location: { position: { ...p, horizontal_accuracy: accuracy } },
});

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
  { name: 'narrow', width: 360, height: 740 },
] as const;
type Box = { x: number; y: number; width: number; height: number };
const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a: Box, b: Box) => a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.width <= b.x + b.width + 1 && a.y + a.height <= b.y + b.height + 1;

let tiles: TileServer;
let server: TestServer;
let browser: Browser;
let app: TestApp;
let walker: TestUser;
let idler: TestUser;
let grace: TestUser;
let office: { place_id: string };
let welcome: { trigger_id: string };
const WALK = [-400, -300, -200, -120, -60, 0];
const t0 = Date.now() - 10 * 60_000;

async function post(path: string, json: unknown, token = app.access_token) {
  const res = await server.api.post(path, { token, json });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function loggedIn(size: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
  await page.goto(`${server.url}/inspector/`);
  await page.fill('#token', app.access_token);
  await page.click('button[type=submit]');
  await page.waitForSelector('#logout');
  return page;
}

const box = async (page: Page, selector: string): Promise<Box> => {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} has no box`);
  return b;
};

/** The map pane has room at every size: most of the width, and a readable height. */
async function expectRoomyMap(page: Page, size: { width: number; height: number }) {
  const map = await box(page, '.map-pane .map');
  expect(map.width).toBeGreaterThanOrEqual(Math.min(600, size.width - 40));
  expect(map.height).toBeGreaterThanOrEqual(280);
  return map;
}

beforeAll(async () => {
  buildInspector();
  tiles = await startTileServer();
  server = await startServer({ env: { INSPECTOR_TILE_URL: tiles.url, INSPECTOR_TILE_ATTRIBUTION: 'Test tiles © nobody' } });
  browser = await launchBrowser();
  app = await createApp(server.api, 'layout demo');
  const kept = await server.api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
  if (kept.status !== 200) throw new Error(`app/update: ${kept.status}`);
  office = await post('/1/place/create', { ...OFFICE, radius: 80, name: 'Office' });
  const cafe = await post('/1/place/create', { ...CAFE, radius: 40, name: 'Cafe' });
  const far = await post('/1/place/create', { ...FAR, radius: 100, name: 'Far Depot' });
  welcome = await post('/1/trigger/create', { place_id: office.place_id, trigger_on: 'enter', type: 'message', text: 'Welcome' });
  await post('/1/trigger/create', { place_id: cafe.place_id, trigger_on: 'enter', type: 'message', text: 'Coffee?' });
  await post('/1/trigger/create', { place_id: far.place_id, trigger_on: 'enter', type: 'message', text: 'Depot' });
  walker = await createAnonUser(server.api, app);
  idler = await createAnonUser(server.api, app);
  grace = await createAnonUser(server.api, app, { name: 'Grace Hopper' });
  // The walker comes in from the west with a track whose accuracy improves; the idler posted once, earlier.
  await post('/1/location/update', [point(east(OFFICE, -900), t0 - 60_000, 30)], idler.access_token);
  await post('/1/location/update', WALK.map((m, i) => point(east(OFFICE, m), t0 + i * 30_000, 40 - i * 5)), walker.access_token);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await tiles?.close();
});

describe.each(SIZES)('the inspector at $width×$height', (size) => {
  it('draws the tiles of the configured server with their attribution, and the map has room', async () => {
    const page = await loggedIn(size);
    await page.waitForSelector('img.leaflet-tile-loaded');
    expect(tiles.served()).toBeGreaterThan(0);
    const attribution = page.locator('.leaflet-control-attribution');
    await expect(attribution.textContent()).resolves.toContain('Test tiles © nobody');
    expect(await attribution.isVisible()).toBe(true);
    const map = await expectRoomyMap(page, size);
    expect(inside(await box(page, '.leaflet-control-attribution'), map)).toBe(true);
    await page.close();
  });

  it('finds a user by recent activity, by name and by id, telling anonymous users apart', async () => {
    const page = await loggedIn(size);
    // Most recent first: the walker posted last, the idler before; Grace never did.
    await page.waitForSelector(`.users li[data-user="${grace.user_id}"]`);
    const order = await page.locator('.users li').evaluateAll((items) => items.map((li) => li.getAttribute('data-user')));
    expect(order.slice(0, 3)).toEqual([walker.user_id, idler.user_id, grace.user_id]);
    const walkerText = (await page.locator(`.users li[data-user="${walker.user_id}"]`).textContent())!;
    const idlerText = (await page.locator(`.users li[data-user="${idler.user_id}"]`).textContent())!;
    expect(walkerText).toContain('Anonymous');
    expect(walkerText).toContain(walker.user_id.slice(-6));
    expect(walkerText).toMatch(/min ago/);
    expect(walkerText).not.toBe(idlerText);
    await page.fill('#user-search', 'grace');
    await page.waitForFunction((id) => {
      const items = [...(globalThis as any).document.querySelectorAll('.users li[data-user]')];
      return items.length === 1 && items[0].getAttribute('data-user') === id;
    }, grace.user_id);
    await page.fill('#user-search', idler.user_id);
    await page.waitForFunction((id) => [...(globalThis as any).document.querySelectorAll('.users li[data-user]')].map((li) => li.getAttribute('data-user')).join() === id, idler.user_id);
    await page.fill('#user-search', '');
    await page.waitForSelector(`.users li[data-user="${walker.user_id}"]`);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.place-label span').length === 3);
    // Place labels never cover each other: zoomed out to the whole app, the office's and the
    // cafe's would, so one of them gives way.
    const shown = await page.locator('.place-label span').evaluateAll((els) => els.filter((e) => (globalThis as any).getComputedStyle(e).visibility !== 'hidden').map((e) => e.getBoundingClientRect().toJSON()));
    expect(shown.length).toBeGreaterThanOrEqual(2);
    for (const [i, a] of shown.entries()) for (const b of shown.slice(i + 1)) expect(intersects(a, b)).toBe(false);
    const search = await box(page, '#user-search');
    expect(search.width).toBeGreaterThanOrEqual(Math.min(250, size.width - 40));
    await screenshot(page, `inspector-map-${size.name}`);
    await page.close();
  });

  it("frames the user's track and the places near it, labels places, and gives each point its time and accuracy", async () => {
    const page = await loggedIn(size);
    await page.goto(`${server.url}/inspector/#/user/${walker.user_id}`);
    await page.waitForSelector(`tr[data-trigger="${welcome.trigger_id}"][data-place="${office.place_id}"][data-state="inside"]`);
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('path.track-point').length === n, WALK.length);
    expect(await page.locator('path.accuracy').count()).toBeGreaterThanOrEqual(WALK.length);
    const map = await expectRoomyMap(page, size);
    // Office and Cafe are labelled, as text, inside the framed view; the far depot is off it.
    const label = (name: string) => page.locator('.place-label span', { hasText: name }).boundingBox();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.place-label span').length === 3);
    const officeLabel = (await label('Office'))!;
    const cafeLabel = (await label('Cafe'))!;
    expect(intersects(officeLabel, map) && intersects(cafeLabel, map)).toBe(true);
    expect(intersects((await label('Far Depot'))!, map)).toBe(false);
    expect(intersects(officeLabel, cafeLabel)).toBe(false);
    // Every point of the track is in view; hovering one says its time and accuracy.
    // (Polled: the map may still be settling into its frame.)
    const pointsInView = async () => (await page.locator('path.track-point').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))).every((b) => inside(b, map));
    await expect.poll(pointsInView).toBe(true);
    await page.locator('path.track-point').first().hover({ force: true });
    // On a narrow map the first points lie close together: the tooltip is of the point under the
    // pointer, one of the walk's, with its own time and accuracy.
    const tip = (await page.locator('.leaflet-tooltip').last().textContent()) ?? '';
    expect(tip).toMatch(/\d\d:\d\d:\d\d · ±\d+ m/);
    expect(WALK.map((_, i) => 40 - i * 5)).toContain(Number(/±(\d+) m/.exec(tip)![1]));
    // The timeline has room to read, below or beside the map.
    const timeline = await box(page, '#user-timeline');
    expect(timeline.width).toBeGreaterThanOrEqual(Math.min(300, size.width - 40));
    expect(intersects(timeline, map)).toBe(false);
    await screenshot(page, `inspector-user-${size.name}`);
    await page.close();
  });

  it('picking a timeline entry shows its point on the map; the time range narrows the track', async () => {
    const page = await loggedIn(size);
    await page.goto(`${server.url}/inspector/#/user/${walker.user_id}`);
    const entry = page.locator('#user-timeline .entry[data-kind="fired"]').first();
    await entry.waitFor();
    await entry.click();
    const picked = page.locator('path.picked');
    await picked.waitFor();
    // The map pans to it (and on a phone, where the map is above the timeline, comes into view).
    await expect.poll(async () => inside((await picked.boundingBox())!, await box(page, '.map-pane .map'))).toBe(true);
    const map = await box(page, '.map-pane .map');
    expect(map.y).toBeGreaterThanOrEqual(-1);
    expect(map.y).toBeLessThan(size.height);
    // The fired entry's point is the first inside the office (60 m west of its centre), with its time and accuracy.
    await expect(page.locator('.picked-label').textContent()).resolves.toMatch(/\d\d:\d\d:\d\d · ±20 m/);
    await expect(entry.getAttribute('aria-pressed')).resolves.toBe('true');
    // Narrow the track: from its third point on, then up to its fourth.
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('path.track-point').length === n, WALK.length);
    await page.focus('#range-from');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('path.track-point').length === n, WALK.length - 2);
    await page.focus('#range-to');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('path.track-point').length === 2);
    await expect(page.locator('fieldset.range').getAttribute('data-shown')).resolves.toBe('2');
    await expect(page.locator('#range-from-time').textContent()).resolves.toMatch(/\d\d:\d\d:\d\d/);
    await page.close();
  });

  it('the statechart, the pair map and the timeline each have room, and no two edge labels overlap', async () => {
    const page = await loggedIn(size);
    await page.goto(`${server.url}/inspector/#/pair/${walker.user_id}/${welcome.trigger_id}/${office.place_id}`);
    await page.waitForSelector('.statechart .node.current[data-node="inside"]');
    await page.waitForSelector('#timeline .entry');
    const chart = await box(page, '.statechart');
    expect(chart.width).toBeGreaterThanOrEqual(Math.min(330, size.width - 30));
    expect(chart.x + chart.width).toBeLessThanOrEqual(size.width);
    const labels = await page.locator('.statechart .edge text').evaluateAll((els) => els.map((e) => ({ text: e.textContent, ...e.getBoundingClientRect().toJSON() })));
    const nodes = await page.locator('.statechart .node rect').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    expect(labels).toHaveLength(7);
    for (const [i, a] of labels.entries()) {
      // Readable: at least 9 px tall on a phone.
      expect(a.height, a.text!).toBeGreaterThanOrEqual(9);
      for (const b of labels.slice(i + 1)) expect(intersects(a, b), `${a.text} / ${b.text}`).toBe(false);
      for (const n of nodes) expect(intersects(a, n), `${a.text} / a state`).toBe(false);
      expect(inside(a, chart), a.text!).toBe(true);
    }
    const pairMap = await box(page, '.pair-map .map');
    expect(pairMap.width).toBeGreaterThanOrEqual(Math.min(300, size.width - 30));
    expect(pairMap.height).toBeGreaterThanOrEqual(250);
    const timeline = await box(page, '#timeline');
    expect(timeline.width).toBeGreaterThanOrEqual(Math.min(300, size.width - 30));
    // Picking an entry of the pair's timeline shows its point on the pair's map.
    await screenshot(page, `inspector-pair-${size.name}`);
    await page.locator('#timeline .entry').first().click();
    const picked = page.locator('.pair-map path.picked');
    await picked.waitFor();
    await expect.poll(async () => inside((await picked.boundingBox())!, await box(page, '.pair-map .map'))).toBe(true);
    await page.close();
  });
});

describe('the live views', () => {
  it("the user's timeline and the pair view follow the phone's points without a reload", async () => {
    const user = await createAnonUser(server.api, app);
    await post('/1/location/update', [point(east(OFFICE, 5), Date.now() - 60_000)], user.access_token);
    const page = await loggedIn(SIZES[0]);
    await page.goto(`${server.url}/inspector/#/user/${user.user_id}`);
    await page.waitForSelector('[data-live="on"]');
    const fired = '#user-timeline .entry[data-kind="fired"]';
    await page.waitForSelector(fired);
    const before = await page.locator('#user-timeline .entry').count();
    await post('/1/location/update', [point(east(OFFICE, -600), Date.now() - 30_000)], user.access_token);
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('#user-timeline .entry').length > n, before);

    await page.goto(`${server.url}/inspector/#/pair/${user.user_id}/${welcome.trigger_id}/${office.place_id}`);
    await page.waitForSelector('.pair [data-live="on"]');
    await page.waitForSelector('#pair-state[data-state="outside"]');
    const entries = await page.locator('#timeline .entry').count();
    await post('/1/location/update', [point(east(OFFICE, 0), Date.now())], user.access_token);
    await page.waitForSelector('#pair-state[data-state="inside"]');
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('#timeline .entry').length > n, entries);
    await page.waitForSelector('#deliveries table.deliveries tr');
    await page.close();
  });
});
