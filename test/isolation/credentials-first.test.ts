// Credentials first, on every route: a request whose credential the route refuses (none, an
// unknown or expired token, a wrong key or secret, or a valid credential of a kind the route does
// not take) gets the same 401/403 whatever its input. The routes' guards ran after the schema's
// validation, so a bad body, query or path id got its 400 first: a client whose token had expired
// was told about its input instead, and a caller without credentials learned the route's schema.
// With a credential the route takes, the bad input is still its 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse, type RequestOptions } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { CREDENTIALS, type CredentialsCase, type Fixtures, type Input, type Kind } from './credentials-first.js';
import { routerRoutes } from './routes.js';

/** A credential as sent: headers, or `client_id` as a field (body of a POST, else the query). */
interface Credential {
  label: string;
  opts?: RequestOptions;
  key?: string;
}

const HOUR = 3_600_000;

let server: TestService;
let api: Api;
let app: TestApp;
let user: TestUser;
let expired: TestUser;
/** The server's clock runs ahead of the real one once `expired`'s token has been issued. */
let skew = 0;
let counter = 0;
let routes: string[];

const fixtures: Fixtures = {
  unique: () => `cf-${process.pid}-${++counter}`,
  now: () => new Date(Date.now() + skew).toISOString(),
  defaultLayer: () => app.default_layer_id,
};

beforeAll(async () => {
  // Every Basic route is tried with a wrong secret: the client's failure budget (throttling, tested
  // on its own) must outlast the routes, however many there are.
  server = await startApp({ now: () => Date.now() + skew, env: { AUTH_CLIENT_FAILURES: '100000' } });
  api = server.api;
  app = await createApp(api, 'credentials first');
  await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { permanent_tokens: true } });
  expired = await createAnonUser(api, app);
  // User tokens live an hour (ACCESS_TOKEN_TTL); the application token never expires.
  skew = 2 * HOUR;
  user = await createAnonUser(api, app);
  routes = routerRoutes(server.app).filter((r) => /^\S+ \/(1|admin)\//.test(r)).sort();
});
afterAll(async () => {
  await server?.close();
});

function valid(kind: Kind): Credential {
  switch (kind) {
    case 'app': return { label: 'app token', opts: { token: app.access_token } };
    case 'user': return { label: 'user token', opts: { token: user.access_token } };
    case 'basic': return { label: 'Basic key:secret', opts: { basic: [app.client_id, app.client_secret] } };
    case 'key': return { label: 'client_id field', key: app.client_id };
    case 'admin': return { label: 'admin token', opts: { bearer: ADMIN_TOKEN } };
  }
}

/** Credentials no route takes. */
function invalid(): Credential[] {
  return [
    { label: 'no credential' },
    { label: 'unknown token', opts: { token: 'usr-0000000000000000000000' } },
    { label: 'expired user token', opts: { token: expired.access_token } },
    { label: 'unknown Basic key', opts: { basic: ['no-such-client', 'secret'] } },
    { label: 'wrong Basic secret', opts: { basic: [app.client_id, 'not-the-secret'] } },
    { label: 'unknown client_id field', key: 'no-such-client' },
    { label: 'wrong admin token', opts: { bearer: 'not-the-admin-token-0123' } },
  ];
}

/** Every credential the route refuses: the invalid ones, and the valid ones of the kinds it does not take. */
function refused(c: CredentialsCase): Credential[] {
  const kinds: Kind[] = ['app', 'user', 'basic', 'key', 'admin'];
  return [...invalid(), ...kinds.filter((k) => !c.takes.includes(k)).map((k) => ({ ...valid(k), label: `${valid(k).label} (not taken)` }))];
}

function send(route: string, input: Input, cred: Credential): Promise<ApiResponse> {
  const [method, routePath] = route.split(' ');
  const opts: RequestOptions = { ...cred.opts };
  let query = input.query;
  let json = input.json;
  if (cred.key !== undefined) {
    const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
    if (method === 'POST' && isObject) json = { ...(json as object), client_id: cred.key };
    else query = { ...query, client_id: cred.key };
  }
  if (query && Object.keys(query).length > 0) opts.query = query;
  if (json !== undefined) opts.json = json;
  return api.request(method, input.path ?? routePath, opts);
}

const show = (r: ApiResponse) => `${r.status} ${JSON.stringify(r.body).slice(0, 140)}`;
const cases = () =>
  routes.flatMap((route) => {
    const c = CREDENTIALS[route];
    return c && 'takes' in c ? [[route, c] as const] : [];
  });

