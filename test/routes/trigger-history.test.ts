// trigger/history tells the truth (issue 31): firings the gates stopped are listed with their gate
// behind include_gated=1 (old clients see no change without it), trigger_id filters, and a
// parameter the route does not take is refused. Points go through location/update and the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;

const HERE = { latitude: 45.5165, longitude: -122.6764 };
const AWAY = { latitude: 45.5365, longitude: -122.6764 };
const DAY_S = 86_400;
let clock = Math.floor(Date.now() / 1000) - 3600;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'history');
});
afterAll(() => server?.close());

/** Points one after the other, 10 s apart on the device clock, each its own location/update. */
async function walk(user: TestUser, ...where: Array<typeof HERE>) {
  for (const w of where) {
    clock += 10;
    const point = { date: clock, location: { position: { ...w, horizontal_accuracy: 5 } } };
    const res = await api.post('/1/location/update', { token: user.access_token, json: [point] });
    expect(res.status).toBe(200);
  }
}

async function trigger(fields: Record<string, unknown>) {
  const res = await api.post('/1/trigger/create', { token: app.access_token, json: { ...HERE, radius: 100, type: 'message', text: 'hi', trigger_on: 'enter', ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { trigger_id: string; place_id: string };
}

const history = (query: Record<string, unknown>, token = app.access_token) => api.get('/1/trigger/history', { token, query });

type Entry = { event_id: string; triggered_on: string; gated?: boolean; gate?: string; delivery?: { status: string } };

/** The user's history for one trigger, oldest first, with and without include_gated. */
async function both(user: TestUser, triggerId: string) {
  const plain = await history({ user_id: user.user_id, trigger_id: triggerId });
  const all = await history({ user_id: user.user_id, trigger_id: triggerId, include_gated: 1 });
  expect(plain.status).toBe(200);
  expect(all.status).toBe(200);
  return { plain: (plain.body.history as Entry[]).reverse(), all: (all.body.history as Entry[]).reverse(), total: all.body.paging.total as number };
}

describe('trigger/history include_gated', () => {
  it('date_window: a trigger whose date range has not started', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ date_from: clock + 30 * DAY_S });
    await walk(user, HERE);
    const { plain, all, total } = await both(user, t.trigger_id);
    expect(plain).toEqual([]);
    expect(all).toHaveLength(1);
    expect(total).toBe(1);
    expect(all[0]).toMatchObject({ gated: true, gate: 'date_window', triggered_on: 'enter', trigger: { trigger_id: t.trigger_id } });
    expect(all[0]).not.toHaveProperty('delivery');
    expect(all[0]!.event_id).toMatch(/:gated$/);
  });

  it('date_window: the place\'s date range, not the trigger\'s', async () => {
    const user = await createAnonUser(api, app);
    const place = await api.post('/1/place/create', { token: app.access_token, json: { ...HERE, radius: 100, date_to: clock - DAY_S } });
    const t = await trigger({ latitude: undefined, longitude: undefined, radius: undefined, place_id: place.body.place_id });
    await walk(user, HERE);
    expect((await both(user, t.trigger_id)).all).toMatchObject([{ gated: true, gate: 'date_window' }]);
  });

  it('trigger_inactive: the trigger\'s own date range is over', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ date_to: clock - DAY_S });
    await walk(user, HERE);
    const { plain, all } = await both(user, t.trigger_id);
    expect(plain).toEqual([]);
    expect(all).toMatchObject([{ gated: true, gate: 'trigger_inactive' }]);
  });

  it('time_window: outside the daily window, in the user\'s timezone', async () => {
    const user = await createAnonUser(api, app);
    // Half an hour starting twelve hours from the point's time of day (UTC: the user has no zone).
    const h = (new Date((clock + 10) * 1000).getUTCHours() + 12) % 24;
    const t = await trigger({ time_from: `${String(h).padStart(2, '0')}:00:00`, time_to: `${String(h).padStart(2, '0')}:30:00` });
    await walk(user, HERE);
    expect((await both(user, t.trigger_id)).all).toMatchObject([{ gated: true, gate: 'time_window' }]);
  });

  it('rate_limit: a second entry within the layer\'s trigger_rate_limit', async () => {
    const user = await createAnonUser(api, app);
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: 'limited', trigger_rate_limit: 3600 } });
    const place = await api.post('/1/place/create', { token: app.access_token, json: { ...HERE, radius: 100, layer_id: layer.body.layer_id } });
    await api.post(`/1/layer/subscribe/${layer.body.layer_id}`, { token: app.access_token, json: { user_id: user.user_id } });
    const t = await trigger({ latitude: undefined, longitude: undefined, radius: undefined, place_id: place.body.place_id });
    await walk(user, HERE, AWAY, HERE);
    const { plain, all } = await both(user, t.trigger_id);
    expect(plain).toMatchObject([{ triggered_on: 'enter', delivery: {} }]);
    expect(plain[0]).not.toHaveProperty('gated');
    expect(all).toMatchObject([{ event_id: plain[0]!.event_id }, { gated: true, gate: 'rate_limit' }]);
  });

  it('one_time_spent: entering again after a one-time trigger fired', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ one_time: 1 });
    await walk(user, HERE, AWAY, HERE, AWAY, HERE);
    const { plain, all } = await both(user, t.trigger_id);
    expect(plain).toHaveLength(1);
    expect(all.map((e) => e.gate ?? 'fired')).toEqual(['fired', 'one_time_spent', 'one_time_spent']);
  });

  it('one_time_spent: a leave trigger left again', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ one_time: 1, trigger_on: 'leave' });
    await walk(user, HERE, AWAY, HERE, AWAY);
    expect((await both(user, t.trigger_id)).all.map((e) => e.gate ?? 'fired')).toEqual(['fired', 'one_time_spent']);
  });

  it('takes include_gated as 1, true, 0 or false', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ date_to: clock - DAY_S });
    await walk(user, HERE);
    for (const [v, n] of [['1', 1], ['true', 1], ['0', 0], ['false', 0]] as const) {
      expect((await history({ trigger_id: t.trigger_id, include_gated: v })).body.history, v).toHaveLength(n);
    }
    expectErrorShape((await history({ include_gated: 'maybe' })).body, 400, 'invalid_input');
  });
});

