// trigger/* end to end over real HTTP against the real server and the embedded store
// (seed "Endpoints", reference §4.1, §6.1–6.5, §7 items 1–5 and 12).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/services/changes.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let token: string;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'triggers');
  token = app.access_token;
});
afterAll(async () => server?.close());

const create = (fields: Record<string, unknown>) => api.post('/1/trigger/create', { token, json: fields });
const createOk = async (fields: Record<string, unknown>) => {
  const res = await create(fields);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const createLayer = async (fields: Record<string, unknown> = {}) =>
  (await api.post('/1/layer/create', { token, json: { name: 'layer', ...fields } })).body.layer_id as string;
const createPlace = async (fields: Record<string, unknown> = {}) =>
  (await api.post('/1/place/create', { token, json: { latitude: 45.5, longitude: -122.6, radius: 100, ...fields } })).body;
const placeCount = async (layerId = app.default_layer_id) =>
  (await api.get('/1/place/list', { token, query: { layer_id: layerId, include_unnamed: 1 } })).body.paging.total as number;
const triggerCount = async (layerId = app.default_layer_id) =>
  (await api.get('/1/trigger/list', { token, query: { layer_id: layerId } })).body.paging.total as number;

describe('trigger/create, the seed examples', () => {
  it('JSON: a message trigger with an inline place', async () => {
    const res = await api.post('/1/trigger/create', {
      token,
      json: {
        key: 'powells_books', type: 'message', latitude: 45.523334, longitude: -122.681612, radius: 300,
        text: 'Welcome to Powells Books', place_name: 'Powells Books',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      trigger_id: expect.any(String), place_id: expect.any(String), key: 'powells_books', type: 'message',
      trigger_on: 'enter', trigger_after: 0, one_time: 0, text: 'Welcome to Powells Books', url: '', extra: {}, active: 1,
      place: {
        place_id: res.body.place_id, layer_id: app.default_layer_id, name: 'Powells Books', display_name: 'Powells Books',
        description: '', latitude: 45.523334, longitude: -122.681612, radius: 300, active: 1,
        time_from: '00:00:00', time_to: '00:00:00', extra: {}, visits: 0,
      },
    });
    expect((await api.get(`/1/place/info/${res.body.place_id}`, { token })).body).toEqual(res.body.place);
  });

  it('form-encoded: a callback trigger with an inline place', async () => {
    const res = await api.post('/1/trigger/create', {
      token,
      form: {
        key: 'store_visit', type: 'callback', latitude: '45.5165', longitude: '-122.6764', radius: '200',
        url: 'http://127.0.0.1:9/trigger?session=abc', place_name: 'Pioneer Square',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      key: 'store_visit', type: 'callback', url: 'http://127.0.0.1:9/trigger?session=abc', callback_url: 'http://127.0.0.1:9/trigger?session=abc',
      trigger_on: 'enter', trigger_after: 0, one_time: 0,
      place: { name: 'Pioneer Square', latitude: 45.5165, longitude: -122.6764, radius: 200, layer_id: app.default_layer_id },
    });
  });

  it('form-encoded message and JSON callback work as well', async () => {
    const msg = await api.post('/1/trigger/create', { token, form: { type: 'message', latitude: '1', longitude: '2', radius: '30', text: 'hi' } });
    expect(msg.status).toBe(200);
    expect(msg.body).toMatchObject({ type: 'message', text: 'hi', place: { latitude: 1, longitude: 2, radius: 30 } });
    const cb = await createOk({ type: 'callback', latitude: 1, longitude: 2, radius: 30, url: 'https://example.com/hook' });
    expect(cb.callback_url).toBe('https://example.com/hook');
  });
});

describe('trigger/create, the reference fields', () => {
  it('takes trigger_on (exit = leave), trigger_after, one_time, windows, extra, and callback as the url', async () => {
    const body = await createOk({
      type: 'callback', callback: 'http://127.0.0.1:9/mapattack', latitude: 1, longitude: 1, radius: 50,
      trigger_on: 'exit', trigger_after: '0', one_time: '1', extra: { team: 'red' },
      date_from: '2011-03-26T15:36:00-07:00', date_to: 1932330960, time_from: '17:00', time_to: '22:00',
    });
    expect(body).toMatchObject({
      type: 'callback', url: 'http://127.0.0.1:9/mapattack', callback_url: 'http://127.0.0.1:9/mapattack',
      trigger_on: 'leave', trigger_after: 0, one_time: 1, extra: { team: 'red' },
      date_from: '2011-03-26T22:36:00+00:00', date_from_ts: 1301178960, date_to_ts: 1932330960, time_from: '17:00:00', time_to: '22:00:00',
    });
  });

  it('defaults to a message trigger on enter and removes newlines from the text', async () => {
    const body = await createOk({ latitude: 1, longitude: 1, radius: 50, text: 'line one\nline two\r\n' });
    expect(body).toMatchObject({ type: 'message', trigger_on: 'enter', one_time: 0, trigger_after: 0, text: 'line one line two' });
  });

  it('attaches to an existing place with place_id', async () => {
    const place = await createPlace({ name: 'Existing' });
    const before = await placeCount();
    const body = await createOk({ place_id: place.place_id, text: 'on place', trigger_on: 'leave' });
    expect(body.place_id).toBe(place.place_id);
    expect(body.place).toEqual(place);
    expect(await placeCount()).toBe(before);
  });

  it('attaches to a whole layer with layer_id', async () => {
    const layerId = await createLayer();
    const body = await createOk({ layer_id: layerId, text: 'everywhere on the layer' });
    expect(body.layer_id).toBe(layerId);
    expect(body).not.toHaveProperty('place_id');
    expect(body).not.toHaveProperty('place');
    expect(await placeCount(layerId)).toBe(0);
  });

  it('creates the inline place on place_layer_id with its key, description and extra, and reuses it by place_key', async () => {
    const layerId = await createLayer();
    const first = await createOk({
      latitude: 3, longitude: 4, radius: 60, text: 'a', place_layer_id: layerId, place_key: 'gate', place_name: 'Gate',
      place_description: 'North gate', place_extra: { n: '1' },
    });
    expect(first.place).toMatchObject({ layer_id: layerId, key: 'gate', name: 'Gate', description: 'North gate', extra: { n: '1' } });
    const second = await createOk({ place_layer_id: layerId, place_key: 'gate', text: 'b', trigger_on: 'leave' });
    expect(second.place_id).toBe(first.place_id);
    expect(await placeCount(layerId)).toBe(1);
  });

  it('answers a repeated key with 409 and the existing trigger, creating nothing', async () => {
    const first = await createOk({ key: 'once', latitude: 5, longitude: 5, radius: 10, text: 'first' });
    const places = await placeCount();
    const triggers = await triggerCount();
    const again = await api.post('/1/trigger/create', { token, form: { key: 'once', latitude: '6', longitude: '6', radius: '11', text: 'second' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(first);
    expect(again.headers.get('location')).toBe(`${server.origin}/1/trigger/info/${first.trigger_id}`);
    expect(await placeCount()).toBe(places);
    expect(await triggerCount()).toBe(triggers);
  });

  it('keeps one trigger and one place when the same key races, taking back the losers\' places', async () => {
    const places = await placeCount();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ key: 'race', latitude: 7, longitude: 7 + i / 1000, radius: 10, text: `try ${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)!.body;
    for (const r of results) expect(r.body).toEqual(winner);
    expect(await placeCount()).toBe(places + 1);
  });
});

describe('trigger/create, bad input', () => {
  const cases: Array<[string, Record<string, unknown>, number, string, string?]> = [
    ['unknown type', { type: 'sms' }, 400, 'invalid_input', 'type'],
    ['unknown trigger_on', { trigger_on: 'dwell' }, 400, 'invalid_input', 'trigger_on'],
    ['negative trigger_after', { trigger_after: -1 }, 400, 'invalid_input', 'trigger_after'],
    ['one_time not 0/1', { one_time: 2 }, 400, 'invalid_input', 'one_time'],
    ['message without text', { text: undefined }, 400, 'missing_input', 'text'],
    ['callback without url', { type: 'callback' }, 400, 'missing_input', 'url'],
    ['callback url not http(s)', { type: 'callback', url: 'ftp://example.com/x' }, 400, 'invalid_input', 'http'],
    ['callback url not a URL', { type: 'callback', url: 'not a url' }, 400, 'invalid_input', 'url'],
    // WHATWG URL parsing drops tabs and newlines, so these would be stored as sent but called elsewhere.
    ['callback url with a tab in the host', { type: 'callback', url: 'http://exa\tmple.com/hook' }, 400, 'invalid_input', 'url'],
    ['callback url with a newline', { type: 'callback', url: 'https://example.com/a\nb' }, 400, 'invalid_input', 'url'],
    ['callback url with a space', { type: 'callback', url: 'https://example.com/a b' }, 400, 'invalid_input', 'url'],
    ['callback url with a NUL', { type: 'callback', url: 'https://example.com/\u0000' }, 400, 'invalid_input', 'url'],
    ['callback url with a no-break space', { type: 'callback', url: 'https://example.com/\u00a0x' }, 400, 'invalid_input', 'url'],
    ['callback (the url\'s older name) with a tab', { type: 'callback', callback: 'http://exa\tmple.com/hook' }, 400, 'invalid_input', 'url'],
    ['place_id and layer_id', { latitude: undefined, longitude: undefined, radius: undefined, place_id: 'x', layer_id: 'y' }, 400, 'invalid_input', 'place_id'],
    ['coordinates with layer_id', { layer_id: 'DEFAULT' }, 400, 'invalid_input', 'layer_id'],
    ['no place at all', { latitude: undefined, longitude: undefined, radius: undefined }, 400, 'missing_input', 'place_id'],
    ['no radius', { radius: undefined }, 400, 'missing_input', 'Radius'],
    ['latitude out of range', { latitude: -90.01 }, 400, 'invalid_input', 'latitude'],
    ['longitude out of range', { longitude: 200 }, 400, 'invalid_input', 'longitude'],
    ['radius out of range', { radius: 2_000_000 }, 400, 'invalid_input', 'radius'],
    ['key too long', { key: 'x'.repeat(201) }, 400, 'invalid_input', 'key'],
    ['unparseable date_to', { date_to: 'soon' }, 400, 'invalid_input', 'date_to'],
    ['bad time_to', { time_to: '7pm' }, 400, 'invalid_input', 'time_to'],
    ['geocode naming no known town', { latitude: undefined, longitude: undefined, geocode: 'Zzyzxq Nowhere' }, 400, 'invalid_input', 'geocode'],
    ['unknown place_id', { latitude: undefined, longitude: undefined, radius: undefined, place_id: 'nope' }, 404, 'not_found', 'Place'],
    ['unknown layer_id', { latitude: undefined, longitude: undefined, radius: undefined, layer_id: 'nope' }, 404, 'not_found', 'Layer'],
    ['unknown place_layer_id', { place_layer_id: 'nope' }, 404, 'not_found', 'Layer'],
  ];

  it.each(cases)('%s: %d %s, nothing written', async (_name, fields, status, error, mention) => {
    const places = await placeCount();
    const triggers = await triggerCount();
    const resolved = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === 'DEFAULT' ? app.default_layer_id : v]));
    const res = await create({ latitude: 45.5, longitude: -122.6, radius: 100, text: 'x', ...resolved });
    expect(res.status).toBe(status);
    expectErrorShape(res.body, status, error);
    if (mention) expect(res.body.error_description).toContain(mention);
    expect(await placeCount()).toBe(places);
    expect(await triggerCount()).toBe(triggers);
  });

  it('refuses private callback targets unless CALLBACK_ALLOW_PRIVATE is set', async () => {
    const strict = await startApp({ env: { CALLBACK_ALLOW_PRIVATE: 'false' } });
    try {
      const sApi = strict.api;
      const sApp = await createApp(sApi, 'strict');
      for (const url of ['http://127.0.0.1:8080/cb', 'http://10.0.0.5/cb', 'http://169.254.169.254/latest', 'http://localhost/cb']) {
        const res = await sApi.post('/1/trigger/create', { token: sApp.access_token, json: { type: 'callback', url, latitude: 1, longitude: 1, radius: 10 } });
        expectErrorShape(res.body, 400, 'invalid_input');
      }
      const list = await sApi.get('/1/place/list', { token: sApp.access_token, query: { include_unnamed: 1 } });
      expect(list.body.paging.total).toBe(0);
      const ok = await sApi.post('/1/trigger/create', { token: sApp.access_token, json: { type: 'callback', url: 'https://93.184.215.14/cb', latitude: 1, longitude: 1, radius: 10 } });
      expect(ok.status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('needs the application token', async () => {
    const user = await createAnonUser(api, app);
    const res = await api.post('/1/trigger/create', { token: user.access_token, json: { latitude: 1, longitude: 1, radius: 10, text: 'x' } });
    expectErrorShape(res.body, 403, 'access_denied');
    expectErrorShape((await api.post('/1/trigger/create', { json: { latitude: 1, longitude: 1, radius: 10, text: 'x' } })).body, 401, 'invalid_token');
  });
});

describe('trigger_after (dwell) is for enter triggers', () => {
  const update = (id: string, json: Record<string, unknown>) => api.post(`/1/trigger/update/${id}`, { token, json });
  const info = async (id: string) => (await api.get(`/1/trigger/info/${id}`, { token })).body;

  it('takes 0, "0", an empty form field and null as no dwell, on enter and leave triggers alike', async () => {
    for (const trigger_on of ['enter', 'leave', 'exit']) {
      for (const trigger_after of [0, '0', null]) {
        expect(await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'x', trigger_on, trigger_after })).toMatchObject({ trigger_after: 0 });
      }
      const form = await api.post('/1/trigger/create', { token, form: { latitude: '1', longitude: '1', radius: '10', text: 'x', trigger_on, trigger_after: '' } });
      expect(form.status, JSON.stringify(form.body)).toBe(200);
      expect(form.body.trigger_after).toBe(0);
    }
    expect(await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'dwell', trigger_after: '45' })).toMatchObject({ trigger_on: 'enter', trigger_after: 45 });
  });

  it('refuses a dwell on a leave trigger at create, naming trigger_after, and creates nothing', async () => {
    const places = await placeCount();
    const triggers = await triggerCount();
    const json = await create({ latitude: 1, longitude: 1, radius: 10, text: 'x', trigger_on: 'leave', trigger_after: 300 });
    expectErrorShape(json.body, 400, 'invalid_input');
    expect(json.body.error_description).toContain('trigger_after');
    const form = await api.post('/1/trigger/create', { token, form: { latitude: '1', longitude: '1', radius: '10', text: 'x', trigger_on: 'exit', trigger_after: '30' } });
    expectErrorShape(form.body, 400, 'invalid_input');
    expect(form.body.error_description).toContain('trigger_after');
    expect(await placeCount()).toBe(places);
    expect(await triggerCount()).toBe(triggers);
  });

  it('refuses a dwell on a leave trigger at update, and turning a dwell trigger into a leave trigger unless it is cleared', async () => {
    const leave = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'bye', trigger_on: 'leave' });
    const dwellOnLeave = await update(leave.trigger_id, { trigger_after: 30 });
    expectErrorShape(dwellOnLeave.body, 400, 'invalid_input');
    expect(dwellOnLeave.body.error_description).toContain('trigger_after');
    expect(await info(leave.trigger_id)).toEqual(leave);

    const dwell = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'stay', trigger_after: 60 });
    for (const trigger_on of ['leave', 'exit']) {
      const res = await update(dwell.trigger_id, { trigger_on, text: 'bye' });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toMatch(/trigger_after is 60 .*clear trigger_after/);
    }
    expect(await info(dwell.trigger_id)).toEqual(dwell);
    const cleared = await update(dwell.trigger_id, { trigger_on: 'leave', trigger_after: 0 });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ trigger_on: 'leave', trigger_after: 0 });
    // Back to enter, a dwell is taken again.
    expect((await update(dwell.trigger_id, { trigger_on: 'enter', trigger_after: 90 })).body).toMatchObject({ trigger_on: 'enter', trigger_after: 90 });
  });

  it('leaves a leave trigger stored with a dwell before this rule as it is, while neither field is sent', async () => {
    const t = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'old', trigger_on: 'leave' });
    await server.app.ctx.store.triggers.update(app.application_id, t.trigger_id, { set: { trigger_after: 300 } });
    const text = await update(t.trigger_id, { text: 'still old', trigger_on: 'leave' });
    expect(text.status, JSON.stringify(text.body)).toBe(200);
    expect(text.body).toMatchObject({ text: 'still old', trigger_on: 'leave', trigger_after: 300 });
    expectErrorShape((await update(t.trigger_id, { trigger_after: 300 })).body, 400, 'invalid_input');
    expect((await update(t.trigger_id, { trigger_after: null })).body).toMatchObject({ trigger_on: 'leave', trigger_after: 0 });
  });
});

describe('trigger/info, update, delete', () => {
  it('reads a trigger as create answered it', async () => {
    const body = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'info' });
    const res = await api.get(`/1/trigger/info/${body.trigger_id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expectErrorShape((await api.get('/1/trigger/info/missing', { token })).body, 404, 'not_found');
  });

  it('updates fields and revalidates when the type or url changes', async () => {
    const body = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'before', extra: { a: 1 } });
    const noUrl = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { type: 'callback' } });
    expectErrorShape(noUrl.body, 400, 'missing_input');
    const badUrl = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { type: 'callback', url: 'gopher://x' } });
    expectErrorShape(badUrl.body, 400, 'invalid_input');
    const tabUrl = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { type: 'callback', url: 'http://exa\tmple.com/hook' } });
    expectErrorShape(tabUrl.body, 400, 'invalid_input');
    expect(tabUrl.body.error_description).toContain('url');
    expect((await api.get(`/1/trigger/info/${body.trigger_id}`, { token })).body).toEqual(body);

    const res = await api.post(`/1/trigger/update/${body.trigger_id}`, {
      token, form: { type: 'callback', url: 'http://127.0.0.1:9/new', trigger_on: 'leave', trigger_after: '', one_time: '1', extra: { b: '2' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      trigger_id: body.trigger_id, place_id: body.place_id, type: 'callback', callback_url: 'http://127.0.0.1:9/new',
      trigger_on: 'leave', trigger_after: 0, one_time: 1, extra: { b: '2' },
    });
    expect((await api.get(`/1/trigger/info/${body.trigger_id}`, { token })).body).toEqual(res.body);
    const clearText = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { type: 'message', text: '' } });
    expectErrorShape(clearText.body, 400, 'missing_input');
  });

  it('moves a trigger to a layer or another place, refuses place fields and taken keys', async () => {
    const body = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'mover' });
    const layerId = await createLayer();
    const onLayer = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { layer_id: layerId } });
    expect(onLayer.body.layer_id).toBe(layerId);
    expect(onLayer.body).not.toHaveProperty('place_id');
    const place = await createPlace({ name: 'target' });
    const onPlace = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { place_id: place.place_id } });
    expect(onPlace.body.place_id).toBe(place.place_id);
    expect(onPlace.body.place).toEqual(place);

    const coords = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { latitude: 2 } });
    expectErrorShape(coords.body, 400, 'invalid_input');
    await createOk({ key: 'held', latitude: 1, longitude: 1, radius: 10, text: 'holder' });
    const dup = await api.post(`/1/trigger/update/${body.trigger_id}`, { token, json: { key: 'held' } });
    expectErrorShape(dup.body, 409, 'duplicate_key');
  });

  it('deletes a trigger and leaves its place', async () => {
    const body = await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'bye' });
    const res = await api.post(`/1/trigger/delete/${body.trigger_id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok' });
    expectErrorShape((await api.get(`/1/trigger/info/${body.trigger_id}`, { token })).body, 404, 'not_found');
    expect((await api.get(`/1/place/info/${body.place_id}`, { token })).status).toBe(200);
    expectErrorShape((await api.post(`/1/trigger/delete/${body.trigger_id}`, { token })).body, 404, 'not_found');
  });
});

describe('trigger/list', () => {
  it('lists a layer\'s own triggers, its places\' triggers, or both; one place\'s triggers', async () => {
    const layerId = await createLayer({ public: 1 });
    const place = await createPlace({ layer_id: layerId, name: 'p' });
    const onLayer = await createOk({ layer_id: layerId, text: 'layer' });
    const onPlace = await createOk({ place_id: place.place_id, text: 'place' });
    const ids = async (query: Record<string, unknown>, as = token) =>
      (await api.get('/1/trigger/list', { token: as, query })).body.triggers.map((t: any) => t.trigger_id);

    expect(await ids({ layer_id: layerId })).toEqual([onLayer.trigger_id, onPlace.trigger_id]);
    expect(await ids({ layer_id: layerId, on: 'layer' })).toEqual([onLayer.trigger_id]);
    expect(await ids({ layer_id: layerId, on: 'places' })).toEqual([onPlace.trigger_id]);
    expect(await ids({ place_id: place.place_id })).toEqual([onPlace.trigger_id]);
    const full = await api.get('/1/trigger/list', { token, query: { place_id: place.place_id } });
    expect(full.body.triggers[0]).toEqual(onPlace);
    expect(full.body.paging).toEqual({ limit: 25, total: 1 });

    const user = await createAnonUser(api, app);
    expect(await ids({ layer_id: layerId }, user.access_token)).toHaveLength(2);
    const bad = await api.get('/1/trigger/list', { token, query: { layer_id: layerId, on: 'everywhere' } });
    expectErrorShape(bad.body, 400, 'invalid_input');
  });

  it('lists the default layer and its places when no layer is named, for the app and its users', async () => {
    const body = await createOk({ latitude: 8, longitude: 8, radius: 10, text: 'default' });
    const app1 = await api.get('/1/trigger/list', { token, query: { limit: 0 } });
    expect(app1.body.triggers.map((t: any) => t.trigger_id)).toContain(body.trigger_id);
    const user = await createAnonUser(api, app);
    const u = await api.get('/1/trigger/list', { token: user.access_token, query: { limit: 0 } });
    expect(u.body.triggers.map((t: any) => t.trigger_id)).toContain(body.trigger_id);
  });

  it('hides private layers from users who are not subscribed', async () => {
    const layerId = await createLayer();
    const place = await createPlace({ layer_id: layerId, name: 'secret' });
    await createOk({ place_id: place.place_id, text: 'secret' });
    const user = await createAnonUser(api, app);
    expectErrorShape((await api.get('/1/trigger/list', { token: user.access_token, query: { layer_id: layerId } })).body, 404, 'not_found');
    expectErrorShape((await api.get('/1/trigger/list', { token: user.access_token, query: { place_id: place.place_id } })).body, 404, 'not_found');
    await api.post(`/1/layer/subscribe/${layerId}`, { token, query: { user_id: user.user_id } });
    expect((await api.get('/1/trigger/list', { token: user.access_token, query: { layer_id: layerId } })).body.triggers).toHaveLength(1);
  });
});

describe('the change feed the trigger engine follows', () => {
  it('hears of every saved and removed place and trigger after the write, and of nothing else', async () => {
    const heard: string[] = [];
    server.app.ctx.changes.on((c: Change) => void heard.push(`${c.kind}:${c.op}:${'doc' in c ? c.doc._id : ''}`));
    const t = await createOk({ key: 'fed', latitude: 1, longitude: 1, radius: 10, text: 'feed' });
    expect(heard).toEqual([`place:saved:${t.place_id}`, `trigger:saved:${t.trigger_id}`]);
    heard.length = 0;
    await create({ key: 'fed', latitude: 1, longitude: 1, radius: 10, text: 'feed' });
    await create({ latitude: 1, longitude: 1, radius: 10, type: 'callback' });
    expect(heard).toEqual([]);
    await api.post(`/1/trigger/update/${t.trigger_id}`, { token, json: { text: 'changed' } });
    await api.post(`/1/place/update/${t.place_id}`, { token, json: { radius: 20 } });
    expect(heard).toEqual([`trigger:saved:${t.trigger_id}`, `place:saved:${t.place_id}`]);
    heard.length = 0;
    await api.post(`/1/place/delete/${t.place_id}`, { token });
    expect(heard).toEqual([`trigger:removed:${t.trigger_id}`, `place:removed:${t.place_id}`]);
  });

  it('publishes only once the document is in the store', async () => {
    const seen: Array<Promise<number>> = [];
    server.app.ctx.changes.on((c: Change) => {
      if (c.kind === 'trigger' && c.op === 'saved') seen.push(server.app.ctx.store.triggers.get(c.doc.app_id, c.doc._id).then((t) => (t ? 1 : 0)));
    });
    await createOk({ latitude: 1, longitude: 1, radius: 10, text: 'stored first' });
    expect(await Promise.all(seen)).toEqual([1]);
  });
});
