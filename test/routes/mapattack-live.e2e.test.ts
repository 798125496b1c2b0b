// MapAttack's live map, unmodified (public/mapattack-web.js, named by MAPATTACK_WEB_JS; skipped
// without it), in Chromium against the real server. The page is shaped as MapAttack's game page:
// the Socket.IO client from the streaming host (whose requests and WebSockets the browser sends to
// the server under test), the game's group token in #group_token, and stand-ins for what its other
// scripts provide (jQuery's few calls, updateGame, receivePlayerLocation, receiveCoinData). The map
// subscribes with a `group` event and hears the players and the captures as `group` events.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { routeOriginTo, routeWebSocketsTo, unmodifiedGeoloqiJs } from '../helpers/geoloqi-js.js';
import { startServer, type TestServer } from '../helpers/server.js';

const STREAMING = 'https://subscribe.geoloqi.com';

let server: TestServer;
let api: Api;
let app: TestApp;
let player: TestUser;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
  app = await createApp(api, 'mapattack');
  player = await createAnonUser(api, app);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Stand-ins for jQuery (the calls mapattack-web.js makes) and for game.js's functions, recording what the map is given. */
const STAND_INS = `
window.players = []; window.coins = []; window.updates = 0;
function updateGame() { window.updates++; }
function receivePlayerLocation(p) { window.players.push(p); }
function receiveCoinData(c) { window.coins.push(c); }
function $(target) {
  var el = target === document ? null : document.querySelector(target);
  var api = {
    ready: function (fn) { if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn); else fn(); return api; },
    val: function () { return el ? el.value : undefined; },
    addClass: function (c) { if (el) el.classList.add(c); return api; },
    removeClass: function (c) { if (el) el.classList.remove(c); return api; },
    html: function (h) { if (el) el.innerHTML = h; return api; },
  };
  return api;
}`;

const gamePage = (groupToken: string, userId: string) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>MapAttack</title>
<script src="${STREAMING}/socket.io/socket.io.js"></script>
<script>${STAND_INS}</script>
<script src="/mapattack-web.js"></script>
</head><body>
<input type="hidden" id="group_token" value="${groupToken}"><input type="hidden" id="user_id" value="${userId}">
<div id="player-info"><span class="message"></span></div>
</body></html>`;

describe('MapAttack\'s live map, unmodified', () => {
  it('shows a player\'s moves and a capture sent to the game\'s group', async (ctx) => {
    const script = unmodifiedGeoloqiJs(ctx, 'MAPATTACK_WEB_JS');
    const group = await api.post('/1/group/create', { token: app.access_token, json: { title: 'Game', visibility: 'open', publish_access: 'open' } });
    const token = group.body.group_token as string;
    expect((await api.post(`/1/group/join/${token}`, { token: player.access_token })).status).toBe(200);

    const context = await browser.newContext();
    try {
      await routeOriginTo(context, STREAMING, server.url);
      await routeWebSocketsTo(context, STREAMING.replace('https:', 'wss:'), server.url);
      await context.route('http://mapattack.example/mapattack-web.js', (route) => route.fulfill({ contentType: 'text/javascript', body: script }));
      await context.route('http://mapattack.example/game', (route) => route.fulfill({ contentType: 'text/html', body: gamePage(token, player.user_id) }));
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto('http://mapattack.example/game');

      // The map sends `group` without waiting for an answer: wait until the server holds its socket in the group's room.
      await expect.poll(() => [...server.app.io.of('/').sockets.values()].some((s) => s.rooms.size === 2), { timeout: 10_000 }).toBe(true);
      const move = await api.post('/1/location/update', {
        token: player.access_token,
        json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude: 45.5231, longitude: -122.6765, horizontal_accuracy: 5 } } }],
      });
      expect(move.status).toBe(200);
      await page.waitForFunction(() => (globalThis as any).players.length >= 1, null, { timeout: 10_000 });
      expect(await page.evaluate(() => (globalThis as any).players)).toEqual([{ id: player.user_id, username: player.username, latitude: 45.5231, longitude: -122.6765 }]);

      const capture = { mapattack: { place_id: 'P1', team: 'red', points: 10 } };
      expect((await api.post(`/1/group/message/${token}`, { token: app.access_token, json: capture })).status).toBe(200);
      await page.waitForFunction(() => (globalThis as any).coins.length >= 1, null, { timeout: 10_000 });
      expect(await page.evaluate(() => (globalThis as any).coins)).toEqual([capture.mapattack]);
      expect(await page.locator('#player-info .message').textContent()).toBe('10 points!');
      expect(errors).toEqual([]);
      await screenshot(page, 'mapattack-live-map');
    } finally {
      await context.unrouteAll({ behavior: 'ignoreErrors' });
      await context.close();
    }
  });
});