describe('trigger/history filters', () => {
  it('filters by trigger_id, also for a user token', async () => {
    const user = await createAnonUser(api, app);
    const a = await trigger({});
    const b = await trigger({ trigger_on: 'leave' });
    await walk(user, HERE, AWAY);
    const onlyA = await history({ trigger_id: a.trigger_id });
    expect(onlyA.body.history.map((e: { trigger: { trigger_id: string } }) => e.trigger.trigger_id)).toEqual([a.trigger_id]);
    expect(onlyA.body.paging.total).toBe(1);
    const mineB = await history({ trigger_id: b.trigger_id }, user.access_token);
    expect(mineB.body.history).toMatchObject([{ triggered_on: 'leave', trigger: { trigger_id: b.trigger_id } }]);
    // Still listed by its id once the trigger is deleted; an id the application never had is a 404.
    await api.post(`/1/trigger/delete/${a.trigger_id}`, { token: app.access_token });
    expect((await history({ trigger_id: a.trigger_id })).body.history).toMatchObject([{ trigger: { trigger_id: a.trigger_id } }]);
    expectErrorShape((await history({ trigger_id: 'no-such-trigger' })).body, 404, 'not_found');
    // A trigger of this application that never fired: an empty list.
    const quiet = await trigger({ ...AWAY, latitude: 10, longitude: 10 });
    expect((await history({ trigger_id: quiet.trigger_id })).body).toMatchObject({ history: [], paging: { total: 0 } });
  });

  it('refuses a parameter it does not take, naming it', async () => {
    const res = await history({ trigger: 'x' });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_params');
    expect(res.body.error_description).toContain('"trigger"');
    expect(res.body.error_description).toContain('trigger_id');
    expectErrorShape((await history({ place_id: 'x', since: 5 })).body, 400, 'invalid_params');
  });

  it('still takes every documented parameter', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({});
    await walk(user, HERE);
    const res = await api.get('/1/trigger/history', {
      query: {
        access_token: app.access_token, user_id: user.user_id, layer_id: app.default_layer_id, place_id: t.place_id,
        trigger_id: t.trigger_id, include_gated: 0, offset: 0, limit: 10,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.history).toHaveLength(1);
    const own = await api.get('/1/trigger/history', { query: { oauth_token: user.access_token, trigger_id: t.trigger_id } });
    expect(own.body.history).toHaveLength(1);
  });

  it('keeps another application\'s triggers and gated firings invisible', async () => {
    const user = await createAnonUser(api, app);
    const t = await trigger({ one_time: 1 });
    await walk(user, HERE, AWAY, HERE);
    const other = await createApp(api, 'other');
    expectErrorShape((await history({ trigger_id: t.trigger_id }, other.access_token)).body, 404, 'not_found');
    expectErrorShape((await history({ trigger_id: t.trigger_id, include_gated: 1 }, other.access_token)).body, 404, 'not_found');
    expect((await history({ include_gated: 1 }, other.access_token)).body).toMatchObject({ history: [], paging: { total: 0 } });
  });
});
