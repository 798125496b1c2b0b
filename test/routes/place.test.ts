// place/* end to end over real HTTP against the real server and the embedded store (reference §4.4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { monotonicClock, startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let token: string;

beforeAll(async () => {
  server = await startApp({ now: monotonicClock() });
  api = server.api;
  app = await createApp(api, 'places');
  token = app.access_token;
});
afterAll(async () => server?.close());

const createLayer = async (fields: Record<string, unknown> = {}) => {
  const res = await api.post('/1/layer/create', { token, json: { name: 'layer', ...fields } });
  expect(res.status).toBe(200);
  return res.body.layer_id as string;
};
const createPlace = async (fields: Record<string, unknown>) => {
  const res = await api.post('/1/place/create', { token, json: { latitude: 45.5, longitude: -122.6, radius: 100, ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const allPlaces = async (layerId = app.default_layer_id) =>
  (await api.get('/1/place/list', { token, query: { layer_id: layerId, include_unnamed: 1, limit: 0 } })).body.places as any[];

describe('place/create', () => {
  it('answers the full place object on the default layer', async () => {
    const res = await api.post('/1/place/create', {
      token,
      json: { name: 'Powells', description: 'Books', latitude: 45.523334, longitude: -122.681612, radius: 300, extra: { floor: 3, kind: 'books' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      place_id: expect.any(String), layer_id: app.default_layer_id, name: 'Powells', display_name: 'Powells', description: 'Books',
      latitude: 45.523334, longitude: -122.681612, radius: 300, active: 1, time_from: '00:00:00', time_to: '00:00:00',
      extra: { floor: 3, kind: 'books' }, visits: 0,
    });
  });

  it('takes form bodies with nested extra, string numbers, Unix and ISO dates and daily times', async () => {
    const res = await api.post('/1/place/create', {
      token,
      form: {
        name: 'Form', latitude: '45.5', longitude: '-122.6', radius: '250', extra: { color: 'blue' },
        date_from: '1301572800', date_to: '2031-03-26T15:36:00-07:00', time_from: '17:00', time_to: '22:00:30',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      latitude: 45.5, longitude: -122.6, radius: 250, extra: { color: 'blue' }, active: 1,
      date_from: '2011-03-31T12:00:00+00:00', date_from_ts: 1301572800,
      date_to: '2031-03-26T22:36:00+00:00', date_to_ts: 1932330960,
      time_from: '17:00:00', time_to: '22:00:30',
    });
  });

  it('reports a place whose date window is over as inactive', async () => {
    const place = await createPlace({ name: 'Expired', date_to: 1000 });
    expect(place.active).toBe(0);
    expect(place.date_to_ts).toBe(1000);
  });

  it('requires a radius, or derives one from span_longitude', async () => {
    const res = await api.post('/1/place/create', { token, json: { latitude: 0, longitude: 10 } });
    expectErrorShape(res.body, 400, 'missing_input');
    expect(res.body.error_description).toBe('Radius in meters is required');
    // 0.01° of longitude at the equator is ~1113 m wide: the circle's radius is half of that.
    const place = await createPlace({ latitude: 0, longitude: 10, radius: undefined, span_longitude: 0.01 });
    expect(place.radius).toBeGreaterThan(550);
    expect(place.radius).toBeLessThan(560);
  });

  it('answers a repeated key with 409, the same body and a Location header; keys are per layer', async () => {
    const first = await createPlace({ key: 'shop-1', name: 'Shop' });
    expect(first.key).toBe('shop-1');
    const again = await api.post('/1/place/create', { token, json: { key: 'shop-1', name: 'Other', latitude: 1, longitude: 1, radius: 5 } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(first);
    const location = again.headers.get('location')!;
    expect(location).toBe(`${server.origin}/1/place/info/${first.place_id}`);
    expect((await api.get(new URL(location).pathname, { token })).body).toEqual(first);

    const other = await createLayer({ name: 'second' });
    const elsewhere = await createPlace({ key: 'shop-1', name: 'Shop', layer_id: other });
    expect(elsewhere.place_id).not.toBe(first.place_id);
    expect(elsewhere.layer_id).toBe(other);
  });

  it('creates on a named layer', async () => {
    const layerId = await createLayer();
    const place = await createPlace({ layer_id: layerId, name: 'On layer' });
    expect(place.layer_id).toBe(layerId);
  });
});

describe('place/info', () => {
  it('finds a place by id, and by key on a layer (the default layer when none is named)', async () => {
    const layerId = await createLayer();
    const onDefault = await createPlace({ key: 'info-key', name: 'D' });
    const onLayer = await createPlace({ key: 'info-key', name: 'L', layer_id: layerId });
    expect((await api.get(`/1/place/info/${onDefault.place_id}`, { token })).body).toEqual(onDefault);
    expect((await api.get('/1/place/info', { token, query: { key: 'info-key' } })).body).toEqual(onDefault);
    expect((await api.get('/1/place/info', { token, query: { key: 'info-key', layer_id: layerId } })).body).toEqual(onLayer);
    const missing = await api.get('/1/place/info', { token, query: { key: 'nope' } });
    expectErrorShape(missing.body, 404, 'not_found');
    expectErrorShape((await api.get('/1/place/info/nope', { token })).body, 404, 'not_found');
  });
});

describe('place/update', () => {
  it('moves and resizes the place, replaces extra, clears a window bound, and answers the place', async () => {
    const place = await createPlace({ name: 'Before', extra: { a: 1, b: 2 }, date_from: 1301572800, date_to: 1932330960 });
    const res = await api.post(`/1/place/update/${place.place_id}`, {
      token, json: { name: 'After', latitude: 46, longitude: -123, radius: 42, extra: { c: 3 }, date_to: '' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ place_id: place.place_id, name: 'After', display_name: 'After', latitude: 46, longitude: -123, radius: 42, extra: { c: 3 }, date_from_ts: 1301572800 });
    expect(res.body).not.toHaveProperty('date_to');
    expect((await api.get(`/1/place/info/${place.place_id}`, { token })).body).toEqual(res.body);
  });

  it('takes its triggers along to another layer', async () => {
    const place = await createPlace({ name: 'Mover' });
    const trig = await api.post('/1/trigger/create', { token, json: { place_id: place.place_id, text: 'hi' } });
    const target = await createLayer();
    const res = await api.post(`/1/place/update/${place.place_id}`, { token, form: { layer_id: target } });
    expect(res.body.layer_id).toBe(target);
    const list = await api.get('/1/trigger/list', { token, query: { layer_id: target } });
    expect(list.body.triggers.map((t: any) => t.trigger_id)).toEqual([trig.body.trigger_id]);
  });

  it('refuses a key another place on the layer holds, and bad input, without changing anything', async () => {
    await createPlace({ key: 'taken', name: 'T' });
    const place = await createPlace({ name: 'U' });
    const dup = await api.post(`/1/place/update/${place.place_id}`, { token, json: { key: 'taken', name: 'changed' } });
    expectErrorShape(dup.body, 409, 'duplicate_key');
    const bad = await api.post(`/1/place/update/${place.place_id}`, { token, json: { name: 'changed', date_from: 'yesterday-ish' } });
    expectErrorShape(bad.body, 400, 'invalid_input');
    expect(bad.body.error_description).toContain('date_from');
    expect((await api.get(`/1/place/info/${place.place_id}`, { token })).body).toEqual(place);
  });
});

describe('place/delete', () => {
  it('deletes the place and its triggers', async () => {
    const place = await createPlace({ name: 'Doomed' });
    const t1 = (await api.post('/1/trigger/create', { token, json: { place_id: place.place_id, text: 'one' } })).body;
    const t2 = (await api.post('/1/trigger/create', { token, json: { place_id: place.place_id, type: 'callback', url: 'http://127.0.0.1:9/cb' } })).body;
    const res = await api.post(`/1/place/delete/${place.place_id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok' });
    for (const path of [`/1/place/info/${place.place_id}`, `/1/trigger/info/${t1.trigger_id}`, `/1/trigger/info/${t2.trigger_id}`]) {
      expectErrorShape((await api.get(path, { token })).body, 404, 'not_found');
    }
    expectErrorShape((await api.post(`/1/place/delete/${place.place_id}`, { token })).body, 404, 'not_found');
  });
});

describe('place/list', () => {
  it('lists one layer, named places unless include_unnamed, sorted and paged', async () => {
    const layerId = await createLayer();
    for (const name of ['b', 'a', 'c', '']) await createPlace({ layer_id: layerId, name });
    const byName = await api.get('/1/place/list', { token, query: { layer_id: layerId, sort: 'name' } });
    expect(byName.body.places.map((p: any) => p.name)).toEqual(['a', 'b', 'c']);
    expect(byName.body.paging).toEqual({ limit: 25, total: 3 });
    const recent = await api.get('/1/place/list', { token, query: { layer_id: layerId, sort: 'recent', include_unnamed: 1 } });
    expect(recent.body.places.map((p: any) => p.name)).toEqual(['', 'c', 'a', 'b']);
    const page1 = await api.get('/1/place/list', { token, query: { layer_id: layerId, sort: 'name', limit: 2 } });
    expect(page1.body.places.map((p: any) => p.name)).toEqual(['a', 'b']);
    expect(page1.body.paging).toEqual({ next_offset: 2, limit: 2, total: 3 });
    const page2 = await api.get('/1/place/list', { token, query: { layer_id: layerId, sort: 'name', limit: 2, offset: 2 } });
    expect(page2.body.places.map((p: any) => p.name)).toEqual(['c']);
    expect(page2.body.paging).toEqual({ limit: 2, total: 3 });
    const bad = await api.get('/1/place/list', { token, query: { layer_id: layerId, sort: 'size' } });
    expectErrorShape(bad.body, 400, 'invalid_input');
  });

  it('lists the default layer when no layer is named', async () => {
    const place = await createPlace({ name: 'zz-default-listed' });
    const res = await api.get('/1/place/list', { token, query: { sort: 'name', limit: 0 } });
    expect(res.body.places.map((p: any) => p.place_id)).toContain(place.place_id);
    expect(res.body.places.every((p: any) => p.layer_id === app.default_layer_id)).toBe(true);
  });
});

describe('place/nearby', () => {
  it('returns places containing the point by default, within a distance otherwise, nearest first with distances', async () => {
    const layerId = await createLayer();
    const origin = { lat: 10, lon: 10 };
    const north500 = destinationPoint(origin.lat, origin.lon, 0, 500);
    const east5k = destinationPoint(origin.lat, origin.lon, 90, 5000);
    const a = await createPlace({ layer_id: layerId, name: 'A', latitude: origin.lat, longitude: origin.lon, radius: 100 });
    const b = await createPlace({ layer_id: layerId, name: 'B', latitude: north500.lat, longitude: north500.lon, radius: 100 });
    const c = await createPlace({ layer_id: layerId, name: 'C', latitude: east5k.lat, longitude: east5k.lon, radius: 1000 });
    const near = (query: Record<string, unknown>) =>
      api.get('/1/place/nearby', { token, query: { layer_id: layerId, latitude: origin.lat, longitude: origin.lon, ...query } });

    const inside = await near({});
    expect(inside.body.places.map((p: any) => p.place_id)).toEqual([a.place_id]);
    expect(inside.body.places[0].distance).toBe(0);
    expect(inside.body.paging).toEqual({ limit: 25, total: 1 });

    // B's edge is 400 m away, C's 4000 m.
    const within = await near({ distance: 450 });
    expect(within.body.places.map((p: any) => p.place_id)).toEqual([a.place_id, b.place_id]);
    expect(within.body.places[1].distance).toBeCloseTo(500, 0);
    expect((await near({ distance: 350 })).body.places).toHaveLength(1);

    const wide = await near({ radius: 4500 });
    expect(wide.body.places.map((p: any) => p.place_id)).toEqual([a.place_id, b.place_id, c.place_id]);
    expect(wide.body.places[2].distance).toBeCloseTo(5000, 0);
    const paged = await near({ radius: 4500, limit: 1, offset: 1 });
    expect(paged.body.places.map((p: any) => p.place_id)).toEqual([b.place_id]);
    expect(paged.body.paging).toEqual({ next_offset: 2, limit: 1, total: 3 });
  });

  it('needs a point', async () => {
    const res = await api.get('/1/place/nearby', { token, query: { latitude: 10 } });
    expectErrorShape(res.body, 400, 'missing_input');
  });

  it("takes a user's last location when the user sends no point (reference: the default), and needs one first", async () => {
    const here = await createPlace({ name: 'here', latitude: -33.8688, longitude: 151.2093, radius: 200 });
    const user = await createAnonUser(api, app);
    const before = await api.get('/1/place/nearby', { token: user.access_token });
    expectErrorShape(before.body, 400, 'missing_input');
    const point = { date: Math.floor(Date.now() / 1000), location: { type: 'point', position: { latitude: -33.8688, longitude: 151.2094, horizontal_accuracy: 10 } } };
    expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
    const res = await api.get('/1/place/nearby', { token: user.access_token });
    expect(res.status).toBe(200);
    expect(res.body.places.map((p: any) => p.place_id)).toEqual([here.place_id]);
    expect(res.body.places[0].distance).toBeGreaterThan(0);
    // The application has no location of its own; half a point is still a mistake.
    expectErrorShape((await api.get('/1/place/nearby', { token })).body, 400, 'missing_input');
    expectErrorShape((await api.get('/1/place/nearby', { token: user.access_token, query: { longitude: 151 } })).body, 400, 'missing_input');
  });
});

describe('bad input', () => {
  const cases: Array<[string, Record<string, unknown>, number, string, string?]> = [
    ['latitude above 90', { latitude: 90.5 }, 400, 'invalid_input', 'latitude'],
    ['latitude below -90', { latitude: -91 }, 400, 'invalid_input', 'latitude'],
    ['longitude above 180', { longitude: 180.1 }, 400, 'invalid_input', 'longitude'],
    ['longitude not a number', { longitude: 'west' }, 400, 'invalid_input', 'longitude'],
    ['zero radius', { radius: 0 }, 400, 'invalid_input', 'radius'],
    ['radius over 1000 km', { radius: 1_000_001 }, 400, 'invalid_input', 'radius'],
    ['key over 200 characters', { key: 'k'.repeat(201) }, 400, 'invalid_input', 'key'],
    ['unparseable date_from', { date_from: 'next tuesday' }, 400, 'invalid_input', 'date_from'],
    ['unparseable date_to', { date_to: '2011-13-45T99:00:00Z' }, 400, 'invalid_input', 'date_to'],
    ['date_from after date_to', { date_from: 2000000000, date_to: 1000000000 }, 400, 'invalid_input', 'date_from'],
    ['bad time of day', { time_from: '25:00' }, 400, 'invalid_input', 'time_from'],
    ['extra not an object', { extra: 'blue' }, 400, 'invalid_input', 'extra'],
    ['geocode with coordinates', { geocode: 'Portland, OR' }, 400, 'invalid_input', 'geocode'],
    ['no latitude', { latitude: undefined }, 400, 'missing_input', 'latitude'],
    ['unknown layer', { layer_id: 'nope' }, 404, 'not_found', 'Layer'],
  ];

  it.each(cases)('%s: %d %s', async (_name, fields, status, error, mention) => {
    const before = (await allPlaces()).length;
    const res = await api.post('/1/place/create', { token, json: { name: 'bad', latitude: 45.5, longitude: -122.6, radius: 100, ...fields } });
    expect(res.status).toBe(status);
    expectErrorShape(res.body, status, error);
    if (mention) expect(res.body.error_description).toContain(mention);
    expect((await allPlaces()).length).toBe(before);
  });

  it('refuses malformed JSON and a missing token in the error shape', async () => {
    const bad = await api.post('/1/place/create', { token, rawBody: '{"latitude":', headers: { 'content-type': 'application/json' } });
    expectErrorShape(bad.body, 400);
    const anon = await api.post('/1/place/create', { json: { latitude: 1, longitude: 1, radius: 1 } });
    expectErrorShape(anon.body, 401, 'invalid_token');
  });
});

describe('user tokens', () => {
  it('list and search only the layers the user can see; writing needs the application token', async () => {
    const user = await createAnonUser(api, app);
    const privateLayer = await createLayer({ name: 'private' });
    const publicLayer = await createLayer({ name: 'public', public: 1 });
    const hidden = await createPlace({ layer_id: privateLayer, name: 'hidden', latitude: 1, longitude: 1 });
    const shown = await createPlace({ layer_id: publicLayer, name: 'shown', latitude: 1, longitude: 1 });
    const as = { token: user.access_token };

    expectErrorShape((await api.get('/1/place/list', { ...as, query: { layer_id: privateLayer } })).body, 404, 'not_found');
    expectErrorShape((await api.get('/1/place/nearby', { ...as, query: { layer_id: privateLayer, latitude: 1, longitude: 1 } })).body, 404, 'not_found');
    expect((await api.get('/1/place/list', { ...as, query: { layer_id: publicLayer } })).body.places.map((p: any) => p.place_id)).toEqual([shown.place_id]);

    await api.post(`/1/layer/subscribe/${privateLayer}`, { token, json: { user_id: user.user_id } });
    const nearby = await api.get('/1/place/nearby', { ...as, query: { layer_id: privateLayer, latitude: 1, longitude: 1 } });
    expect(nearby.body.places.map((p: any) => p.place_id)).toEqual([hidden.place_id]);

    const write = await api.post('/1/place/create', { ...as, json: { latitude: 1, longitude: 1, radius: 5 } });
    expectErrorShape(write.body, 403, 'access_denied');
    expectErrorShape((await api.get(`/1/place/info/${shown.place_id}`, as)).body, 403, 'access_denied');
  });
});
