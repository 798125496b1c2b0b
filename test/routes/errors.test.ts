// Bad input and unknown paths: always a 4xx in the error shape {error_code, error,
// error_description}, never a 5xx, never a crash; plus /health and the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, createAnonUser, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'errors app');
  user = await createAnonUser(api, app);
});
afterAll(async () => {
  await server?.close();
});

describe('health and documents', () => {
  it('GET /health answers 200 {"status":"ok"}', async () => {
    const res = await api.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('serves the OpenAPI document generated from the schemas, listing the /1/ methods', async () => {
    const res = await api.get('/docs/json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const p of ['/1/oauth/token', '/1/user/create_anon', '/1/user/list', '/1/account/profile']) expect(Object.keys(res.body.paths)).toContain(p);
    const createAnon = res.body.paths['/1/user/create_anon'].post;
    expect(JSON.stringify(createAnon.requestBody)).toContain('client_id');
  });

  it('declares the optional Timezone header on every /1/ method, and only as documentation', async () => {
    const doc = (await api.get('/docs/json')).body as { paths: Record<string, Record<string, { parameters?: unknown[] }>>; components: { parameters: Record<string, unknown> } };
    expect(doc.components.parameters.Timezone).toMatchObject({ name: 'Timezone', in: 'header', required: false });
    const operations = Object.entries(doc.paths).filter(([p]) => p.startsWith('/1/')).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => [`${m} ${p}`, op] as const));
    expect(operations.length).toBeGreaterThan(40);
    for (const [name, op] of operations) expect(op.parameters, name).toContainEqual({ $ref: '#/components/parameters/Timezone' });
    // A malformed header is ignored, not refused.
    const res = await api.get('/1/account/profile', { token: user.access_token, headers: { timezone: 'not;;a/zone' } });
    expect(res.status).toBe(200);
  });
});

describe('unknown paths', () => {
  it.each([
    ['GET', '/1/nothing/here'],
    ['POST', '/1/user/frobnicate'],
    ['GET', '/'],
    ['GET', '/2/user/list'],
    ['DELETE', '/1/user/delete/x'],
    ['GET', '/1/user/create_anon'],
  ])('%s %s is 404 not_found in the error shape', async (method, path) => {
    const res = await api.request(method, path, { token: user.access_token });
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 404, 'not_found');
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  });
});

describe('malformed and oversized bodies', () => {
  it('malformed JSON is 400 in the error shape', async () => {
    for (const rawBody of ['{"client_id":', '{client_id: 1}', 'null x', '\u0000']) {
      const res = await api.post('/1/user/create_anon', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, rawBody).toBe(400);
      expectErrorShape(res.body, 400);
      expect(res.body.error_description).toMatch(/JSON/);
    }
  });

  it('a JSON body that is not an object is 400', async () => {
    for (const json of [[1, 2], 'text', 42, null]) {
      const res = await api.post('/1/user/create_anon', { json, headers: { 'content-type': 'application/json' } });
      expect(res.status, JSON.stringify(json)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectErrorShape(res.body, res.status);
    }
  });

  it('a body over 2 MiB is 413, JSON or form', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024 + 10);
    const json = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, extra: { big } } });
    expect(json.status).toBe(413);
    expectErrorShape(json.body, 413, 'payload_too_large');
    const form = await api.post('/1/account/profile', { token: user.access_token, form: { bio: big } });
    expect(form.status).toBe(413);
    expectErrorShape(form.body, 413);
    // Nothing was written.
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.bio).toBe('');
  });

  it('an unsupported content type is 415, a text body too (test/routes/body-types.test.ts)', async () => {
    const res = await api.post('/1/user/create_anon', { rawBody: '<client_id>x</client_id>', headers: { 'content-type': 'application/xml' } });
    expect(res.status).toBe(415);
    expectErrorShape(res.body, 415, 'unsupported_media_type');
    const text = await api.post('/1/user/create_anon', { rawBody: `client_id=${app.client_id}`, headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expectErrorShape(text.body, 415, 'unsupported_media_type');
  });
});

