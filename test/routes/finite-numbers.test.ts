// "Infinity", "-Infinity" and "1e999" where a number is expected: a 400 that names the field, and
// nothing stored. ajv's coercion made them ±Infinity and then skipped minimum/maximum: a place of
// radius Infinity matched every point (until a restart stored it as null), and a trigger_after of
// Infinity broke trigger/state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

describe('non-finite numbers', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
  });
  afterAll(() => server.close());

  const geo = { latitude: 45.5, longitude: -122.6, radius: 100 };

  it.each([
    ['/1/place/create', { ...geo, latitude: 'Infinity' }, 'body.latitude'],
    ['/1/place/create', { ...geo, radius: '1e999' }, 'body.radius'],
    ['/1/trigger/create', { ...geo, longitude: '-Infinity', type: 'message', text: 'hi' }, 'body.longitude'],
    ['/1/trigger/create', { ...geo, trigger_after: 'Infinity', type: 'message', text: 'hi' }, 'body.trigger_after'],
    ['/1/layer/create', { name: 'L', trigger_rate_limit: 'Infinity' }, 'body.trigger_rate_limit'],
  ])('POST %s with %j is refused, JSON or form, and nothing is stored', async (path, fields, name) => {
    for (const body of [{ json: fields }, { form: fields }]) {
      const res = await api.post(path, { token: app.access_token, ...body });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toBe(`${name} must be a finite number`);
    }
    expect((await api.get('/1/place/list', { token: app.access_token })).body.places).toEqual([]);
    expect((await api.get('/1/trigger/list', { token: app.access_token })).body.triggers).toEqual([]);
  });

  it('query numbers too', async () => {
    const user = await createAnonUser(api, app);
    expectErrorShape((await api.get('/1/place/list', { token: app.access_token, query: { limit: 'Infinity' } })).body, 400, 'invalid_input');
    const res = await api.get('/1/location/history', { token: user.access_token, query: { count: '1e999' } });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toBe('querystring.count must be a finite number');
  });

  it('numbers sent as strings still work', async () => {
    const res = await api.post('/1/place/create', { token: app.access_token, form: { latitude: '45.5', longitude: '-122.6', radius: '100.5' } });
    expect(res.status).toBe(200);
    expect(res.body.radius).toBe(100.5);
  });
});
