// location/context and `geocode` (place/create, trigger/create's inline place), answered from the
// bundled GeoNames data with no network service (services/geocoder.ts), through the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineM } from '../../src/geo/distance.js';
import { cityRadiusM } from '../../src/geo/gazetteer.js';
import type { Geocoder } from '../../src/services/geocoder.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { monotonicClock, startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp({ now: monotonicClock() });
  api = server.api;
  app = await createApp(api, 'geocoding');
  user = await createAnonUser(api, app);
});
afterAll(async () => server?.close());

const context = (query: Record<string, unknown>, creds: { token?: string; basic?: [string, string] } = { token: user.access_token }) =>
  api.get('/1/location/context', { ...creds, query });
const placeCount = async () =>
  (await api.get('/1/place/list', { token: app.access_token, query: { include_unnamed: 1, limit: 0 } })).body.places.length as number;

describe('location/context', () => {
  it('reads its data on the first lookup, not at start, and answers in the reference\'s shape', async () => {
    expect((server.app.ctx.geocoder as Geocoder).loaded).toBe(false);
    const res = await context({ latitude: 37.7793, longitude: -122.4193 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      locality_name: 'San Francisco', region_name: 'CA', postal_code: null, full_name: 'San Francisco, CA', best_name: 'San Francisco',
      country_code: 'US', country_name: 'United States',
    });
    expect((server.app.ctx.geocoder as Geocoder).loaded).toBe(true);
  });

  it('names the town a point is in rather than the centre of the big city nearby', async () => {
    const oakland = await context({ latitude: 37.8044, longitude: -122.2711 });
    expect(oakland.body).toMatchObject({ locality_name: 'Oakland', region_name: 'CA', full_name: 'Oakland, CA' });
  });

  it('outside the US: the division by name and the country in full_name', async () => {
    const res = await context({ latitude: 48.8566, longitude: 2.3522 }, { token: app.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      locality_name: 'Paris', region_name: 'Île-de-France', postal_code: null, full_name: 'Paris, Île-de-France, France', best_name: 'Paris',
      country_code: 'FR', country_name: 'France',
    });
  });

  it('takes the application\'s key and secret as HTTP Basic (the iOS sample\'s way)', async () => {
    const res = await context({ latitude: 45.5231, longitude: -122.6765 }, { basic: [app.client_id, app.client_secret] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ locality_name: 'Portland', region_name: 'OR', full_name: 'Portland, OR' });
  });

  it('far from any town: the region and country only; mid-ocean: nulls, not an error', async () => {
    const desert = await context({ latitude: 39.5, longitude: -117 });
    expect(desert.body).toMatchObject({ locality_name: null, region_name: 'NV', full_name: 'NV', best_name: 'NV', country_code: 'US' });
    const ocean = await context({ latitude: 0, longitude: -150 });
    expect(ocean.status).toBe(200);
    expect(ocean.body).toEqual({
      locality_name: null, region_name: null, postal_code: null, full_name: null, best_name: null, country_code: null, country_name: null,
    });
  });

  it.each([
    ['latitude above 90', { latitude: 90.5, longitude: 0 }, 'latitude'],
    ['longitude below -180', { latitude: 0, longitude: -180.5 }, 'longitude'],
    ['latitude not a number', { latitude: 'north', longitude: 0 }, 'latitude'],
    ['no longitude', { latitude: 10 }, 'longitude'],
  ])('%s: 400 in the error shape', async (_name, query, mention) => {
    const res = await context(query);
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400);
    expect(res.body.error_description).toContain(mention);
  });

  it('needs a credential: none, or a wrong secret, is a 401', async () => {
    expectErrorShape((await context({ latitude: 1, longitude: 1 }, {})).body, 401);
    expectErrorShape((await context({ latitude: 1, longitude: 1 }, { basic: [app.client_id, 'wrong'] })).body, 401, 'invalid_client');
  });
});

describe('place/create with geocode', () => {
  it('creates the place at the most populous match, sized from the city\'s population', async () => {
    const res = await api.post('/1/place/create', { token: app.access_token, json: { name: 'PDX', geocode: 'Portland, OR' } });
    expect(res.status).toBe(200);
    const { latitude, longitude, radius } = res.body;
    expect(haversineM(latitude, longitude, 45.5231, -122.6765)).toBeLessThan(2_000);
    expect(radius).toBeGreaterThan(5_000);
    expect(radius).toBeLessThanOrEqual(cityRadiusM(Number.MAX_SAFE_INTEGER));
    const info = await api.get(`/1/place/info/${res.body.place_id}`, { token: app.access_token });
    expect(info.body).toMatchObject({ name: 'PDX', latitude, longitude, radius });
  });

  it('reads the region or country by code or name; a bare name is the largest place of that name', async () => {
    const at = async (geocode: string, fields: Record<string, unknown> = {}) => {
      const res = await api.post('/1/place/create', { token: app.access_token, json: { geocode, ...fields } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { latitude: number; longitude: number; radius: number };
    };
    const oregon = await at('portland, oregon');
    expect(haversineM(oregon.latitude, oregon.longitude, 45.5231, -122.6765)).toBeLessThan(2_000);
    const paris = await at('Paris, FR');
    expect(haversineM(paris.latitude, paris.longitude, 48.8566, 2.3522)).toBeLessThan(2_000);
    expect(await at('Paris')).toMatchObject({ latitude: paris.latitude, longitude: paris.longitude });
    const texas = await at('Paris, Texas');
    expect(haversineM(texas.latitude, texas.longitude, 33.66, -95.555)).toBeLessThan(5_000);
    expect(texas.radius).toBeLessThan(paris.radius);
    const sized = await at('Paris, France', { radius: 250 });
    expect(sized.radius).toBe(250);
  });

  it.each([
    ['a name no data set place has', { geocode: 'Zzyzxq Nowhere' }, 'invalid_input', 'Zzyzxq Nowhere'],
    ['a known name in the wrong region', { geocode: 'Portland, Texas, France' }, 'invalid_input', 'geocode'],
    ['an address (only towns are known)', { geocode: "Powell's Books, Portland, OR" }, 'invalid_input', 'geocode'],
    ['geocode and coordinates', { geocode: 'Portland, OR', latitude: 45.5, longitude: -122.6 }, 'invalid_input', 'geocode'],
    ['an empty geocode', { geocode: '' }, 'invalid_input', 'geocode'],
  ])('%s: 400, nothing stored', async (_name, fields, error, mention) => {
    const before = await placeCount();
    const res = await api.post('/1/place/create', { token: app.access_token, json: { name: 'nope', ...fields } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, error);
    expect(res.body.error_description).toContain(mention);
    expect(await placeCount()).toBe(before);
  });

  it("another application's layer reads as a missing one, and nothing is stored on it", async () => {
    const other = await createApp(api, 'geocoding other');
    const before = await placeCount();
    const res = await api.post('/1/place/create', { token: other.access_token, json: { geocode: 'Portland, OR', layer_id: app.default_layer_id } });
    expectErrorShape(res.body, 404, 'not_found');
    expect(await placeCount()).toBe(before);
  });

  it('trigger/create makes its inline place from geocode too', async () => {
    const res = await api.post('/1/trigger/create', { token: app.access_token, json: { geocode: 'Springfield, IL', type: 'message', text: 'hi', place_name: 'Springfield' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const place = await api.get(`/1/place/info/${res.body.place_id}`, { token: app.access_token });
    expect(haversineM(place.body.latitude, place.body.longitude, 39.8017, -89.6437)).toBeLessThan(2_000);
  });
});
