// The inspector's what-if replay in Chromium against a real server whose application keeps no
// location history: the replay page says what that means, replays a user's recent track from the
// points the service kept (opened from a pair), runs it as if the trigger had a dwell, and tries a
// draft trigger placed by clicking the map, showing the would-be firings and the closest approach.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { buildInspector } from './build.js';

const OFFICE = { latitude: 45.5165, longitude: -122.6764 };
const east = (m: number) => ({ latitude: OFFICE.latitude, longitude: OFFICE.longitude + m / (111_320 * Math.cos((OFFICE.latitude * Math.PI) / 180)) });
const point = (m: number, at: number) => ({ date: new Date(at).toISOString(), location: { position: { ...east(m), horizontal_accuracy: 10 } } });
/** From 500 m west of the office through it to 500 m east, a point every 50 m and 30 s. */
const walk = (t0: number) => Array.from({ length: 21 }, (_, i) => point(-500 + i * 50, t0 + i * 30_000));

let server: TestServer;
let browser: Browser;
let app: TestApp;
let user: TestUser;
let office: { place_id: string };
let welcome: { trigger_id: string };
let steps: ReturnType<typeof walk>;

async function post(path: string, json: unknown, token = app.access_token) {
  const res = await server.api.post(path, { token, json });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function loggedIn(hash: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${server.url}/inspector/`);
  await page.fill('#token', app.access_token);
  await page.click('button[type=submit]');
  await page.waitForSelector('#logout');
  await page.goto(`${server.url}/inspector/${hash}`);
  return page;
}

beforeAll(async () => {
  buildInspector();
  server = await startServer({ env: { INSPECTOR_TILE_URL: 'off' } });
  browser = await launchBrowser();
  // store_history stays off (the default): the service keeps the timeline's points and the last location.
  app = await createApp(server.api, 'what-if demo');
  office = await post('/1/place/create', { ...OFFICE, radius: 100, name: 'Office' });
  welcome = await post('/1/trigger/create', { place_id: office.place_id, trigger_on: 'enter', type: 'message', text: 'Welcome' });
  user = await createAnonUser(server.api, app);
  steps = walk(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  await post('/1/location/update', steps, user.access_token);
  const live = await server.api.get('/1/trigger/history', { token: app.access_token, query: { user_id: user.user_id } });
  if (live.body.history?.length !== 1) throw new Error(`expected one live firing: ${JSON.stringify(live.body)}`);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the inspector\'s what-if replay', () => {
  it('from a pair, replays the user\'s kept points without history, then as if the trigger had a 10 min dwell', async () => {
    const page = await loggedIn(`#/pair/${user.user_id}/${welcome.trigger_id}/${office.place_id}`);
    await page.click('#pair-what-if');
    // The page says the application keeps no history, and what a replay of a user's track runs on.
    await page.waitForSelector('#history-notice[data-history="off"]');
    await expect(page.locator('#history-notice').textContent()).resolves.toMatch(/points behind their decision timeline/);
    await expect(page.locator('#source-kept').isChecked()).resolves.toBe(true);
    await expect(page.locator('#replay-user').inputValue()).resolves.toBe(user.user_id);
    await expect(page.locator('#wi-trigger').inputValue()).resolves.toBe(welcome.trigger_id);

    // As stored: the kept points give the live firing, and the answer says which points they were.
    await page.click('#run-replay');
    await page.waitForSelector('#track-source[data-kind="timeline"]');
    const replayed = Number(await page.locator('.replay-result').getAttribute('data-points'));
    expect(replayed).toBeGreaterThan(1);
    expect(replayed).toBeLessThan(steps.length);
    await expect(page.locator('#track-source').textContent()).resolves.toMatch(/store_history is off/);
    await expect(page.locator('#would-fire-count').textContent()).resolves.toBe('1');
    await page.waitForSelector(`#would-fire li[data-trigger="${welcome.trigger_id}"][data-event="enter"]`);
    await expect(page.locator(`#closest li[data-place="${office.place_id}"]`).textContent()).resolves.toMatch(/^Office: Came .* inside the 100 m radius\.$/);

    // As if the trigger waited for a 10 minute dwell: the visit (about 2 min inside) is too short.
    await page.fill('#wi-dwell', '600');
    await page.click('#run-replay');
    await page.waitForSelector('#whatif-applied');
    await expect(page.locator('#whatif-applied').textContent()).resolves.toContain('Welcome');
    await expect(page.locator('#would-fire-count').textContent()).resolves.toBe('0');
    await page.focus('#scrub');
    await page.keyboard.press('End');
    await page.waitForSelector('.replay-result .timeline .entry[data-kind="transition"]');
    await expect(page.locator('.replay-result .timeline').textContent()).resolves.toContain('the visit was too short to fire');
    // Nothing was stored: the trigger still has no dwell.
    const stored = await server.api.get(`/1/trigger/get/${welcome.trigger_id}`, { token: app.access_token });
    expect(stored.body.trigger_after ?? 0).toBe(0);
    await screenshot(page, 'inspector-whatif');
    await page.close();
  });

  it('tries a draft trigger placed by clicking the map, on a pasted track, and says how close the track came to a missed one', async () => {
    const page = await loggedIn('#/replay');
    await page.waitForSelector('#history-notice');
    await page.fill('#track', JSON.stringify(steps));
    await page.click('#what-if summary');
    await page.check('#wi-draft');
    // A click on the map puts the draft's centre there.
    const box = (await page.locator('.map').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.6);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#wi-draft-lat')?.value !== '');
    await expect(page.locator('#wi-draft-lat').inputValue()).resolves.toMatch(/^-?\d+\.\d+$/);
    // Then exact: 300 m east of the office, on the walk, 60 m wide.
    const at = east(300);
    await page.fill('#wi-draft-lat', String(at.latitude));
    await page.fill('#wi-draft-lon', String(at.longitude));
    await page.fill('#wi-draft-radius', '60');
    await page.click('#run-replay');
    await page.waitForSelector('#would-fire li[data-trigger="draft-trigger-1"]');
    await expect(page.locator('#would-fire-count').textContent()).resolves.toBe('2');
    await expect(page.locator('#would-fire li[data-trigger="draft-trigger-1"]').textContent()).resolves.toContain('draft place');

    // The office made small (20 m) and the draft moved 150 m north of the walk: nothing fires there,
    // and the closest approach says by how much.
    await page.selectOption('#wi-place', office.place_id);
    await page.fill('#wi-radius', '20');
    const off = { latitude: at.latitude + 150 / 111_195, longitude: at.longitude };
    await page.fill('#wi-draft-lat', String(off.latitude));
    await page.fill('#wi-draft-lon', String(off.longitude));
    await page.click('#run-replay');
    // The first answer stays on the page until the second arrives: wait for the second's words.
    const missed = page.locator('#closest li[data-place="draft-place-1"]').filter({ hasText: /Passed/ });
    await missed.waitFor();
    await expect(missed.textContent()).resolves.toMatch(/^draft place: Passed 150 m from the centre, 90 m outside the 60 m radius\.$/);
    await expect(page.locator('#would-fire-count').textContent()).resolves.toBe('1');
    await expect(page.locator(`#closest li[data-place="${office.place_id}"]`).textContent()).resolves.toMatch(/inside the 20 m radius/);
    // Bad input comes back as the API's words.
    await page.fill('#wi-radius', '-5');
    await page.click('#run-replay');
    await page.waitForSelector('.error[role=alert]');
    await page.close();
  });

  it('fits a phone 360 px wide: every field of the what-if and its result within the screen', async () => {
    const page = await loggedIn(`#/replay/${user.user_id}/${welcome.trigger_id}/${office.place_id}`, { width: 360, height: 740 });
    await page.waitForSelector('#history-notice');
    await page.check('#wi-draft');
    await page.fill('#wi-draft-lat', String(east(300).latitude));
    await page.fill('#wi-draft-lon', String(east(300).longitude));
    await page.click('#run-replay');
    await page.waitForSelector('#closest li[data-place="draft-place-1"]');
    const overflow = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const wide = [...doc.querySelectorAll('#what-if input, #what-if select, #run-replay, #whatif-result li, #track-source')]
        .filter((el: any) => el.getBoundingClientRect().right > doc.documentElement.clientWidth + 0.5)
        .map((el: any) => el.id || el.tagName);
      return { page: doc.documentElement.scrollWidth - doc.documentElement.clientWidth, wide };
    });
    expect(overflow).toEqual({ page: 0, wide: [] });
    await screenshot(page, 'inspector-whatif-phone');
    await page.close();
  });
});
