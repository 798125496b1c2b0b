// The OpenAPI document (/docs/json) and its UI (/docs): a valid document by a real validator, a
// response schema and the error shape on every operation, credentials as security schemes, and
// answers that agree with what the document says of them. Built in process and asked through
// app.inject (no socket).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { SUMMARIES } from '../../src/http/openapi-summaries.js';

const ADMIN_TOKEN = 'openapi-test-admin-token-0123456789';

type Media = { schema?: Record<string, unknown> };
type Operation = {
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, Media> };
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, unknown>> } };

let app: FastifyInstance;
let dir: string;
let doc: Doc;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openapi-'));
  app = await buildApp({ config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN }), logger: false });
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const operations = () => Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as const));
/** Operations that answer something else than the API's JSON: a page, a WebSocket, an event stream, the readiness probe. */
const NOT_JSON = ['GET /health', 'GET /oauth/authorize', 'POST /oauth/authorize', 'GET /1/stream', 'GET /1/inspector/events', 'GET /socket.io/'];
const jsonOperations = () => operations().filter(([name]) => !NOT_JSON.includes(name));

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // The validator resolves references in place: it gets a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('gives every operation a 200 body schema and the error shape for each 4xx and 5xx', () => {
    expect(operations().length).toBeGreaterThan(45);
    expect(doc.components.schemas.Error).toMatchObject({ required: ['error_code', 'error', 'error_description'] });
    for (const [name, op] of jsonOperations()) {
      expect(op.responses['200']?.content?.['application/json']?.schema, name).toBeDefined();
      const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(errors, name).toContain('500');
      expect(errors.some((s) => s.startsWith('4')), name).toBe(true);
      for (const status of errors) {
        const schema = op.responses[status].content?.['application/json']?.schema;
        // A create whose key is taken answers 409 with the existing object (reference §6.5).
        if (status === '409' && name.endsWith('/create') && !name.includes('/user/')) expect(schema, name).toEqual(op.responses['200'].content!['application/json'].schema);
        else expect(schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('gives every operation a summary (the Swagger UI lists them), each from the table of a route that exists', () => {
    const missing = operations().filter(([, op]) => !(op as { summary?: string }).summary).map(([name]) => name);
    expect(missing).toEqual([]);
    // Every entry of the table names a route: a route renamed without its summary is caught.
    const routes = new Set(operations().map(([name]) => name.replace(/\{(\w+)\}/g, ':$1')));
    const paths = new Set([...routes].map((name) => name.slice(name.indexOf(' ') + 1)));
    const stale = Object.keys(SUMMARIES).filter((key) => (key.includes(' ') ? !routes.has(key) : !paths.has(key)));
    expect(stale).toEqual([]);
  });

  it('describes the readiness probe, the sign-in page and the streaming endpoints as what they are', () => {
    const op = (method: string, p: string) => doc.paths[p]?.[method] as (Operation & { summary: string; description?: string }) | undefined;
    const media = (o: Operation | undefined, status: string) => Object.keys(o?.responses[status]?.content ?? {});
    expect(op('get', '/health')?.responses['200'].content?.['application/json']?.schema).toMatchObject({ properties: { status: { enum: ['ok'] } } });
    expect(op('get', '/health')?.responses['503'].content?.['application/json']?.schema).toMatchObject({ properties: { status: { enum: ['writes_failing'] } } });
    for (const method of ['get', 'post']) {
      expect(media(op(method, '/oauth/authorize'), '200'), method).toEqual(['text/html']);
      expect(media(op(method, '/oauth/authorize'), '400'), method).toEqual(['text/html']);
      expect(op(method, '/oauth/authorize')?.description, method).toMatch(/page/);
    }
    expect(Object.keys(op('get', '/1/stream')!.responses)).toEqual(expect.arrayContaining(['101', '401', '426']));
    expect(op('get', '/1/stream')?.description).toMatch(/WebSocket/);
    expect(media(op('get', '/1/inspector/events'), '200')).toEqual(['text/event-stream']);
    expect(op('get', '/socket.io/')?.description).toMatch(/`token`.*`location`/s);
  });

  it('names the credentials: OAuth token in the header or as a parameter, API key and secret by HTTP Basic or parameters', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.oauth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.access_token).toMatchObject({ type: 'apiKey', in: 'query', name: 'access_token' });
    expect(schemes.oauth_token).toMatchObject({ type: 'apiKey', in: 'query', name: 'oauth_token' });
    expect(schemes.client_basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(schemes.client_id).toMatchObject({ type: 'apiKey', name: 'client_id' });
    for (const [name, op] of operations()) expect(op.security?.length, name).toBeGreaterThan(0);
    // Each route's security follows its guard.
    expect(doc.paths['/1/layer/create'].post.security).toEqual([{ oauth: [] }, { access_token: [] }, { oauth_token: [] }]);
    expect(doc.paths['/1/user/create_anon'].post.security).toEqual([{ client_basic: [] }, { client_id: [] }]);
    expect(doc.paths['/1/user/list'].get.security).toEqual(expect.arrayContaining([{ client_basic: [] }, { oauth: [] }]));
    expect(doc.paths['/admin/app/list'].get.security).toEqual([{ admin: [] }]);
    // A method for one kind of token can refuse the other kind; an id that names nothing is a 404.
    expect(Object.keys(doc.paths['/1/layer/info/{id}'].get.responses)).toEqual(expect.arrayContaining(['401', '403', '404']));
  });

  it('documents the location/update body as a JSON array of points', () => {
    const body = doc.paths['/1/location/update'].post.requestBody!;
    expect(Object.keys(body.content)).toEqual(['application/json']);
    const schema = body.content['application/json'].schema as { type: string; items: { required: string[]; properties: Record<string, unknown> } };
    expect(schema.type).toBe('array');
    expect(schema.items.required).toEqual(['date', 'location']);
    expect(Object.keys(schema.items.properties)).toEqual(expect.arrayContaining(['date', 'location', 'raw', 'client', 'uuid']));
  });
});

