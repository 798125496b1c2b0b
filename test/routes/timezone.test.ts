// The request's time zone (reference §1, "Timezone"), end to end over real sockets: dates without an
// offset are read, and every date is shown, in the zone of the `Timezone` header
// (`2011-03-26T15:36:00-07:00;;America/Los_Angeles`), else of the profile of the user the request
// acts on (user token, or application token with user_id), else UTC. A header the service cannot
// use never fails a request: it is ignored, except that one naming no zone gives its offset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { openStream } from '../helpers/stream.js';
import { until } from '../delivery/helpers.js';

let server: TestService;
let api: Api;
let app: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'time zones');
  const upd = await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
  expect(upd.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

/** As the Android SDK sends it; Los Angeles is on -08:00 in every date below (November, December). */
const LA = { timezone: '2025-11-22T13:28:00-08:00;;America/Los_Angeles' };
const HOUR = 3_600_000;
/** 2025-11-23T00:00Z, which is 2025-11-22 16:00 in Los Angeles and 05:30 in Kolkata. */
const H0 = Date.UTC(2025, 10, 23, 0);
const ts = (ms: number) => ms / 1000;

const point = (date: unknown, extra: Record<string, unknown> = {}, lat = 45.5, lng = -122.6) => ({
  date, location: { type: 'point', position: { latitude: lat, longitude: lng, horizontal_accuracy: 10 } }, ...extra,
});

/** Ten points an hour apart from H0, their dates in UTC with Z (what SDKs send). */
async function postHourly(user: TestUser) {
  const json = Array.from({ length: 10 }, (_, i) => point(new Date(H0 + i * HOUR).toISOString()));
  const res = await api.post('/1/location/update', { token: user.access_token, json });
  expect(res.status).toBe(200);
}

const history = (token: string, query: Record<string, unknown>, headers?: Record<string, string>) =>
  api.get('/1/location/history', { token, query: { count: 100, ...query }, headers });
const stamps = (res: { body: { points: Array<{ date_ts: number }> } }) => res.body.points.map((p) => p.date_ts);

describe('the profile zone of the user a request acts on', () => {
  it("reads location/history's after and before without an offset in the user's zone, and dates the answer in it", async () => {
    const la = await createAnonUser(api, app, { timezone: 'America/Los_Angeles' });
    await postHourly(la);
    // 2025-11-22T21:28 in Los Angeles is 05:28Z: the points of 06:00Z to 09:00Z follow it (it read 21:28Z, all ten, before).
    const after = await history(la.access_token, { after: '2025-11-22T21:28:00' });
    expect(after.status).toBe(200);
    expect(stamps(after)).toEqual([6, 7, 8, 9].map((h) => ts(H0 + h * HOUR)));
    expect(after.body.points[0].date).toBe('2025-11-22T22:00:00-08:00');
    expect(after.body.timerange).toMatchObject({ from: '2025-11-22T22:00:00-08:00', to: '2025-11-23T01:00:00-08:00' });
    // With the offset written out it is the same instant; Unix seconds are too.
    expect(stamps(await history(la.access_token, { after: '2025-11-22T21:28:00-08:00' }))).toEqual(stamps(after));
    expect(stamps(await history(la.access_token, { after: ts(H0 + 5 * HOUR + 28 * 60_000) }))).toEqual(stamps(after));
    // The application naming the user reads in the user's zone too; the Ruby style without a zone, and minutes only.
    const asApp = await history(app.access_token, { user_id: la.user_id, after: '2025-11-22 17:00:00', before: '2025-11-22T19:00' });
    expect(stamps(asApp)).toEqual([ts(H0 + 2 * HOUR)]);
    expect(asApp.body.points[0].date).toBe('2025-11-22T18:00:00-08:00');
    // A date alone is midnight in the zone: 2025-11-23 in Los Angeles is 08:00Z.
    expect(stamps(await history(la.access_token, { after: '2025-11-23' }))).toEqual([ts(H0 + 9 * HOUR)]);
  });

  it('reads a location/update point date without an offset in the zone, whether the body is read on the main thread or in a shard', async () => {
    const la = await createAnonUser(api, app, { timezone: 'America/Los_Angeles' });
    // A short body (read on the main thread).
    expect((await api.post('/1/location/update', { token: la.access_token, json: [point('2025-11-21T10:00:00')] })).status).toBe(200);
    let last = await api.get('/1/location/last', { token: la.access_token });
    expect(last.body).toMatchObject({ date: '2025-11-21T10:00:00-08:00', date_ts: ts(Date.UTC(2025, 10, 21, 18)) });
    // A long body (read in the engine's shard): dates with an offset or Z as before, the one without in the zone.
    // (Elsewhere than the first point: one at its time and place would be that point sent again.)
    const pad = { raw: { pad: 'x'.repeat(200) } };
    const json = [
      ...Array.from({ length: 10 }, (_, i) => point(`2025-11-21T${String(10 + i).padStart(2, '0')}:00:00+01:00`, pad, 45.51)),
      point('2025-11-21T19:00:00Z', pad),
      point('2025-11-21T12:00:00', pad),
    ];
    expect(JSON.stringify(json).length).toBeGreaterThan(2048);
    expect((await api.post('/1/location/update', { token: la.access_token, json })).status).toBe(200);
    last = await api.get('/1/location/last', { token: la.access_token });
    expect(last.body).toMatchObject({ date: '2025-11-21T12:00:00-08:00', date_ts: ts(Date.UTC(2025, 10, 21, 20)) });
    const all = await history(la.access_token, { after: '2025-11-21T00:00:00Z' });
    expect(stamps(all)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ts(Date.UTC(2025, 10, 21, 9 + i))), ts(Date.UTC(2025, 10, 21, 18)),
      ts(Date.UTC(2025, 10, 21, 19)), ts(Date.UTC(2025, 10, 21, 20)),
    ]);
  });

  it('layer/subscribe answers date_subscribed in the zone, still without an offset', async () => {
    const kol = await createAnonUser(api, app, { timezone: 'Asia/Kolkata' });
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'public', public: 1 } });
    const before = Date.now();
    const own = await api.post(`/1/layer/subscribe/${layer.body.layer_id}`, { token: kol.access_token });
    expect(own.status).toBe(200);
    expect(own.body.date_subscribed).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const wall = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);
    // Kolkata is UTC+05:30 all year.
    expect(Math.abs(wall(own.body.date_subscribed) - (before + 330 * 60_000))).toBeLessThan(60_000);
    // The application naming the user: the user's zone; with the header, the header's (same subscription, same instant).
    const asApp = await api.post(`/1/layer/subscribe/${layer.body.layer_id}`, { token: app.access_token, json: { user_id: kol.user_id } });
    expect(asApp.body.date_subscribed).toBe(own.body.date_subscribed);
    const tokyo = await api.post(`/1/layer/subscribe/${layer.body.layer_id}`, {
      token: app.access_token, json: { user_id: kol.user_id }, headers: { timezone: '2025-11-22T13:28:00+09:00;;Asia/Tokyo' },
    });
    expect(wall(tokyo.body.date_subscribed) - wall(own.body.date_subscribed)).toBe(210 * 60_000);
  });
});

