// geonote/* (reference §4.2): a note left at a place reaches its user once, when they walk in,
// through the ordinary trigger engine; nobody else gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 45.5, longitude: -122.6 };
const north = (metres: number) => CENTRE.latitude + metres / 111_195;
const point = (at: number, lat: number) => ({ date: at, location: { position: { latitude: lat, longitude: CENTRE.longitude, horizontal_accuracy: 10 } } });

describe('geonotes', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let me: TestUser;
  let neighbour: TestUser;
  let other: TestApp;
  let otherUser: TestUser;
  const t0 = Math.floor(Date.now() / 1000) - 600;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    me = await createAnonUser(api, app);
    neighbour = await createAnonUser(api, app);
    other = await createApp(api, 'other');
    otherUser = await createAnonUser(api, other);
  });
  afterAll(() => server?.close());

  const messagesOf = async (u: TestUser) => (await api.get('/1/message/list', { token: u.access_token })).body.messages as Array<{ text: string }>;

  it('fires the note once when the user walks in, never for another user, and moves it from list_set to list_recent', async () => {
    const created = await api.post('/1/geonote/create', { token: me.access_token, json: { text: 'Buy milk', ...CENTRE, radius: 100, place_name: 'Corner shop' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ result: 'ok', geonote_id: expect.any(String), place_id: expect.any(String) });
    const set = await api.get('/1/geonote/list_set', { token: me.access_token });
    expect(set.body.geonotes).toEqual([expect.objectContaining({
      geonote_id: created.body.geonote_id, text: 'Buy milk', place_id: created.body.place_id, place_name: 'Corner shop', from: '[me]',
      latitude: CENTRE.latitude, longitude: CENTRE.longitude, radius: 100, date_created_ts: expect.any(Number),
    })]);
    expect(set.body.geonotes[0].date_created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    for (const u of [me, neighbour]) {
      const walk = await api.post('/1/location/update', { token: u.access_token, json: [point(t0, north(400)), point(t0 + 60, north(10))] });
      expect(walk.body).toEqual({ response: 'ok' });
    }
    // Out and in again: a geonote is one-time.
    await api.post('/1/location/update', { token: me.access_token, json: [point(t0 + 120, north(600)), point(t0 + 180, north(5))] });

    expect((await messagesOf(me)).filter((m) => m.text === 'Buy milk')).toHaveLength(1);
    expect(await messagesOf(neighbour)).toEqual([]);
    expect((await api.get('/1/geonote/list_set', { token: me.access_token })).body.geonotes).toEqual([]);
    const recent = await api.get('/1/geonote/list_recent', { token: me.access_token });
    expect(recent.body.geonotes).toEqual([expect.objectContaining({ geonote_id: created.body.geonote_id, date_triggered_ts: expect.any(Number) })]);
  });

  it('answers the reference forms: radius from span_longitude, nothing more for an existing place', async () => {
    const spanned = await api.post('/1/geonote/create', { token: me.access_token, json: { text: 'span', ...CENTRE, span_longitude: 0.004 } });
    expect(spanned.body).toEqual({ result: 'ok', geonote_id: expect.any(String), radius: expect.any(Number) });
    expect(spanned.body.radius).toBeGreaterThan(100);
    const place = await api.post('/1/place/create', { token: app.access_token, json: { ...CENTRE, radius: 50, name: 'Shared' } });
    const onPlace = await api.post('/1/geonote/create', {
      token: me.access_token, json: { text: 'at the shared place', place_id: place.body.place_id, from_email: 'friend@example.com', delay_minutes: 2 },
    });
    expect(onPlace.body).toEqual({ result: 'ok', geonote_id: expect.any(String) });
    const info = await api.get(`/1/geonote/info/${onPlace.body.geonote_id}`, { token: me.access_token });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      geonote_id: onPlace.body.geonote_id, text: 'at the shared place', place_id: place.body.place_id, from: 'friend@example.com', radius: 50,
      place: { name: 'Shared', latitude: CENTRE.latitude, radius: 50, locality: { name: '', id: '' }, visits: 0 },
    });
  });

  it('refuses bad input with the error shape', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ...CENTRE, radius: 10 }, 400, 'missing_input'],
      [{ text: 'x', radius: 10 }, 400, 'missing_input'],
      [{ text: 'x', ...CENTRE }, 400, 'missing_input'],
      [{ text: 'x', place_id: 'Mi55ing0', place_name: 'n' }, 400, 'invalid_input'],
      [{ text: 'x', place_id: 'Mi55ing0' }, 404, 'not_found'],
      [{ text: ' ', ...CENTRE, radius: 10 }, 400, 'missing_input'],
    ];
    for (const [json, status, error] of cases) {
      const res = await api.post('/1/geonote/create', { token: me.access_token, json });
      expect(res.status, JSON.stringify(json)).toBe(status);
      expectErrorShape(res.body, status, error);
    }
    const appToken = await api.get('/1/geonote/list_set', { token: app.access_token });
    expect(appToken.status).toBe(403);
    expectErrorShape((await api.get('/1/geonote/info/Mi55ing0', { token: me.access_token })).body, 404, 'not_found');
  });

  it("keeps notes to their user and application: another user's or application's note and place are not found", async () => {
    const mine = await api.post('/1/geonote/create', { token: me.access_token, json: { text: 'private', ...CENTRE, radius: 30 } });
    for (const u of [neighbour, otherUser]) {
      const res = await api.get(`/1/geonote/info/${mine.body.geonote_id}`, { token: u.access_token });
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 404, 'not_found');
      expect((await api.get('/1/geonote/list_set', { token: u.access_token })).body.geonotes).toEqual([]);
    }
    const place = await api.post('/1/place/create', { token: app.access_token, json: { ...CENTRE, radius: 50, name: 'Mine' } });
    const foreign = await api.post('/1/geonote/create', { token: otherUser.access_token, json: { text: 'x', place_id: place.body.place_id } });
    expect(foreign.status).toBe(404);
  });

  it('goes with its user: user/delete removes the Geonotes layer and its places', async () => {
    const leaving = await createAnonUser(api, app);
    const note = await api.post('/1/geonote/create', { token: leaving.access_token, json: { text: 'bye', ...CENTRE, radius: 30, place_name: 'Gone' } });
    const layers = (await api.get('/1/layer/list', { token: app.access_token })).body.layers as Array<{ layer_id: string; key?: string }>;
    const layer = layers.find((l) => l.key === `geonotes:${leaving.user_id}`);
    expect(layer).toBeDefined();
    expect((await api.post(`/1/user/delete/${leaving.user_id}`, { token: app.access_token })).status).toBe(200);
    expect((await api.get(`/1/layer/info/${layer!.layer_id}`, { token: app.access_token })).status).toBe(404);
    expect((await api.get(`/1/place/info/${note.body.place_id}`, { token: app.access_token })).status).toBe(404);
  });
});