describe('credentials are checked before the input', () => {
  it('describes every /1/ and admin route the server has', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => !CREDENTIALS[r]), 'add these routes to test/isolation/credentials-first.ts').toEqual([]);
    expect(Object.keys(CREDENTIALS).filter((r) => !routes.includes(r)), 'routes the server does not have').toEqual([]);
  });

  it('a refused credential gets the same 401 or 403 with a bad input as with a valid one', async () => {
    const failures: string[] = [];
    let compared = 0;
    for (const [route, c] of cases()) {
      for (const cred of refused(c)) {
        const withValid = await send(route, c.valid(fixtures), cred);
        if (withValid.status !== 401 && withValid.status !== 403) {
          failures.push(`${route} with ${cred.label} and a valid input: ${show(withValid)}, expected a 401 or 403`);
          continue;
        }
        for (const [i, bad] of c.bad.entries()) {
          const withBad = await send(route, bad(fixtures), cred);
          compared++;
          if (withBad.status !== withValid.status || withBad.body?.error !== withValid.body?.error) {
            failures.push(`${route} with ${cred.label} and bad input #${i}: ${show(withBad)}, with a valid input ${show(withValid)}`);
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
    expect(failures).toEqual([]);
  }, 120_000);

  it('with a credential the route takes, the bad input is still a 400 and the valid one is not refused', async () => {
    const failures: string[] = [];
    for (const [route, c] of cases()) {
      const ok = await send(route, c.valid(fixtures), valid(c.takes[0]));
      if ([400, 401, 403].includes(ok.status)) failures.push(`${route} with ${valid(c.takes[0]).label} and a valid input: ${show(ok)}`);
      for (const kind of c.takes) {
        for (const [i, bad] of c.bad.entries()) {
          const res = await send(route, bad(fixtures), valid(kind));
          if (res.status !== 400 || !['invalid_input', 'missing_input'].includes(res.body?.error)) {
            failures.push(`${route} with ${valid(kind).label} and bad input #${i}: ${show(res)}, expected a 400`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('answers the requests the API probe sent with the credential error', async () => {
    // layer/create without a name: no credential, a bogus token, Basic auth.
    for (const opts of [{}, { token: 'bogus' }, { basic: [app.client_id, app.client_secret] as [string, string] }]) {
      const res = await api.post('/1/layer/create', { ...opts, json: {} });
      expectErrorShape(res.body, 401, 'invalid_token');
    }
    expectErrorShape((await api.get('/1/place/list', { query: { limit: 'abc' } })).body, 401, 'invalid_token');
    const list = await api.get('/1/user/list', { query: { limit: -1 } });
    expectErrorShape(list.body, 401, 'invalid_client');
    expect(list.headers.get('www-authenticate')).toMatch(/^Basic/);
    // The wrong kind of token: 403, as with a valid body.
    expectErrorShape((await api.post('/1/layer/create', { token: user.access_token, json: {} })).body, 403, 'access_denied');
    expectErrorShape((await api.post('/1/account/profile', { token: app.access_token, json: { email: 'nope' } })).body, 403, 'access_denied');
    // An expired token is told so (clients refresh on expired_token), whatever else is wrong.
    const late = await api.post('/1/account/profile', { token: expired.access_token, json: { public_location: 'maybe' } });
    expectErrorShape(late.body, 401, 'expired_token');
    expect(late.headers.get('www-authenticate')).toContain('expired_token');
  });

  it('a credential field sent as a number, list or object is refused as an invalid one, never read as its item', async () => {
    const layer = (fields: Record<string, unknown>) => api.post('/1/layer/create', { json: { name: fixtures.unique(), ...fields } });
    for (const value of [123, [app.access_token], [app.access_token, app.access_token], { token: app.access_token }, true]) {
      for (const name of ['access_token', 'oauth_token']) {
        const res = await layer({ [name]: value });
        expectErrorShape(res.body, 401, 'invalid_token');
        expect(res.body.error_description).toBe('The access token provided is not valid');
      }
    }
    // A form's `access_token[]=…` and a token repeated in the query string.
    expectErrorShape((await api.post('/1/layer/create', { form: { name: 'n', access_token: [app.access_token] } })).body, 401, 'invalid_token');
    const token = encodeURIComponent(app.access_token);
    const twice = await api.get(`/1/place/list?access_token=${token}&access_token=${token}`);
    expectErrorShape(twice.body, 401, 'invalid_token');
    // A token list beside the header token is a token in both places (reference §2.2).
    expectErrorShape((await api.post('/1/layer/create', { token: app.access_token, json: { name: 'n', access_token: [1] } })).body, 400, 'invalid_request');

    // The API key and secret: refused as wrong ones, on routes taking the key alone or with the secret.
    const anon = (fields: Record<string, unknown>) => api.post('/1/user/create_anon', { json: fields });
    for (const value of [123, [app.client_id], { id: app.client_id }]) {
      const res = await anon({ client_id: value });
      expectErrorShape(res.body, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
      // check_username takes a token or the key: the key field's error is the one told.
      expectErrorShape((await api.post('/1/account/check_username', { json: { client_id: value, desired_username: 'x' } })).body, 401, 'invalid_client');
    }
    expectErrorShape((await anon({ client_id: app.client_id, client_secret: [app.client_secret] })).body, 401, 'invalid_client');
    const secret = encodeURIComponent(app.client_secret);
    const secretTwice = await api.get(`/1/user/list?client_id=${encodeURIComponent(app.client_id)}&client_secret=${secret}&client_secret=${secret}`);
    expectErrorShape(secretTwice.body, 401, 'invalid_client');
    // The same fields as strings still work, and a null one is not sent.
    expect((await anon({ client_id: app.client_id })).status).toBe(200);
    expect((await layer({ access_token: app.access_token })).status).toBe(200);
    expect((await api.post('/1/layer/create', { token: app.access_token, json: { name: fixtures.unique(), access_token: null } })).status).toBe(200);
  });

  it('a body the service cannot read is still refused before any credential is looked at', async () => {
    // These happen while the body is read, before the route's hooks: no credential is needed to get them.
    const malformed = await api.post('/1/layer/create', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    const text = await api.post('/1/location/update', { rawBody: 'lat=1', headers: { 'content-type': 'text/plain' } });
    expectErrorShape(text.body, 415, 'unsupported_media_type');
  });
});
