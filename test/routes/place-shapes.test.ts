// Shaped places through the API (docs/api.md "Shapes"): GeoJSON polygons and corridors on
// place/create, place/update and trigger/create's inline place, every refusal a 400 that says why
// with nothing stored, and the reads that carry or search places (info, list, nearby, layer bounds,
// layer/users, trigger/state).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { prepareShape } from '../../src/geo/shape.js';
import { edgeDistanceM } from '../../src/geo/shape-measure.js';
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
  app = await createApp(api, 'shapes');
  token = app.access_token;
});
afterAll(async () => server?.close());

const O = { lat: 45.5, lon: -122.6 };
const E = 111_195 * Math.cos((O.lat * Math.PI) / 180);
/** [longitude, latitude] of the point `east` and `north` metres from O. */
const at = (east: number, north: number): [number, number] => [O.lon + east / E, O.lat + north / 111_195];
/** A 200 m × 200 m lot missing its north-east quarter: an L. */
const L_RING = [at(0, 0), at(200, 0), at(200, 100), at(100, 100), at(100, 200), at(0, 200), at(0, 0)];
const L_LOT = { type: 'Polygon', coordinates: [L_RING] };
const ROUTE = { type: 'LineString', coordinates: [at(0, 0), at(1000, 0), at(1000, 1000)] };

const createLayer = async () => (await api.post('/1/layer/create', { token, json: { name: 'shapes' } })).body.layer_id as string;
const create = (json: Record<string, unknown>) => api.post('/1/place/create', { token, json });
const placesOn = async (layerId: string) =>
  (await api.get('/1/place/list', { token, query: { layer_id: layerId, include_unnamed: 1, limit: 0 } })).body.places as any[];

describe('place/create with a geometry', () => {
  it('stores a polygon and answers it with a centre inside it and the radius of the largest circle it holds', async () => {
    const res = await create({ name: 'Lot', geometry: L_LOT });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.geometry).toEqual(L_LOT);
    expect(res.body).not.toHaveProperty('width');
    const shape = prepareShape(L_LOT as never);
    expect(edgeDistanceM(shape, res.body.latitude, res.body.longitude)).toBeLessThan(-50);
    expect(res.body.radius).toBeGreaterThan(55);
    expect(res.body.radius).toBeLessThan(75);
    const info = await api.get(`/1/place/info/${res.body.place_id}`, { token });
    expect(info.body).toEqual(res.body);
  });

  it('stores a corridor: its width, half of it as the radius, the middle of its line as the centre', async () => {
    const res = await create({ name: 'Route', geometry: ROUTE, width: 50 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ geometry: ROUTE, width: 50, radius: 25 });
    const [lon, lat] = at(1000, 0);
    expect(Math.abs(res.body.latitude - lat) + Math.abs(res.body.longitude - lon)).toBeLessThan(1e-5);
  });

  it('takes the geometry as JSON text in a form body', async () => {
    const res = await api.post('/1/place/create', { token, form: { name: 'Form lot', geometry: JSON.stringify(L_LOT) } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.geometry).toEqual(L_LOT);
  });

  it('keeps a circle a circle: no geometry field', async () => {
    const res = await create({ latitude: O.lat, longitude: O.lon, radius: 80 });
    expect(res.body).not.toHaveProperty('geometry');
    expect(res.body.radius).toBe(80);
  });
});