describe('wrong types and missing fields', () => {
  it.each([
    ['/1/user/create_anon', { extra: 'not-an-object' }, 'extra'],
    ['/1/user/create_anon', { key: { nested: 1 } }, 'key'],
    ['/1/user/create', { username: ['a', 'b'], password: 'x' }, 'username'],
    ['/1/user/create', { username: 'ok', password: { p: 1 } }, 'password'],
    ['/1/user/create', { username: 'ok', public_location: 7 }, 'public_location'],
  ])('%s with %j is 400 naming the field', async (path, body, field) => {
    const before = (await api.get('/1/user/list', { basic: [app.client_id, app.client_secret] })).body.paging.total;
    const res = await api.post(path, { json: { client_id: app.client_id, ...body } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400);
    expect(res.body.error_description).toContain(field);
    expect((await api.get('/1/user/list', { basic: [app.client_id, app.client_secret] })).body.paging.total).toBe(before);
  });

  it('a missing required field is 400 naming it', async () => {
    const res = await api.post('/1/account/set_gcm_token', { token: user.access_token, json: {} });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400);
    expect(res.body.error_description).toContain('gcm_token');
  });

  it('numbers and 0/1 flags sent as strings are accepted (form bodies carry only strings)', async () => {
    const res = await api.post('/1/account/profile', { token: user.access_token, form: { public_location: '1', public_geonotes: '0' } });
    expect(res.status).toBe(200);
    expect((await api.get('/1/account/profile', { token: user.access_token })).body).toMatchObject({ public_location: 1, public_geonotes: 0 });
    const list = await api.get('/1/user/list', { basic: [app.client_id, app.client_secret], query: { limit: '2', offset: '0' } });
    expect(list.body.paging.limit).toBe(2);
  });

  it('prototype-polluting keys in JSON change nothing', async () => {
    const res = await api.post('/1/account/profile', {
      token: user.access_token, rawBody: '{"extra":{"__proto__":{"polluted":1},"ok":1}}', headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await api.get('/1/account/profile', { token: user.access_token })).body.extra).toEqual({ ok: 1 });
  });
});

describe('no route answers 5xx to garbage', () => {
  it('every route in the OpenAPI document survives malformed, mistyped and hostile input', async () => {
    type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };
    const doc = (await api.get('/docs/json')).body as { paths: Record<string, Record<string, Operation>> };
    // What an operation answers when it works: the API's JSON, a page (no 5xx, but not JSON), or a
    // stream that stays open (a WebSocket, server-sent events: their own tests cover them).
    const kindOf = (op: Operation) => {
      const ok = Object.keys(op.responses['200']?.content ?? {});
      if (op.responses['101'] || ok.includes('text/event-stream') || ok.length === 0) return 'stream';
      return ok.includes('application/json') ? 'json' : 'page';
    };
    const garbage: Array<{ rawBody?: string; json?: unknown; headers?: Record<string, string>; query?: Record<string, unknown> }> = [
      { rawBody: '{"broken', headers: { 'content-type': 'application/json' } },
      { json: [{ a: 1 }] },
      { json: { latitude: 'north', longitude: {}, radius: -5, limit: -1, offset: 'x', extra: 3, user_id: { $ne: null }, key: ['k'] } },
      { json: { user_id: 'x'.repeat(5000), text: 'y'.repeat(20000), date_from: 'yesterday', time_from: '25:99' } },
      { query: { limit: 'NaN', offset: '-3', user_id: '../../etc', latitude: '1e999' } },
    ];
    const failures: string[] = [];
    for (const [rawPath, methods] of Object.entries(doc.paths)) {
      const path = rawPath.replace(/\{[^}]+\}/g, 'someId');
      for (const [method, op] of Object.entries(methods)) {
        const kind = kindOf(op);
        if (kind === 'stream') continue;
        for (const creds of [{ token: user.access_token }, { token: app.access_token }, { basic: [app.client_id, app.client_secret] as [string, string] }]) {
          for (const g of garbage) {
            const opts = method === 'get' ? { ...creds, query: g.query ?? { x: JSON.stringify(g.json ?? g.rawBody) } } : { ...creds, ...g };
            const res = await api.request(method.toUpperCase(), path, opts);
            const shapeless = kind === 'json' && (typeof res.body !== 'object' || res.body === null || (res.status >= 400 && !('error' in res.body)));
            if (res.status >= 500 || shapeless) {
              failures.push(`${method.toUpperCase()} ${path} ${JSON.stringify(g).slice(0, 80)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
