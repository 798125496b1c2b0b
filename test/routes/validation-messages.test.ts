// What a refused field is told: a field sent twice says so, and a field that takes one of several
// kinds of value (a union) says what is wrong with the kind it was sent, not with the first kind listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'messages');
  user = await createAnonUser(api, app);
});
afterAll(() => server?.close());

function expectInvalid(res: ApiResponse, description: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expectErrorShape(res.body, 400, 'invalid_input');
  expect(res.body.error_description).toBe(description);
}

describe('a field given more than once', () => {
  it('is named in the query string', async () => {
    const res = await api.get('/1/location/history?count=1&count=2', { token: user.access_token });
    expectInvalid(res, 'querystring.count was given more than once');
    const sort = await api.get('/1/location/history?sort=asc&sort=desc', { token: user.access_token });
    expectInvalid(sort, 'querystring.sort was given more than once');
  });

  it('is named in a form body, and nothing is changed', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'name=a&bio=b&name=c',
    });
    expectInvalid(res, 'body.name was given more than once');
    expect((await api.get('/1/account/profile', { token: user.access_token })).body).toMatchObject({ name: '', bio: '' });
  });

  it('leaves a one-item list and a JSON list as they were', async () => {
    const single = await api.post('/1/account/profile', {
      token: user.access_token, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'name[]=Solo',
    });
    expect(single.status).toBe(200);
    expect(single.body.name).toBe('Solo');
    // In JSON a list is written as one: the schema's own message says what is wrong with it.
    expectInvalid(await api.post('/1/account/profile', { token: user.access_token, json: { name: ['a', 'b'] } }), 'body.name must be string');
  });
});

describe('a field taking one of several kinds of value', () => {
  const trigger = { latitude: 1, longitude: 1, radius: 100, type: 'message', text: 'hi' };
  const triggerCount = async () => (await api.get('/1/trigger/list', { token: app.access_token })).body.triggers.length;

  it('says what a time of day is when sent one out of range, as JSON or as a form', async () => {
    const before = await triggerCount();
    const expected = 'body.time_from must be a time of day HH:MM or HH:MM:SS (00:00-23:59) or null';
    expectInvalid(await api.post('/1/trigger/create', { token: app.access_token, json: { ...trigger, time_from: '25:00' } }), expected);
    expectInvalid(await api.post('/1/trigger/create', { token: app.access_token, form: { ...trigger, time_from: '25:00' } }), expected);
    expectInvalid(
      await api.post('/1/trigger/create', { token: app.access_token, json: { ...trigger, time_to: { h: 1 } } }),
      'body.time_to must be null or a time of day HH:MM or HH:MM:SS (00:00-23:59)',
    );
    expect(await triggerCount()).toBe(before);
  });

  it('names the bound a date broke, or every kind a date can be', async () => {
    expectInvalid(
      await api.post('/1/trigger/create', { token: app.access_token, json: { ...trigger, date_from: 'x'.repeat(65) } }),
      'body.date_from must NOT have more than 64 characters',
    );
    expectInvalid(
      await api.post('/1/trigger/create', { token: app.access_token, json: { ...trigger, date_to: [1, 2] } }),
      'body.date_to must be null or a number or a string',
    );
  });

  it('lists the values a choice takes, and says what a flag is', async () => {
    expectInvalid(await api.get('/1/location/history', { token: user.access_token, query: { sort: 'up' } }), 'querystring.sort must be "asc" or "desc"');
    expectInvalid(await api.post('/1/account/profile', { token: user.access_token, json: { public_location: 2 } }), 'body.public_location must be 1, 0, true or false');
  });
});

describe('null where a field takes a non-empty string or a name', () => {
  const token = () => app.access_token;

  it('says null is not a key, and on an update how to keep the key; nothing is changed', async () => {
    const layer = (await api.post('/1/layer/create', { token: token(), json: { name: 'keyed', key: 'k1' } })).body;
    expectInvalid(
      await api.post(`/1/layer/update/${layer.layer_id}`, { token: token(), json: { key: null } }),
      'body.key must be a non-empty string, not null (null is not a key; to keep the current key, leave the field out)',
    );
    const trigger = (await api.post('/1/trigger/create', { token: token(), json: { latitude: 1, longitude: 1, radius: 10, text: 'x', key: 't1' } })).body;
    expectInvalid(
      await api.post(`/1/trigger/update/${trigger.trigger_id}`, { token: token(), json: { key: null, text: 'changed' } }),
      'body.key must be a non-empty string, not null (null is not a key; to keep the current key, leave the field out)',
    );
    expect((await api.get(`/1/layer/info/${layer.layer_id}`, { token: token() })).body.key).toBe('k1');
    expect((await api.get(`/1/trigger/info/${trigger.trigger_id}`, { token: token() })).body).toMatchObject({ key: 't1', text: 'x' });
    // On a create, leaving it out sends none; a field the route requires is only told what it takes.
    expectInvalid(
      await api.post('/1/trigger/create', { token: token(), json: { latitude: 1, longitude: 1, radius: 10, text: 'x', key: null } }),
      'body.key must be a non-empty string, not null (null is not a key; to send none, leave the field out)',
    );
    expectInvalid(await api.post('/1/layer/create', { token: token(), json: { name: null } }), 'body.name must be a non-empty string, not null');
    // An empty string is still told it is too short.
    expectInvalid(await api.post(`/1/layer/update/${layer.layer_id}`, { token: token(), json: { key: '' } }), 'body.key must NOT have fewer than 1 characters');
  });

  it('quotes a time zone as sent: null, not ""', async () => {
    expectInvalid(await api.post('/1/account/profile', { token: user.access_token, json: { timezone: null } }), 'timezone null is not a known time zone name');
    expectInvalid(await api.post('/1/account/profile', { token: user.access_token, json: { timezone: '' } }), 'timezone "" is not a known time zone name');
    expectInvalid(
      await api.post(`/1/user/update/${user.user_id}`, { token: token(), json: { timezone: 'Mars/Olympus' } }),
      'timezone "Mars/Olympus" is not a known time zone name',
    );
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.timezone).toBe('UTC');
  });
});
