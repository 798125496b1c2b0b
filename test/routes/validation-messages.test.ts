// What a refused field is told: a field sent twice says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startServer();
  api = new Api(server.url);
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
    const res = await fetch(`${server.url}/1/location/history?count=1&count=2`, { headers: { authorization: `OAuth ${user.access_token}` } });
    expectInvalid({ status: res.status, body: await res.json(), headers: res.headers }, 'querystring.count was given more than once');
    const sort = await fetch(`${server.url}/1/location/history?sort=asc&sort=desc`, { headers: { authorization: `OAuth ${user.access_token}` } });
    expectInvalid({ status: sort.status, body: await sort.json(), headers: sort.headers }, 'querystring.sort was given more than once');
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