describe('bad shapes get a 400 that says why, and nothing is stored', () => {
  const square = [at(0, 0), at(100, 0), at(100, 100), at(0, 100), at(0, 0)];
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a ring that is not closed', { geometry: { type: 'Polygon', coordinates: [square.slice(0, 4)] } }, /not closed/],
    ['fewer than 4 positions', { geometry: { type: 'Polygon', coordinates: [[at(0, 0), at(10, 0), at(0, 0)]] } }, /at least 4 positions/],
    ['a self-intersecting ring', { geometry: { type: 'Polygon', coordinates: [[at(0, 0), at(100, 100), at(100, 0), at(0, 100), at(0, 0)]] } }, /intersects itself/],
    ['a hole outside its shell', { geometry: { type: 'Polygon', coordinates: [square, [at(300, 300), at(310, 300), at(310, 310), at(300, 300)]] } }, /outside its outer ring/],
    ['a coordinate out of range', { geometry: { type: 'Polygon', coordinates: [[[0, 0], [190, 0], [1, 1], [0, 0]]] } }, /longitude 190 is out of range/],
    ['too many positions', { geometry: { type: 'LineString', coordinates: Array.from({ length: 2001 }, (_, i) => at(i, 0)) }, width: 5 }, /at most 2000 positions/],
    ['a corridor without a width', { geometry: ROUTE }, /send its width in metres/],
    ['an unknown geometry type', { geometry: { type: 'Point', coordinates: at(0, 0) } }, /not a shape a place can have/],
    ['a geometry with a radius', { geometry: L_LOT, radius: 100 }, /Send geometry or radius, not both/],
    ['a geometry with latitude and longitude', { geometry: L_LOT, latitude: O.lat, longitude: O.lon }, /not both/],
    ['a width without a geometry', { latitude: O.lat, longitude: O.lon, radius: 10, width: 5 }, /width is the width of a corridor/],
    ['a width for a polygon', { geometry: L_LOT, width: 5 }, /width is only for a corridor/],
    ['an edge across the antimeridian', { geometry: { type: 'Polygon', coordinates: [[[179.9, 0], [-179.9, 0], [-179.9, 0.1], [179.9, 0.1], [179.9, 0]]] } }, /antimeridian.*MultiPolygon/],
    ['a geometry that is not JSON', { geometry: '{"type":"Polygon",' }, /must be a GeoJSON object/],
  ];

  it.each(cases)('%s', async (_name, fields, message) => {
    const layerId = await createLayer();
    const res = await create({ layer_id: layerId, ...fields });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(message);
    expect(await placesOn(layerId)).toEqual([]);
  });

  it('an inline place of trigger/create the same way, and no trigger is made', async () => {
    const res = await api.post('/1/trigger/create', { token, json: { type: 'message', text: 'hi', key: 'bad-shape', geometry: { type: 'Polygon', coordinates: [square.slice(0, 4)] } } });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/not closed/);
    expect((await api.get('/1/trigger/list', { token, query: { limit: 0 } })).body.triggers.filter((t: any) => t.key === 'bad-shape')).toEqual([]);
  });
});

describe('place/update', () => {
  it('replaces the shape, turns it back into a circle with geometry null, and a circle into a shape', async () => {
    const p = (await create({ name: 'changing', geometry: L_LOT })).body;
    const square = { type: 'Polygon', coordinates: [[at(0, 0), at(300, 0), at(300, 300), at(0, 300), at(0, 0)]] };
    const squared = await api.post(`/1/place/update/${p.place_id}`, { token, json: { geometry: square } });
    expect(squared.status, JSON.stringify(squared.body)).toBe(200);
    expect(squared.body.geometry).toEqual(square);
    expect(squared.body.radius).toBeCloseTo(150, -1);

    const circle = await api.post(`/1/place/update/${p.place_id}`, { token, json: { geometry: null, radius: 40 } });
    expect(circle.body).not.toHaveProperty('geometry');
    expect(circle.body).toMatchObject({ latitude: squared.body.latitude, longitude: squared.body.longitude, radius: 40 });

    const back = await api.post(`/1/place/update/${p.place_id}`, { token, json: { geometry: ROUTE, width: 20 } });
    expect(back.body).toMatchObject({ geometry: ROUTE, width: 20, radius: 10 });
  });

  it('takes back the centre and radius it answered unchanged, refuses other values, and widens a corridor by width alone', async () => {
    const p = (await create({ name: 'echo', geometry: ROUTE, width: 30 })).body;
    const echo = await api.post(`/1/place/update/${p.place_id}`, { token, json: { name: 'renamed', latitude: p.latitude, longitude: p.longitude, radius: p.radius } });
    expect(echo.status, JSON.stringify(echo.body)).toBe(200);
    expect(echo.body).toMatchObject({ name: 'renamed', geometry: ROUTE, width: 30 });

    const moved = await api.post(`/1/place/update/${p.place_id}`, { token, json: { radius: 500 } });
    expectErrorShape(moved.body, 400, 'invalid_input');
    expect(moved.body.error_description).toMatch(/come from its geometry.*geometry null/);

    const wider = await api.post(`/1/place/update/${p.place_id}`, { token, json: { width: 80 } });
    expect(wider.body).toMatchObject({ width: 80, radius: 40, geometry: ROUTE });
    const info = (await api.get(`/1/place/info/${p.place_id}`, { token })).body;
    expect(info).toMatchObject({ name: 'renamed', width: 80 });
  });

  it('refuses a bad geometry and keeps the place as it was', async () => {
    const p = (await create({ name: 'kept', geometry: L_LOT })).body;
    const res = await api.post(`/1/place/update/${p.place_id}`, { token, json: { geometry: { type: 'Polygon', coordinates: [[at(0, 0), at(100, 100), at(100, 0), at(0, 100), at(0, 0)]] } } });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect((await api.get(`/1/place/info/${p.place_id}`, { token })).body).toEqual(p);
    const width = await api.post(`/1/place/update/${p.place_id}`, { token, json: { width: 10 } });
    expect(width.body.error_description).toMatch(/only for a corridor/);
  });
});

