// The pair view's delivery forensics in a real browser against a real server and a real local
// receiver: a callback the receiver refused (410, so dead at once) shows its failed attempt with the
// status and the start of the answer; the Redeliver button sends it again with the same event id,
// and the page shows the outcome and the new attempt, marked as the inspector's redelivery.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../delivery/helpers.js';
import { Receiver } from '../delivery/receiver.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { buildInspector } from './build.js';

const PLACE = { latitude: 45.5165, longitude: -122.6764 };

let server: TestServer;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  buildInspector();
  server = await startServer({ env: { INSPECTOR_TILE_URL: 'off' } });
  browser = await launchBrowser();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await server?.close();
});

it('lists a failed attempt, redelivers it from the page and shows the delivered attempt', async () => {
  const { api } = server;
  const app = await createApp(api, 'inspector attempts');
  const user = await createAnonUser(api, app);
  const t = await api.post('/1/trigger/create', { token: app.access_token, json: { ...PLACE, radius: 100, type: 'callback', url: receiver.url, trigger_on: 'enter' } });
  expect(t.status).toBe(200);
  receiver.plan([410], 200);
  const point = { date: new Date().toISOString(), location: { position: { ...PLACE, horizontal_accuracy: 5 } } };
  expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
  const eventId = await until(async () => {
    const h = await api.get('/1/trigger/history', { token: app.access_token, query: { trigger_id: t.body.trigger_id } });
    const e = h.body.history[0];
    return e?.delivery?.status === 'dead' ? (e.event_id as string) : undefined;
  });

  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${server.url}/inspector/`);
  await page.fill('#token', app.access_token);
  await page.click('button[type=submit]');
  await page.waitForSelector('#logout');
  await page.goto(`${server.url}/inspector/#/pair/${user.user_id}/${t.body.trigger_id}/${t.body.place_id}`);
  await page.click('#deliveries .show-attempts');

  const rows = page.locator(`.attempts[data-event="${eventId}"] .attempt-list tbody tr`);
  await rows.first().waitFor();
  await expect(rows.count()).resolves.toBe(1);
  await expect(rows.first().getAttribute('data-outcome')).resolves.toBe('dead');
  await expect(rows.first().getAttribute('data-status')).resolves.toBe('410');
  await expect(rows.first().locator('.body-start').textContent()).resolves.toBe('thanks');

  await page.click('.redeliver-button');
  const outcome = page.locator('.redeliver-outcome');
  await outcome.waitFor();
  await expect(outcome.getAttribute('data-result')).resolves.toBe('sent');
  await expect(outcome.textContent()).resolves.toContain('the receiver took it');
  await page.locator('.attempt-list tbody tr:nth-child(2)').waitFor();
  const second = rows.nth(1);
  await expect(second.getAttribute('data-outcome')).resolves.toBe('delivered');
  await expect(second.getAttribute('data-status')).resolves.toBe('200');
  await expect(second.getAttribute('data-redelivery')).resolves.toBe('inspector');
  await expect(second.textContent()).resolves.toContain('redelivery, inspector');
  // The firings table above follows: the callback is delivered now.
  await page.locator('#deliveries table.deliveries tbody tr', { hasText: 'delivered, 2 attempt(s)' }).waitFor();
  await screenshot(page, 'inspector-attempts');

  // The receiver got the same event twice: refused, then taken.
  expect(receiver.received.filter((r) => r.headers['webhook-id'] === eventId).map((r) => r.status)).toEqual([410, 200]);
  await page.close();
});
