// Dates a client sends are kept within years 0001-9999. A date far beyond (1e21 seconds, a negative
// one of -1e14) was stored, and every read that shows it answered 500 from then on: location/last
// and location/history for a point, layer/info and layer/users for a place window. Now it is a 400
// in the error shape, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const point = (date: unknown) => ({ date, location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } }, raw: null });

describe('dates out of range', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
  });
  afterAll(() => server.close());

  it.each([-1e14, -1e21, '0000-06-01T00:00:00Z', '-99999999999999'])('location/update refuses the date %s, and the reads still work', async (date) => {
    const user = await createAnonUser(api, app);
    const ok = await api.post('/1/location/update', { token: user.access_token, json: [point('2024-05-31T10:00:00Z')] });
    expect(ok.status).toBe(200);
    const res = await api.post('/1/location/update', { token: user.access_token, json: [point(date)] });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toContain('point 0: date must be a date between the years 0001 and 9999');
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.status).toBe(200);
    expect(last.body.date_ts).toBe(Date.parse('2024-05-31T10:00:00Z') / 1000);
    const history = await api.get('/1/location/history', { token: user.access_token });
    expect(history.status).toBe(200);
  });

  it('accepts the oldest and a far-future-but-allowed window date, and shows them', async () => {
    const res = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 45, longitude: -122, radius: 50, date_from: '0001-01-03T00:00:00Z', date_to: '9999-12-30T00:00:00Z' } });
    expect(res.status).toBe(200);
    const info = await api.get(`/1/place/info/${res.body.place_id}`, { token: app.access_token });
    expect(info.status).toBe(200);
    expect(info.body.date_from).toMatch(/^0001-01-0[23]T/);
  });

  it.each([['date_from', 1e21], ['date_to', '1e+21'], ['date_from', -1e14]])('place/create refuses %s=%s and stores no place', async (field, value) => {
    const layer = await api.post('/1/layer/create', { token: app.access_token, json: { name: `L ${field} ${value}` } });
    for (const body of [{ json: { latitude: 45, longitude: -122, radius: 50, layer_id: layer.body.layer_id, [field]: value } }, { form: { latitude: 45, longitude: -122, radius: 50, layer_id: layer.body.layer_id, [field]: String(value) } }]) {
      const res = await api.post('/1/place/create', { token: app.access_token, ...body });
      expectErrorShape(res.body, 400, 'invalid_input');
    }
    const info = await api.get(`/1/layer/info/${layer.body.layer_id}`, { token: app.access_token, query: { include_places: 1 } });
    expect(info.status).toBe(200);
    const users = await api.get(`/1/layer/users/${layer.body.layer_id}`, { token: app.access_token });
    expect(users.status).toBe(200);
    const places = await api.get('/1/place/list', { token: app.access_token, query: { layer_id: layer.body.layer_id } });
    expect(places.body.places).toEqual([]);
  });

  it('location/history refuses an out-of-range after/before with a 400', async () => {
    const user = await createAnonUser(api, app);
    for (const query of [{ after: 1e21 }, { before: '-1e14' }]) {
      expectErrorShape((await api.get('/1/location/history', { token: user.access_token, query })).body, 400, 'invalid_input');
    }
  });
});