describe('trigger/create with an inline shaped place', () => {
  it('makes the place with its geometry and answers it nested', async () => {
    const res = await api.post('/1/trigger/create', { token, json: { type: 'message', text: 'On the route', trigger_on: 'leave', geometry: ROUTE, width: 40, place_name: 'Route' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.place).toMatchObject({ name: 'Route', geometry: ROUTE, width: 40, radius: 20 });
    const place = await api.post('/1/trigger/create', { token, json: { type: 'message', text: 'x', place_id: res.body.place_id, geometry: L_LOT } });
    expectErrorShape(place.body, 400, 'invalid_input');
  });
});

describe('reads that search places measure shapes from their edge', () => {
  it('place/nearby: a point in the missing corner of the L is not in it; inside the L is; distance reaches the edge', async () => {
    const layerId = await createLayer();
    const lot = (await create({ layer_id: layerId, name: 'L', geometry: L_LOT })).body;
    const near = async (east: number, north: number, distance?: number) => {
      const [longitude, latitude] = at(east, north);
      const res = await api.get('/1/place/nearby', { token, query: { layer_id: layerId, latitude, longitude, ...(distance !== undefined ? { distance } : {}) } });
      return res.body.places.map((p: any) => p.place_id);
    };
    expect(await near(50, 150)).toEqual([lot.place_id]);
    // 50 m into the missing corner: outside the L, whose circle of the same centre would hold it.
    expect(await near(150, 150)).toEqual([]);
    expect(await near(150, 150, 40)).toEqual([]);
    expect(await near(150, 150, 60)).toEqual([lot.place_id]);
    const [longitude, latitude] = at(50, 150);
    const body = (await api.get('/1/place/nearby', { token, query: { layer_id: layerId, latitude, longitude } })).body;
    expect(body.places[0].geometry).toEqual(L_LOT);
  });

  it('layer/info: the bounds hold every shape', async () => {
    const layerId = await createLayer();
    await create({ layer_id: layerId, geometry: L_LOT });
    await create({ layer_id: layerId, geometry: ROUTE, width: 100 });
    const { bounds } = (await api.get(`/1/layer/info/${layerId}`, { token })).body;
    const [maxLon, maxLat] = at(1000, 1000);
    expect(bounds.ne.latitude).toBeGreaterThanOrEqual(maxLat);
    expect(bounds.ne.longitude).toBeGreaterThan(maxLon);
    expect(bounds.sw.latitude).toBeLessThan(O.lat);
    expect(bounds.sw.longitude).toBeLessThan(O.lon);
  });

  it('layer/users and place/list carry the geometry', async () => {
    const layerId = await createLayer();
    const lot = (await create({ layer_id: layerId, geometry: L_LOT })).body;
    const users = (await api.get(`/1/layer/users/${layerId}`, { token })).body;
    expect(users.places[lot.place_id].place.geometry).toEqual(L_LOT);
    expect((await placesOn(layerId))[0].geometry).toEqual(L_LOT);
  });

  it('trigger/state explains an outside user against the polygon\'s edge and its margin', async () => {
    const t = (await api.post('/1/trigger/create', { token, json: { type: 'message', text: 'in the lot', geometry: L_LOT } })).body;
    const user = await createAnonUser(api, app);
    // 12 m east of the L's east edge (x = 200), in its lower arm.
    const p = destinationPoint(at(200, 50)[1], at(200, 50)[0], 90, 12);
    const date = Math.floor(Date.now() / 1000);
    await api.post('/1/location/update', { token: user.access_token, json: [{ date, location: { position: { latitude: p.lat, longitude: p.lon, horizontal_accuracy: 5 } } }] });
    const [m] = (await api.get(`/1/trigger/state/${t.trigger_id}`, { token, query: { user_id: user.user_id } })).body.machines;
    expect(m).toMatchObject({ state: 'outside', zone: 'band', explanation_code: 'zone_band', boundary: { shape: 'polygon', margin_m: 20 } });
    expect(m.boundary.outside_m).toBeCloseTo(12, 0);
    expect(m.explanation).toBe('The last point is in the hysteresis band (12 m outside the polygon\'s edge, inside the 20 m leave margin): it changes nothing.');
  });
});