describe('answers agree with the document', () => {
  it('each success and error body matches the schema documented for its status', async () => {
    const resolved = (await SwaggerParser.dereference(structuredClone(doc) as never)) as unknown as Doc;
    const ajv = new Ajv({ strict: false, allErrors: true });
    const mismatches: string[] = [];
    const call = async (method: 'GET' | 'POST', route: string, url: string, opts: { auth?: string; body?: unknown } = {}) => {
      const res = await app.inject({ method, url, headers: opts.auth ? { authorization: opts.auth } : {}, ...(opts.body !== undefined ? { payload: opts.body as object } : {}) });
      const body = res.json();
      const schema = resolved.paths[route]?.[method.toLowerCase()]?.responses[String(res.statusCode)]?.content?.['application/json']?.schema;
      if (!schema) mismatches.push(`${method} ${url}: ${res.statusCode} is not documented`);
      else if (!ajv.validate(schema, body)) mismatches.push(`${method} ${url} ${res.statusCode}: ${ajv.errorsText(ajv.errors)}`);
      return body;
    };
    const admin = `Bearer ${ADMIN_TOKEN}`;
    const a = await call('POST', '/admin/app/create', '/admin/app/create', { auth: admin, body: { name: 'docs' } });
    await call('GET', '/admin/app/list', '/admin/app/list', { auth: admin });
    await call('POST', '/admin/app/update/{id}', `/admin/app/update/${a.application_id}`, { auth: admin, body: { store_history: true } });
    const app_ = `OAuth ${a.access_token}`;
    const basic = `Basic ${Buffer.from(`${a.client_id}:${a.client_secret}`).toString('base64')}`;

    const anon = await call('POST', '/1/user/create_anon', '/1/user/create_anon', { body: { client_id: a.client_id, client_secret: a.client_secret, key: 'k1', extra: { a: 1 } } });
    const named = await call('POST', '/1/user/create', '/1/user/create', { body: { client_id: a.client_id, username: 'bob', password: 'pw' } });
    await call('POST', '/1/user/create_anon', '/1/user/create_anon', { body: { client_id: a.client_id, key: 'k1' } });
    await call('POST', '/1/oauth/token', '/1/oauth/token', { body: { grant_type: 'client_credentials', client_id: a.client_id, client_secret: a.client_secret } });
    const pw = await call('POST', '/1/oauth/token', '/1/oauth/token', { body: { grant_type: 'password', client_id: a.client_id, username: 'bob', password: 'pw' } });
    await call('POST', '/1/oauth/token', '/1/oauth/token', { body: { grant_type: 'refresh_token', client_id: a.client_id, refresh_token: pw.refresh_token } });
    await call('POST', '/1/oauth/token', '/1/oauth/token', { body: { grant_type: 'password', client_id: a.client_id, username: 'bob', password: 'no' } });
    await call('GET', '/1/user/list', '/1/user/list', { auth: basic });
    await call('GET', '/1/user/info/{id}', `/1/user/info/${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/user/info/{id}', '/1/user/info/nobody', { auth: app_ });
    await call('POST', '/1/user/update/{id}', `/1/user/update/${anon.user_id}`, { auth: app_, body: { name: 'N' } });

    const user = `OAuth ${anon.access_token}`;
    await call('GET', '/1/account/profile', '/1/account/profile', { auth: user });
    await call('GET', '/1/account/profile', '/1/account/profile', { auth: app_ });
    await call('POST', '/1/account/profile', '/1/account/profile', { auth: user, body: { bio: 'b' } });
    await call('GET', '/1/account/username', '/1/account/username', { auth: user });
    await call('POST', '/1/account/username', '/1/account/username', { auth: user, body: { username: 'alice' } });
    await call('POST', '/1/account/check_username', '/1/account/check_username', { auth: user, body: { desired_username: 'bob' } });
    await call('POST', '/1/account/set_gcm_token', '/1/account/set_gcm_token', { auth: user, body: { gcm_token: 'abc' } });

    const layer = await call('POST', '/1/layer/create', '/1/layer/create', { auth: app_, body: { name: 'L', key: 'lk', public: 1 } });
    await call('POST', '/1/layer/create', '/1/layer/create', { auth: app_, body: { name: 'L', key: 'lk' } });
    await call('POST', '/1/layer/update/{id}', `/1/layer/update/${layer.layer_id}`, { auth: app_, body: { description: 'd' } });
    const place = await call('POST', '/1/place/create', '/1/place/create', {
      auth: app_, body: { layer_id: layer.layer_id, latitude: 45, longitude: -122, radius: 100, name: 'P', key: 'pk', date_from: '2020-01-01T00:00:00Z' },
    });
    await call('POST', '/1/place/update/{id}', `/1/place/update/${place.place_id}`, { auth: app_, body: { description: 'pd' } });
    await call('GET', '/1/place/info/{id}', `/1/place/info/${place.place_id}`, { auth: app_ });
    await call('GET', '/1/place/info', `/1/place/info?key=pk&layer_id=${layer.layer_id}`, { auth: app_ });
    await call('GET', '/1/place/list', `/1/place/list?layer_id=${layer.layer_id}`, { auth: app_ });
    await call('GET', '/1/place/nearby', `/1/place/nearby?layer_id=${layer.layer_id}&latitude=45&longitude=-122`, { auth: app_ });
    const message = await call('POST', '/1/trigger/create', '/1/trigger/create', { auth: app_, body: { place_id: place.place_id, type: 'message', text: 'hi', key: 'tk' } });
    const callback = await call('POST', '/1/trigger/create', '/1/trigger/create', { auth: app_, body: { latitude: 1, longitude: 1, radius: 50, type: 'callback', url: 'http://127.0.0.1:9/x' } });
    await call('POST', '/1/trigger/create', '/1/trigger/create', { auth: app_, body: { layer_id: layer.layer_id, type: 'message', text: 'L', trigger_on: 'leave' } });
    await call('POST', '/1/trigger/update/{id}', `/1/trigger/update/${message.trigger_id}`, { auth: app_, body: { text: 'hey' } });
    await call('GET', '/1/trigger/info/{id}', `/1/trigger/info/${message.trigger_id}`, { auth: app_ });
    await call('GET', '/1/trigger/list', '/1/trigger/list', { auth: app_ });
    await call('POST', '/1/layer/subscribe/{id}', `/1/layer/subscribe/${layer.layer_id}`, { auth: app_, body: { user_id: anon.user_id } });
    await call('GET', '/1/layer/subscriptions', `/1/layer/subscriptions?user_id=${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/layer/info/{id}', `/1/layer/info/${layer.layer_id}?include_places=1&count_valid_places=1`, { auth: app_ });
    await call('GET', '/1/layer/info', '/1/layer/info?key=lk', { auth: app_ });
    await call('GET', '/1/layer/list', '/1/layer/list', { auth: user });

    await call('GET', '/1/location/last', '/1/location/last', { auth: user });
    const point = { date: new Date().toISOString(), location: { type: 'point', position: { latitude: 45, longitude: -122, horizontal_accuracy: 5, speed: 1 } }, raw: { b: 1 }, client: { name: 'x' } };
    await call('POST', '/1/location/update', '/1/location/update', { auth: user, body: [point] });
    await call('POST', '/1/location/update', '/1/location/update', { auth: user, body: [{ date: 'soon' }] });
    await call('GET', '/1/user/list', '/1/user/list?sort=recent', { auth: app_ });
    await call('GET', '/1/user/list', '/1/user/list?q=bo', { auth: app_ });
    await call('GET', '/1/user/list', '/1/user/list?q=bo&sort=recent', { auth: app_ });
    await call('GET', '/1/location/last', '/1/location/last', { auth: user });
    await call('GET', '/1/location/history', '/1/location/history', { auth: user });
    await call('GET', '/1/layer/users/{id}', `/1/layer/users/${layer.layer_id}`, { auth: app_ });
    await call('POST', '/1/message/send', '/1/message/send', { auth: app_, body: { user_id: anon.user_id, text: 'yo' } });
    await call('GET', '/1/message/list', '/1/message/list', { auth: user });
    await call('POST', '/1/trigger/run/{id}', `/1/trigger/run/${message.trigger_id}`, { auth: app_, body: { user_id: anon.user_id } });
    await call('POST', '/1/trigger/run/{id}', `/1/trigger/run/${callback.trigger_id}`, { auth: app_, body: { user_id: anon.user_id } });
    await call('GET', '/1/trigger/history', '/1/trigger/history', { auth: app_ });
    await call('GET', '/1/trigger/state/{id}', `/1/trigger/state/${message.trigger_id}?user_id=${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/trigger/state', `/1/trigger/state?user_id=${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/trigger/timeline', `/1/trigger/timeline?user_id=${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/trigger/timeline', `/1/trigger/timeline?user_id=${anon.user_id}&nope=1`, { auth: app_ });
    await call('POST', '/1/trigger/replay', '/1/trigger/replay', { auth: app_, body: { user_id: anon.user_id, points: [point] } });
    await call('POST', '/1/trigger/replay', '/1/trigger/replay', { auth: app_, body: { user_id: anon.user_id } });

    // Issue 32's methods.
    const note = await call('POST', '/1/geonote/create', '/1/geonote/create', { auth: user, body: { text: 'n', latitude: 45, longitude: -122, radius: 50, place_name: 'N' } });
    await call('GET', '/1/geonote/list_set', '/1/geonote/list_set', { auth: user });
    await call('GET', '/1/geonote/list_recent', '/1/geonote/list_recent', { auth: user });
    await call('GET', '/1/geonote/info/{id}', `/1/geonote/info/${note.geonote_id}`, { auth: user });
    const link = await call('POST', '/1/link/create', '/1/link/create', { auth: user, body: { minutes: 5 } });
    await call('GET', '/1/link/stats', `/1/link/stats?token=${link.token}`, { auth: user });
    await call('GET', '/1/share/last', `/1/share/last?geoloqi_token=${link.token}`, { auth: app_ });
    await call('GET', '/1/share/last', `/1/share/last?geoloqi_token=,${link.token}`, { auth: app_ });
    await call('GET', '/1/share/info', `/1/share/info?geoloqi_token=${link.token}`, { auth: app_ });
    await call('GET', '/1/share/history', `/1/share/history?geoloqi_token=${link.token}`, { auth: app_ });
    await call('POST', '/1/link/deactivate', '/1/link/deactivate', { auth: user, body: { token: link.token } });
    await call('POST', '/1/link/deactivate', '/1/link/deactivate', { auth: user, body: { token: link.token } });
    await call('GET', '/1/application/list', '/1/application/list', { auth: app_ });
    await call('GET', '/1/application/info/{id}', `/1/application/info/${a.application_id}`, { auth: app_ });
    await call('GET', '/1/application/layers/{id}', `/1/application/layers/${a.application_id}`, { auth: app_ });
    await call('GET', '/1/application/usage/{id}', `/1/application/usage/${a.application_id}`, { auth: app_ });
    await call('GET', '/1/location/tracking_profile', '/1/location/tracking_profile', { auth: user });
    await call('POST', '/1/location/tracking_profile', '/1/location/tracking_profile', { auth: user, body: { profile: 'rough' } });
    const batch = await call('GET', '/1/location/history', '/1/location/history?batch=true', { auth: user });
    await call('POST', '/1/location/delete_batch/{id}', `/1/location/delete_batch/${batch.batch}`, { auth: user, body: {} });
    await call('GET', '/1/layer/nearby', '/1/layer/nearby?latitude=45&longitude=-122', { auth: user });
    await call('POST', '/1/layer/subscription/{id}', `/1/layer/subscription/${layer.layer_id}`, { auth: app_, body: { user_id: anon.user_id, settings: { a: 1 } } });
    await call('GET', '/1/layer/subscription/{id}', `/1/layer/subscription/${layer.layer_id}?user_id=${anon.user_id}`, { auth: app_ });
    await call('GET', '/1/layer/user_clusters/{id}', `/1/layer/user_clusters/${a.default_layer_id}`, { auth: app_ });
    await call('GET', '/1/place/list_unnamed', '/1/place/list_unnamed', { auth: app_ });
    await call('GET', '/1/user/list/{id}', `/1/user/list/${anon.user_id}`, { auth: basic });
    await call('POST', '/1/user/secure_delete/{id}', `/1/user/secure_delete/${anon.user_id}`, { auth: basic, body: {} });
    await call('GET', '/1/account/privacy', '/1/account/privacy', { auth: user });
    await call('POST', '/1/account/privacy', '/1/account/privacy', { auth: user, body: { public_location: 1 } });
    await call('GET', '/1/account/connections', '/1/account/connections', { auth: user });
    // Issue 32, second part.
    await call('GET', '/1/share/last', `/1/share/last?geoloqi_token=${link.token}`, {});
    await call('GET', '/1/share/info', '/1/share/info?geoloqi_token=Nothing', {});
    await call('POST', '/1/message/count_broadcast', '/1/message/count_broadcast', { auth: app_, body: { layer_id: a.default_layer_id, latitude: 45, longitude: -122, radius: 500 } });
    await call('POST', '/1/message/broadcast', '/1/message/broadcast', { auth: app_, body: { layer_id: a.default_layer_id, latitude: 45, longitude: -122, radius: 500, text: 'all' } });
    await call('POST', '/1/message/broadcast', '/1/message/broadcast', { auth: app_, body: { layer_id: 'Mi55ing', latitude: 45, longitude: -122, radius: 500, text: 'all' } });
    await call('POST', '/1/message/device', '/1/message/device', { auth: user, body: { data: { a: 1 } } });
    await call('POST', '/1/account/permanent_token', '/1/account/permanent_token', { auth: user, body: {} });
    await call('POST', '/admin/app/update/{id}', `/admin/app/update/${a.application_id}`, { auth: admin, body: { permanent_tokens: true } });
    await call('POST', '/1/account/permanent_token', '/1/account/permanent_token', { auth: user, body: {} });
    await call('POST', '/1/location/update', '/1/location/update', { auth: user, body: [point] });
    await call('GET', '/1/application/api_hits/{id}', `/1/application/api_hits/${a.application_id}`, { auth: app_ });
    await call('GET', '/1/application/list', '/1/application/list', { auth: app_ });

    await call('POST', '/1/batch/run', '/1/batch/run', { body: { access_token: a.access_token, batch: [{ relative_url: `layer/info/${layer.layer_id}` }, { relative_url: 'layer/update/nope', body: { name: 'x' } }] } });
    await call('POST', '/1/batch/run', '/1/batch/run', { body: { access_token: a.access_token, batch: 'not a list' } });
    await call('POST', '/1/layer/unsubscribe/{id}', `/1/layer/unsubscribe/${layer.layer_id}`, { auth: app_, body: { user_id: anon.user_id } });
    await call('POST', '/1/trigger/delete/{id}', `/1/trigger/delete/${message.trigger_id}`, { auth: app_ });
    await call('POST', '/1/place/delete/{id}', `/1/place/delete/${place.place_id}`, { auth: app_ });
    await call('POST', '/1/layer/delete/{id}', `/1/layer/delete/${layer.layer_id}`, { auth: app_ });
    await call('POST', '/1/user/delete/{id}', `/1/user/delete/${named.user_id}`, { auth: app_ });
    await call('POST', '/admin/app/rotate_secret/{id}', `/admin/app/rotate_secret/${a.application_id}`, { auth: admin, body: { webhook: true } });
    await call('POST', '/admin/app/delete/{id}', `/admin/app/delete/${a.application_id}`, { auth: admin });
    expect(mismatches).toEqual([]);
  });
});

describe('the browsable UI', () => {
  it('serves /docs as HTML, with its script and styles from the package', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('swagger-ui-bundle.js');
    const bundle = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.body.length).toBeGreaterThan(100_000);
    const css = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    // The page loads the document beside it.
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain("resolveUrl('./json')");
  });
});
