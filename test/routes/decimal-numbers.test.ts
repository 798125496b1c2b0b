// A number sent as text is read only when it is plain decimal. Number() (and so ajv's coercion,
// and the location/update reader) also read " " as 0, "0x1A" as 26, "0b11", "0o7" and " 45 ", and
// ajv read a JSON null as 0 and true as 1: a place at latitude 0 was stored from a blank field. Now
// each is a 400 naming the field, in JSON bodies, form bodies and query strings, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'decimal numbers');
  user = await createAnonUser(api, app);
});
afterAll(() => server?.close());

const NOT_DECIMAL = [' ', '0x1A', '0b11', '0o7', ' 45 ', '45\n'];
const geo = { latitude: '45.5', longitude: '-122.6', radius: '100' };
const places = async () => (await api.get('/1/place/list', { token: app.access_token })).body.places;
const triggers = async () => (await api.get('/1/trigger/list', { token: app.access_token })).body.triggers;

describe('number fields sent as text', () => {
  it.each(NOT_DECIMAL)('place/create latitude %j is 400 naming the field, JSON or form, and nothing is stored', async (latitude) => {
    for (const body of [{ json: { ...geo, latitude } }, { form: { ...geo, latitude } }, { form: { ...geo, latitude: [latitude] } }]) {
      const res = await api.post('/1/place/create', { token: app.access_token, ...body });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toBe('body.latitude must be a decimal number');
    }
    expect(await places()).toEqual([]);
  });

  it('a JSON null or boolean where only a number goes is 400, not 0 or 1', async () => {
    for (const radius of [null, true, false]) {
      const res = await api.post('/1/place/create', { token: app.access_token, json: { ...geo, radius } });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toBe('body.radius must be a number');
    }
    expect(await places()).toEqual([]);
  });

  it('trigger/create: integers and dates as text follow the same rule', async () => {
    const trigger = { ...geo, type: 'message', text: 'hi' };
    for (const [field, value, said] of [
      ['trigger_after', ' ', 'must be a decimal number'],
      ['trigger_after', '0x10', 'must be a decimal number'],
      ['radius', ' 100', 'must be a decimal number'],
      ['date_from', ' ', 'must be a Unix timestamp or an ISO-8601 date'],
      ['date_from', '0x10', 'must be a Unix timestamp or an ISO-8601 date'],
      ['one_time', '0x1', 'must be 1, 0, true or false'],
    ]) {
      const res = await api.post('/1/trigger/create', { token: app.access_token, form: { ...trigger, [field]: value } });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description, `${field}=${JSON.stringify(value)}`).toBe(`body.${field} ${said}`);
    }
    expect(await triggers()).toEqual([]);
  });

  it('query numbers: location/history count and user/list limit', async () => {
    for (const value of [' ', '0x5', ' 5']) {
      const history = await api.get('/1/location/history', { token: user.access_token, query: { count: value } });
      expectErrorShape(history.body, 400, 'invalid_input');
      expect(history.body.error_description).toBe('querystring.count must be a decimal number');
      const list = await api.get('/1/user/list', { basic: [app.client_id, app.client_secret], query: { limit: value } });
      expectErrorShape(list.body, 400, 'invalid_input');
      expect(list.body.error_description).toBe('querystring.limit must be a decimal number');
    }
  });

  it('a 0/1 flag as " " or "0x1" is 400 and changes nothing; "1", "true", "0", "false" still work', async () => {
    for (const value of [' ', '0x1']) {
      const res = await api.post('/1/account/profile', { token: user.access_token, form: { public_location: value } });
      expectErrorShape(res.body, 400, 'invalid_input');
      expect(res.body.error_description).toBe('body.public_location must be 1, 0, true or false');
    }
    for (const [value, stored] of [['1', 1], ['0', 0], ['true', 1], ['false', 0]] as const) {
      expect((await api.post('/1/account/profile', { token: user.access_token, form: { public_location: value } })).status).toBe(200);
      expect((await api.get('/1/account/profile', { token: user.access_token })).body.public_location).toBe(stored);
    }
  });

  it('plain decimal text is read as its number: sign, fraction, exponent', async () => {
    const res = await api.post('/1/place/create', { token: app.access_token, form: { latitude: '+45.25', longitude: '-.5', radius: '1.5e2' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ latitude: 45.25, longitude: -0.5, radius: 150 });
    const list = await api.get('/1/user/list', { basic: [app.client_id, app.client_secret], query: { limit: '2' } });
    expect(list.body.paging.limit).toBe(2);
  });
});

describe('a long run of digits sent as a number', () => {
  it('is refused at once, and the service goes on answering', async () => {
    // 300,000 digits and an "x": the first plain-decimal pattern backtracked quadratically on it (minutes).
    // Number fields are checked after the credential: without one the caller hears only its 401.
    const latitude = `${'1'.repeat(300_000)}x`;
    const res = await api.post('/1/place/create', { token: app.access_token, json: { latitude, longitude: '1', radius: '10' } });
    expectErrorShape(res.body, 400, 'invalid_input');
    expectErrorShape((await api.post('/1/place/create', { json: { latitude, longitude: '1', radius: '10' } })).body, 401, 'invalid_token');
    expect((await api.get('/health')).status).toBe(200);
  });
});

describe('location/update point fields sent as text', () => {
  const point = (latitude: unknown, i = 0) => ({
    date: new Date(Date.now() - 60_000 + i * 1000).toISOString(),
    location: { position: { latitude, longitude: '-122.6', horizontal_accuracy: '10' } },
  });

  it.each(NOT_DECIMAL)('latitude %j is 400 naming the point, in a short body and a long one (read in the shards)', async (latitude) => {
    const short = await api.post('/1/location/update', { token: user.access_token, json: [point(latitude)] });
    expectErrorShape(short.body, 400, 'invalid_input');
    expect(short.body.error_description).toContain('point 0: location.position.latitude must be a number');
    const long = [...Array.from({ length: 30 }, (_, i) => point('45.5', i)), point(latitude, 30)];
    const res = await api.post('/1/location/update', { token: user.access_token, json: long });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toContain('point 30: location.position.latitude must be a number');
    expect((await api.get('/1/location/last', { token: user.access_token })).status).toBe(404);
  });

  it('"0x10" as horizontal_accuracy is 400; decimal text is read', async () => {
    const bad = point('45.5');
    bad.location.position.horizontal_accuracy = '0x10';
    expectErrorShape((await api.post('/1/location/update', { token: user.access_token, json: [bad] })).body, 400, 'invalid_input');
    expect((await api.post('/1/location/update', { token: user.access_token, json: [point('45.5')] })).status).toBe(200);
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.body.location.position).toMatchObject({ latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 });
  });
});