describe('the Timezone header', () => {
  it("overrides the profile's zone for location dates in and out", async () => {
    const tokyo = await createAnonUser(api, app, { timezone: 'Asia/Tokyo' });
    await postHourly(tokyo);
    const after = await history(tokyo.access_token, { after: '2025-11-22T21:28:00' }, LA);
    expect(stamps(after)).toEqual([6, 7, 8, 9].map((h) => ts(H0 + h * HOUR)));
    expect(after.body.points.map((p: { date: string }) => p.date)).toEqual([
      '2025-11-22T22:00:00-08:00', '2025-11-22T23:00:00-08:00', '2025-11-23T00:00:00-08:00', '2025-11-23T01:00:00-08:00',
    ]);
    expect((await api.get('/1/location/last', { token: tokyo.access_token, headers: LA })).body.date).toBe('2025-11-23T01:00:00-08:00');
    // Without the header, the profile's zone.
    expect((await api.get('/1/location/last', { token: tokyo.access_token })).body.date).toBe('2025-11-23T18:00:00+09:00');
    // A point date without an offset, sent with the header: read in the header's zone.
    await api.post('/1/location/update', { token: tokyo.access_token, json: [point('2025-11-23T03:00:00')], headers: LA });
    expect((await api.get('/1/location/last', { token: tokyo.access_token })).body.date_ts).toBe(ts(Date.UTC(2025, 10, 23, 11)));
  });

  it('falls back to the profile for a header it cannot use, never failing the request; without a zone name the offset is the zone', async () => {
    const kol = await createAnonUser(api, app, { timezone: 'Asia/Kolkata' });
    await postHourly(kol);
    const unusable = [
      'garbage', '2025-11-22T13:28:00-08:00;;Mars/Olympus', ';;', '2025-11-22;;', '2025-11-22T13:28:00;;', 'x'.repeat(300),
      '2025-11-22T13:28:00-08:00;;America/Los_Angeles, 2025-11-22T13:28:00-08:00;;America/Los_Angeles',
    ];
    for (const timezone of unusable) {
      const last = await api.get('/1/location/last', { token: kol.access_token, headers: { timezone } });
      expect(last.status, timezone).toBe(200);
      expect(last.body.date, timezone).toBe('2025-11-23T14:30:00+05:30');
      // 2025-11-23T11:28 in Kolkata is 05:58Z.
      const after = await history(kol.access_token, { after: '2025-11-23T11:28:00' }, { timezone });
      expect(stamps(after), timezone).toEqual([6, 7, 8, 9].map((h) => ts(H0 + h * HOUR)));
    }
    const usable: Array<[string, string]> = [
      ['2025-11-22T13:28:00-03:30;;', '2025-11-23T05:30:00-03:30'],
      ['2025-11-22T13:28:00+0100', '2025-11-23T10:00:00+01:00'],
      ['2025-11-22T21:28:00Z;;', '2025-11-23T09:00:00+00:00'],
      [';;america/los_angeles', '2025-11-23T01:00:00-08:00'],
      ['Asia/Tokyo', '2025-11-23T18:00:00+09:00'],
    ];
    for (const [timezone, date] of usable) {
      expect((await api.get('/1/location/last', { token: kol.access_token, headers: { timezone } })).body.date, timezone).toBe(date);
    }
    // An offset-only zone reads dates without an offset too: 2025-11-23T02:28 at -03:30 is 05:58Z.
    const fixed = await history(kol.access_token, { after: '2025-11-23T02:28:00' }, { timezone: '2025-11-22T13:28:00-03:30;;' });
    expect(stamps(fixed)).toEqual([6, 7, 8, 9].map((h) => ts(H0 + h * HOUR)));
  });

  it("reads and shows place and trigger windows in its zone (an application token has none of its own: UTC), over a user's profile in lists", async () => {
    const tokyo = await createAnonUser(api, app, { timezone: 'Asia/Tokyo' });
    const created = await api.post('/1/place/create', {
      token: app.access_token, headers: LA,
      json: { name: 'Zoned', latitude: 20, longitude: 20, radius: 100, date_from: '2025-12-01T09:00:00', date_to: '2025-12-02' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      date_from: '2025-12-01T09:00:00-08:00', date_from_ts: ts(Date.UTC(2025, 11, 1, 17)),
      date_to: '2025-12-02T00:00:00-08:00', date_to_ts: ts(Date.UTC(2025, 11, 2, 8)),
    });
    const id = created.body.place_id;
    expect((await api.get(`/1/place/info/${id}`, { token: app.access_token })).body.date_from).toBe('2025-12-01T17:00:00+00:00');
    const updated = await api.post(`/1/place/update/${id}`, { token: app.access_token, headers: LA, json: { date_to: '2025-12-03T18:30' } });
    expect(updated.body).toMatchObject({ date_to: '2025-12-03T18:30:00-08:00', date_to_ts: ts(Date.UTC(2025, 11, 4, 2, 30)) });
    const info = await api.get(`/1/place/info/${id}`, { token: app.access_token, headers: { timezone: ';;Asia/Tokyo' } });
    expect(info.body.date_to).toBe('2025-12-04T11:30:00+09:00');
    const layerInfo = await api.get(`/1/layer/info/${app.default_layer_id}`, { token: app.access_token, query: { include_places: 1 }, headers: LA });
    expect(layerInfo.body.places.find((p: { place_id: string }) => p.place_id === id).date_from).toBe('2025-12-01T09:00:00-08:00');
    // A user token: the header over the profile (Tokyo).
    const list = await api.get('/1/place/list', { token: tokyo.access_token, headers: LA });
    expect(list.body.places.find((p: { place_id: string }) => p.place_id === id).date_from).toBe('2025-12-01T09:00:00-08:00');
    expect((await api.get('/1/place/list', { token: tokyo.access_token })).body.places.find((p: { place_id: string }) => p.place_id === id).date_from)
      .toBe('2025-12-02T02:00:00+09:00');

    const trigger = await api.post('/1/trigger/create', {
      token: app.access_token, headers: LA, json: { place_id: id, type: 'message', text: 'hi', date_from: '2025-12-01 08:00:00' },
    });
    expect(trigger.status).toBe(200);
    expect(trigger.body).toMatchObject({ date_from: '2025-12-01T08:00:00-08:00', date_from_ts: ts(Date.UTC(2025, 11, 1, 16)) });
    expect(trigger.body.place.date_from).toBe('2025-12-01T09:00:00-08:00');
    const tInfo = await api.get(`/1/trigger/info/${trigger.body.trigger_id}`, { token: app.access_token, headers: { timezone: 'Asia/Tokyo' } });
    expect(tInfo.body.date_from).toBe('2025-12-02T01:00:00+09:00');
    const tUpdated = await api.post(`/1/trigger/update/${trigger.body.trigger_id}`, { token: app.access_token, headers: LA, json: { date_to: '2025-12-05T10:00:00' } });
    expect(tUpdated.body).toMatchObject({ date_to: '2025-12-05T10:00:00-08:00', date_to_ts: ts(Date.UTC(2025, 11, 5, 18)) });
    const tList = await api.get('/1/trigger/list', { token: tokyo.access_token, query: { place_id: id }, headers: LA });
    expect(tList.body.triggers[0].date_from).toBe('2025-12-01T08:00:00-08:00');
  });

  it('reads a local time in a DST switch the defined way: a missing one moves on by the gap, a repeated one is the first', async () => {
    const res = await api.post('/1/place/create', {
      token: app.access_token, headers: LA,
      json: { latitude: 21, longitude: 21, radius: 100, date_from: '2026-03-08T02:30:00', date_to: '2026-11-01T01:30:00' },
    });
    expect(res.status).toBe(200);
    // 02:30 does not exist the night Los Angeles springs forward: 03:30-07:00. 01:30 happens twice when it falls back: the first, -07:00.
    expect(res.body).toMatchObject({
      date_from: '2026-03-08T03:30:00-07:00', date_from_ts: ts(Date.UTC(2026, 2, 8, 10, 30)),
      date_to: '2026-11-01T01:30:00-07:00', date_to_ts: ts(Date.UTC(2026, 10, 1, 8, 30)),
    });
  });

  it("overrides the profile's zone in message/list", async () => {
    const tokyo = await createAnonUser(api, app, { timezone: 'Asia/Tokyo' });
    await api.post('/1/message/send', { token: app.access_token, json: { user_id: tokyo.user_id, text: 'zoned' } });
    const msgs = await api.get('/1/message/list', { token: tokyo.access_token, headers: LA });
    expect(msgs.body.messages[0].date).toMatch(/-0[78]:00$/);
    expect((await api.get('/1/message/list', { token: tokyo.access_token })).body.messages[0].date).toMatch(/\+09:00$/);
  });

  it('dates messages on the live stream in the zone of the upgrade request', async () => {
    const user = await createAnonUser(api, app);
    const { ws, frames } = await openStream(server, { authorization: `OAuth ${user.access_token}`, timezone: '2025-11-22T13:28:00+09:00;;Asia/Tokyo' });
    try {
      await api.post('/1/message/send', { token: app.access_token, json: { user_id: user.user_id, text: 'live' } });
      await until(async () => frames.length > 0);
      expect(frames[0]!.message.date).toMatch(/\+09:00$/);
    } finally {
      ws.close();
    }
  });
});

describe('trigger/history and the machine inspector', () => {
  it("date firings in the named user's zone with an application token, and in the header's zone with the header", async () => {
    const kol = await createAnonUser(api, app, { timezone: 'Asia/Kolkata' });
    const t = await api.post('/1/trigger/create', { token: app.access_token, json: { latitude: 10, longitude: 10, radius: 500, type: 'message', text: 'in' } });
    expect(t.status).toBe(200);
    const at = Date.now() - 60_000;
    expect((await api.post('/1/location/update', { token: kol.access_token, json: [point(new Date(at).toISOString(), {}, 10, 10)] })).status).toBe(200);
    const firing = async (token: string, query: Record<string, unknown>, headers?: Record<string, string>) => {
      let entry: { date: string; date_ts: number; display_date: string } | undefined;
      await until(async () => {
        const res = await api.get('/1/trigger/history', { token, query, headers });
        entry = res.body.history?.find((h: { trigger: { trigger_id: string } }) => h.trigger.trigger_id === t.body.trigger_id);
        return entry !== undefined;
      });
      return entry!;
    };
    const display = (timeZone: string, ms: number) => {
      const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', hour12: true })
        .formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
      return `${p.month} ${p.day}, ${p.hour}:${p.minute}${String(p.dayPeriod).toLowerCase()}`;
    };
    // The application naming the user: the user's zone, as the user's own token sees it (it answered UTC).
    const asApp = await firing(app.access_token, { user_id: kol.user_id });
    expect(asApp.date).toMatch(/\+05:30$/);
    expect(asApp.display_date).toBe(display('Asia/Kolkata', asApp.date_ts * 1000));
    expect((await firing(kol.access_token, {})).date).toBe(asApp.date);
    // No user named: UTC; the header's zone over either.
    expect((await firing(app.access_token, {})).date).toMatch(/\+00:00$/);
    const tokyo = { timezone: '2025-11-22T13:28:00+09:00;;Asia/Tokyo' };
    const header = await firing(app.access_token, { user_id: kol.user_id }, tokyo);
    expect(header.date).toMatch(/\+09:00$/);
    expect(header.display_date).toBe(display('Asia/Tokyo', header.date_ts * 1000));
    expect((await firing(app.access_token, {}, tokyo)).date).toMatch(/\+09:00$/);
    // A fixed offset from a header without a zone name, display_date included.
    const fixed = await firing(kol.access_token, {}, { timezone: '2025-11-22T13:28:00-03:30;;' });
    expect(fixed.date).toMatch(/-03:30$/);
    expect(fixed.display_date).toBe(display('UTC', fixed.date_ts * 1000 - 210 * 60_000));

    // The machine inspector and layer/users follow the header too.
    const state = await api.get('/1/trigger/state', { token: app.access_token, query: { user_id: kol.user_id }, headers: tokyo });
    expect(state.body.last_location.date).toMatch(/\+09:00$/);
    expect((await api.get('/1/trigger/state', { token: app.access_token, query: { user_id: kol.user_id } })).body.last_location.date).toMatch(/\+05:30$/);
    const inside = await until(async () => {
      const users = await api.get(`/1/layer/users/${app.default_layer_id}`, { token: app.access_token, headers: tokyo });
      return users.body.users?.[kol.user_id]?.inside[0] as { date: string } | undefined;
    });
    expect(inside.date).toMatch(/\+09:00$/);
  });
});
