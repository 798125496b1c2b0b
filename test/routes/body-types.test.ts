// Which request bodies the API reads: JSON and form-encoded, with or without a leading UTF-8 byte
// order mark (RFC 8259 §8.1; .NET and Windows tools send one); any other type is a 415 naming the two.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const BOM = '\ufeff';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'body types');
  user = await createAnonUser(api, app);
});
afterAll(() => server?.close());

const profile = async () => (await api.get('/1/account/profile', { token: user.access_token })).body;

describe('a body starting with a byte order mark', () => {
  it('is read as JSON on an ordinary route', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody: `${BOM}{"name":"Bom Json"}`,
    });
    expect(res.status).toBe(200);
    expect((await profile()).name).toBe('Bom Json');
  });

  it('is read as a form, its first field kept under its own name', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: `${BOM}name=Bom+Form&bio=b`,
    });
    expect(res.status).toBe(200);
    expect(await profile()).toMatchObject({ name: 'Bom Form', bio: 'b' });
  });

  it('is read on location/update, a short body and a long one (both read in the shards)', async () => {
    const t = Math.floor(Date.now() / 1000);
    const point = (i: number) => ({ date: t - 100 + i, location: { position: { latitude: 10 + i / 100, longitude: 20 } }, raw: { note: 'x'.repeat(40) } });
    const short = JSON.stringify([point(0)]);
    const long = JSON.stringify(Array.from({ length: 40 }, (_, i) => point(i + 1)));
    for (const [body, latitude] of [[short, 10], [long, 10.4]] as const) {
      const res = await api.post('/1/location/update', {
        token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody: BOM + body,
      });
      expect(res.status, res.body?.error_description).toBe(200);
      const last = await api.get('/1/location/last', { token: user.access_token });
      expect(last.body.location.position.latitude).toBe(latitude);
    }
  });

  it('is still refused when what follows it is not JSON', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token, headers: { 'content-type': 'application/json' }, rawBody: `${BOM}{name:`,
    });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_request');
  });
});

describe('a body of a type the API does not read', () => {
  it('is a 415 naming the accepted types, for text/plain as for multipart, and changes nothing', async () => {
    const before = await profile();
    const form = new FormData();
    form.set('name', 'multipart');
    // The bytes and the type (with its boundary) a client sends for a multipart form.
    const multipart = new Request('http://localhost/', { method: 'POST', body: form });
    const attempts = [
      api.post('/1/account/profile', { token: user.access_token, headers: { 'content-type': 'text/plain' }, rawBody: '{"name":"plain"}' }),
      api.post('/1/account/profile', { token: user.access_token, headers: { 'content-type': 'text/plain; charset=utf-8' }, rawBody: 'name=plain' }),
      api.post('/1/location/update', { token: user.access_token, headers: { 'content-type': 'text/plain' }, rawBody: '[]' }),
      api.post('/1/account/profile', {
        token: user.access_token, headers: { 'content-type': multipart.headers.get('content-type')! }, rawBody: await multipart.text(),
      }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(415);
      expectErrorShape(res.body, 415, 'unsupported_media_type');
      expect(res.body.error_description).toContain('application/json');
      expect(res.body.error_description).toContain('application/x-www-form-urlencoded');
    }
    expect(await profile()).toEqual(before);
  });

  it('leaves a POST with no body and no type read as {}', async () => {
    const res = await api.post('/1/account/profile', { token: user.access_token });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.user_id);
  });

  it("leaves an empty text/plain body read as no body: fetch's `body: ''` on a delete, or on a route taking fields", async () => {
    const gone = await createAnonUser(api, app);
    // fetch sends a string body as text/plain;charset=UTF-8.
    const deleted = await api.post(`/1/user/delete/${gone.user_id}`, { token: app.access_token, headers: { 'content-type': 'text/plain;charset=UTF-8' }, rawBody: '' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await api.get(`/1/user/info/${gone.user_id}`, { token: app.access_token })).status).toBe(404);
    const res = await api.post('/1/account/profile', { token: user.access_token, headers: { 'content-type': 'text/plain' }, rawBody: '' });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.user_id);
  });
});
