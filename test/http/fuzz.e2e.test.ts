// Every route of the OpenAPI document (/docs/json), asked with hostile values for its parameters
// (query, path and body, as JSON and as a form): huge and negative numbers, 2^63, NaN, arrays
// and objects where a scalar belongs, very long strings, unicode and control characters,
// `__proto__`, empty values, bodies that are not objects. Each request carries a valid credential
// for its route, so the values reach the input checks and the handlers. No answer may be a 5xx,
// and every 4xx must be in the documented error shape (or, where the document says so, a page).
//
// The values come from fast-check with a fixed seed (FUZZ_SEED overrides it), so a failure names
// the seed and path that reproduce it; FUZZ_RUNS sets the requests per route. Through app.inject,
// in process, with the embedded store on disk; in the end-to-end tier for its length (thousands
// of requests). test/routes/paging-bounds.test.ts keeps the paging bounds in the fast tier.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 37_011);
const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
/** Thousands of requests each: generous, since a busy two-core machine may take many times an idle one's. */
const LONG = 600_000;

type Schema = { type?: string | string[]; anyOf?: Schema[]; oneOf?: Schema[]; properties?: Record<string, Schema> };
type Param = { name: string; in: 'query' | 'path'; schema?: Schema };
type Operation = {
  parameters?: Param[]; description?: string; security?: Array<Record<string, string[]>>; requestBody?: { content: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};
type Route = { method: 'GET' | 'POST'; path: string; op: Operation };

let service: TestService;
let app: TestApp;
let user: TestUser;
let routes: Route[];
/** A valid value for each path parameter, by the route's group. */
let ids: Record<string, string>;

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Numbers as text, for the query and forms: beyond every range, beyond 2^53 and 2^63, not numbers. */
const NUMBER_TEXTS = [
  '99999999999999999999', '-99999999999999999999', '9223372036854775808', '9223372036854775807', '-9223372036854775809',
  '18446744073709551616', '9007199254740993', '-1', '0', '1e308', '1e309', '-1e309', '1e-400', 'NaN', 'Infinity', '-Infinity',
  '0x1F', '1_000', '1.5', '.5', '5.', '+1', ' 1', '1 ', '00000000000000000000001', '1e20', '2e63', '0.0000001',
];
const TEXTS = [
  '', ' ', 'null', 'undefined', 'true', '[]', '{}', '__proto__', 'constructor', 'prototype', 'toString', '$where', '$gt', '{"$gt":""}',
  '../../etc/passwd', '%00', '\u0000', '\u0000abc', 'a\u0000b', '\uFFFF', '\uD800', '\uDC00x', '😀'.repeat(50), 'ñ̃'.repeat(40),
  '\u202Eevil', 'Ω≈ç√', '<script>alert(1)</script>', "'; DROP TABLE x; --", 'a'.repeat(70), 'a'.repeat(5000),
  '2024-13-45T99:99:99Z', '2024-02-30', '9999-12-31T23:59:59Z', '-271821-04-20T00:00:00Z', '+275760-09-13T00:00:01Z', '0000-00-00',
  '25:61', '-1:00', 'Europe/Nowhere', '+99:99', 'SELECT', '*', '%', '\\', '/', '?', '#', '&', '=',
];
/** JSON values for bodies: those numbers as numbers, wrong types, nesting, prototype keys. */
const JSON_VALUES: unknown[] = [
  1e20, -1e20, 2 ** 63, -(2 ** 63), 2 ** 64, Number.MAX_SAFE_INTEGER + 2, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE,
  -1, 0, 1.5, -0.5, 1e-300, null, true, false, [], [1, 2], [[[]]], ['a', { b: 1 }], {}, { a: 1 }, { a: { b: { c: { d: {} } } } },
  JSON.parse('{"__proto__":{"polluted":1}}'), { constructor: { prototype: { polluted: 1 } } }, { $gt: '' }, { $where: '1' },
  nested(200), nestedArray(200), 'x'.repeat(100_000), Array.from({ length: 2000 }, (_, i) => i),
];

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}
function nestedArray(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** A value for a query or form field: one string, several (repeated key), or bracketed keys (`name[a]=1`). */
type FieldValue = { one: string } | { many: string[] } | { keyed: Record<string, string> };

const text = fc.oneof(
  fc.constantFrom(...NUMBER_TEXTS),
  fc.constantFrom(...TEXTS),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double().map(String),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const fieldValue: fc.Arbitrary<FieldValue> = fc.oneof(
  { weight: 6, arbitrary: text.map((one) => ({ one })) },
  { weight: 1, arbitrary: fc.array(text, { minLength: 2, maxLength: 3 }).map((many) => ({ many })) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('a', '0', '__proto__', 'constructor', '$gt', ''), text, { minKeys: 1, maxKeys: 2 }).map((keyed) => ({ keyed })) },
);
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...JSON_VALUES) },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const pathValue = fc.oneof(
  fc.constantFrom('99999999999999999999', '-1', '0', 'NaN', '__proto__', 'constructor', '%00', '%2e%2e', '..', '%E2%80%AE', '%F0%9F%98%80', 'a'.repeat(64), 'a'.repeat(65), 'a'.repeat(101), '%20', '%C0%AF', '%FF'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
);

/** A field that is valid or hostile (valid half the time, so the hostile one is not the first refused). */
const validOr = (valid: unknown) => fc.oneof(fc.constant(valid), jsonValue);
const hostilePoint = fc.record({
  date: validOr(new Date(Date.UTC(2024, 4, 1)).toISOString()),
  location: fc.oneof(
    { weight: 4, arbitrary: fc.record({ position: fc.record({ latitude: validOr(45.5), longitude: validOr(-122.6), horizontal_accuracy: validOr(10), speed: validOr(1), altitude: validOr(50) }), type: validOr('point') }) },
    { weight: 1, arbitrary: jsonValue },
  ),
  uuid: validOr('5d1a8a1e-6b1f-4c39-9b8d-2f7f6d1e2a3b'),
  raw: validOr({ battery: 50 }),
  client: validOr({ name: 'fuzz', version: '1' }),
}, { requiredKeys: ['date', 'location'] });
const hostileJob = fc.record({
  relative_url: fc.oneof(
    fc.constantFrom('layer/list', 'trigger/list?offset=99999999999999999999', 'location/update', '../admin/app/list', '../../health', '%2e%2e/admin/app/list', '//evil.example/x', 'batch/run', ''),
    text,
  ),
  method: validOr('GET'),
  body: jsonValue,
  headers: fc.oneof(validOr({}), fc.constantFrom(
    ['Host: evil.example', 'Content-Length: 99999999999999999999', 'Transfer-Encoding: chunked'],
    { 'content-type': 'text/plain', authorization: 'Bearer nothing' }, { timezone: '\u0000'.repeat(10) }, ['no colon here', ':', ''],
  )),
}, { requiredKeys: [] });

/** Names that are no route's parameter, sent beside the hostile values. */
const STRAY_NAMES = ['__proto__', 'constructor', 'prototype', '__proto__[polluted]', 'constructor[prototype][polluted]', '$where', 'x'.repeat(300)];

// ---------------------------------------------------------------------------------------------
// Requests

/** Percent-encoding of the UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, as U+FFFD). */
const enc = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
function fieldPairs(name: string, value: FieldValue): string[] {
  if ('one' in value) return [`${enc(name)}=${enc(value.one)}`];
  if ('many' in value) return value.many.map((v) => `${enc(name)}=${enc(v)}`);
  return Object.entries(value.keyed).map(([k, v]) => `${enc(name)}[${enc(k)}]=${enc(v)}`);
}

type Credential = { header?: string };

/** The credential a route's description and security name first (an "or" route alternates between its token kinds). */
function credentialsOf(route: Route): Credential[] {
  const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
  const security = route.op.security ?? [];
  if (security.some((s) => 'admin' in s)) return [{ header: `Bearer ${ADMIN_TOKEN}` }];
  const said = /Credential: (.*)\./.exec(route.op.description ?? '')?.[1] ?? '';
  const kinds = said.split(', or ').map((k) => k.trim());
  const out: Credential[] = [];
  for (const kind of kinds) {
    if (kind.startsWith('a user access token')) out.push({ header: `OAuth ${user.access_token}` });
    else if (kind.startsWith('an application access token') || kind.startsWith('an access token')) out.push({ header: `OAuth ${app.access_token}` });
    else if (kind.startsWith('the API key')) out.push({ header: basic });
    else if (kind === 'none') out.push({});
  }
  if (out.length === 0) out.push(security.some((s) => 'client_basic' in s) ? { header: basic } : {});
  return out;
}

/** The route's path with its parameters valid, or one of them replaced. */
function pathOf(route: Route, hostile?: { name: string; value: string }): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (hostile?.name === name ? hostile.value : ids[`${route.path.split('/').slice(0, 3).join('/')}:${name}`] ?? ids[name] ?? 'NoSuchId'));
}

/** JSON text sent as it is: a number literal beyond what a double holds reaches the service's parser unrounded. */
class RawJson {
  constructor(readonly text: string) {}
}

interface Case {
  query: Array<[string, FieldValue]>;
  path?: { name: string; value: string };
  /** A JSON body: an object of hostile fields, or a hostile value as the whole body. */
  json?: { fields: Array<[string, unknown]> } | { whole: unknown };
  form?: Array<[string, FieldValue]>;
  credential: number;
}

async function send(route: Route, c: Case) {
  const credentials = credentialsOf(route);
  const credential = credentials[c.credential % credentials.length];
  const headers: Record<string, string> = credential.header ? { authorization: credential.header } : {};
  const query = c.query.flatMap(([name, value]) => fieldPairs(name, value)).join('&');
  let payload: string | undefined;
  if (route.method === 'POST') {
    if (c.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = c.form.flatMap(([name, value]) => fieldPairs(name, value)).join('&');
    } else if (c.json) {
      headers['content-type'] = 'application/json';
      payload = 'whole' in c.json ? JSON.stringify(c.json.whole) : `{${c.json.fields.map(([k, v]) => `${JSON.stringify(k)}:${v instanceof RawJson ? v.text : JSON.stringify(v)}`).join(',')}}`;
    }
  }
  const url = `${pathOf(route, c.path)}${query ? `?${query}` : ''}`;
  const res = await service.app.inject({ method: route.method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { url, payload, status: res.statusCode, body: res.body, type: String(res.headers['content-type'] ?? '') };
}

/** Whether the document gives this answer of the operation as an HTML page (the sign-in page's errors). */
const documentedAsPage = (op: Operation | undefined, status: number) => {
  const content = Object.keys(op?.responses?.[String(status)]?.content ?? {});
  return content.includes('text/html') && !content.includes('application/json');
};

/** Why an answer breaks the rules (a 5xx, a 4xx out of the error shape or its documented page, a batch job's too), or nothing. */
function problem(answer: { status: number; body: string; type?: string }, op?: Operation): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status < 400) return batchProblem(answer.body);
  if (documentedAsPage(op, answer.status)) {
    return answer.type?.startsWith('text/html') ? undefined : `answered ${answer.status} as ${answer.type}, documented as an HTML page`;
  }
  let body: { error_code?: unknown; error?: unknown; error_description?: unknown };
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${JSON.stringify(answer.body.slice(0, 200))}`;
  }
  if (body?.error_code !== answer.status || typeof body.error !== 'string' || typeof body.error_description !== 'string') {
    return `answered ${answer.status} out of the error shape: ${answer.body.slice(0, 300)}`;
  }
  return undefined;
}

/** batch/run answers 200 with each job's status and body: a job's answer keeps the same rules. */
function batchProblem(body: string): string | undefined {
  let parsed: { result?: Array<{ code?: number; body?: unknown }> };
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed?.result)) return undefined;
  for (const [i, job] of parsed.result.entries()) {
    if (typeof job?.code !== 'number') continue;
    const why = problem({ status: job.code, body: typeof job.body === 'string' ? job.body : JSON.stringify(job.body) });
    if (why) return `job ${i} ${why}`;
  }
  return undefined;
}

function caseFor(route: Route): fc.Arbitrary<Case> {
  const queryNames = (route.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const pathNames = (route.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  const bodyNames = Object.keys(route.op.requestBody?.content['application/json']?.schema?.properties ?? {});
  const bodyIsArray = route.op.requestBody?.content['application/json']?.schema?.type === 'array';
  const names = (own: string[]) => (own.length ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: fc.constantFrom(...STRAY_NAMES) }) : fc.constantFrom(...STRAY_NAMES));
  const fields = <T>(own: string[], value: fc.Arbitrary<T>) => fc.uniqueArray(fc.tuple(names(own), value), { minLength: 1, maxLength: 3, selector: ([n]) => n });
  const noQuery = fc.constant<Array<[string, FieldValue]>>([]);
  const body: fc.Arbitrary<Pick<Case, 'json' | 'form'>> = route.method !== 'POST'
    ? fc.constant({})
    : fc.oneof(
      { weight: 4, arbitrary: fields(bodyNames, jsonValue).map((f) => ({ json: { fields: f } })) },
      { weight: 2, arbitrary: fields(bodyNames, fieldValue).map((f) => ({ form: f })) },
      { weight: 1, arbitrary: jsonValue.map((whole) => ({ json: { whole } })) },
      // location/update's points, each field valid or hostile (the hot path's own reader).
      ...(bodyIsArray ? [{ weight: 4, arbitrary: fc.array(hostilePoint, { minLength: 1, maxLength: 3 }).map((whole) => ({ json: { whole } })) }] : []),
      // batch/run's jobs, each field valid or hostile.
      ...(bodyNames.includes('batch') ? [{ weight: 4, arbitrary: fc.array(hostileJob, { minLength: 1, maxLength: 3 }).map((batch) => ({ json: { fields: [['batch', batch]] as Array<[string, unknown]> } })) }] : []),
      { weight: 1, arbitrary: fc.constant({}) },
    );
  return fc.record({
    query: queryNames.length || route.method === 'GET' ? fc.oneof({ weight: 3, arbitrary: fields(queryNames, fieldValue) }, { weight: 1, arbitrary: noQuery }) : fc.oneof({ weight: 3, arbitrary: noQuery }, { weight: 1, arbitrary: fields([], fieldValue) }),
    path: pathNames.length ? fc.option(fc.record({ name: fc.constantFrom(...pathNames), value: pathValue }), { freq: 4 }).map((p) => p ?? undefined) : fc.constant(undefined),
    credential: fc.nat(3),
  }).chain((c) => body.map((b) => ({ ...c, ...b })));
}

/** Whether a schema takes a number (in a union too). */
const numeric = (schema: Schema | undefined): boolean =>
  !!schema && ([schema.type].flat().some((t) => t === 'number' || t === 'integer') || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(numeric));

/** A number's text in a JSON body: the literal itself where JSON's grammar takes it, else the text as a string. */
const asJson = (t: string): unknown => (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t) ? new RawJson(t) : t);

/** Every number-taking parameter of a route with every number text: in the query, or in the body as JSON and as a form. */
function numberCases(route: Route): Case[] {
  const cases: Case[] = [];
  for (const p of route.op.parameters ?? []) {
    if (p.in === 'query' && numeric(p.schema)) for (const t of NUMBER_TEXTS) cases.push({ query: [[p.name, { one: t }]], credential: cases.length });
  }
  const body = route.op.requestBody?.content['application/json']?.schema?.properties ?? {};
  if (route.method === 'POST') {
    for (const [name, schema] of Object.entries(body)) {
      if (!numeric(schema)) continue;
      for (const t of NUMBER_TEXTS) {
        cases.push({ query: [], json: { fields: [[name, asJson(t)]] }, credential: cases.length });
        cases.push({ query: [], form: [[name, { one: t }]], credential: cases.length });
      }
    }
  }
  return cases;
}

/** Deletions, rotations and leavings last: they take away what the other routes are asked about. */
const destructive = (r: Route) => /\/(delete|secure_delete|rotate_secret|leave|unsubscribe|expire|deactivate|delete_batch)\b/.test(r.path);

beforeAll(async () => {
  // No guessing limits: the fuzzer's wrong secrets and share tokens would soon answer everything 429.
  service = await startApp({ env: { AUTH_CLIENT_FAILURES: '0', AUTH_ACCOUNT_FAILURES: '0', SHARE_TOKEN_FAILURES: '0' } });
  const api = service.api;
  app = await createApp(api, 'fuzzed');
  const spare = await createApp(api, 'spare');
  user = await createAnonUser(api, app);
  const spareUser = await createAnonUser(api, app);
  const post = async (path: string, token: string, json: unknown) => {
    const res = await api.post(path, { token, json });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const layer = await post('/1/layer/create', app.access_token, { name: 'fuzz', public: 1 });
  const place = await post('/1/place/create', app.access_token, { layer_id: layer.layer_id, latitude: 45.5, longitude: -122.6, radius: 100, name: 'fuzz' });
  const trigger = await post('/1/trigger/create', app.access_token, { place_id: place.place_id, type: 'message', text: 'hi', trigger_on: 'enter' });
  const group = await post('/1/group/create', user.access_token, { title: 'fuzz' });
  const note = await post('/1/geonote/create', user.access_token, { text: 'n', latitude: 45.5, longitude: -122.6, radius: 50 });
  await post('/1/link/create', user.access_token, { minutes: 60 });
  await post('/1/location/update', user.access_token, [{ date: new Date().toISOString(), location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } }]);
  ids = {
    '/admin/app:id': spare.application_id,
    '/1/user:id': spareUser.user_id,
    '/1/layer:id': layer.layer_id,
    '/1/place:id': place.place_id,
    '/1/trigger:id': trigger.trigger_id,
    '/1/geonote:id': note.geonote_id,
    '/1/application:id': app.application_id,
    '/1/location:id': 'NoSuchBatch',
    token: group.group_token,
  };
  const doc = (await service.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, Operation>> };
  routes = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase() as Route['method'], path: path as string, op })));
  routes.sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe('hostile parameters on every documented route', () => {
  it('numbers out of every range, in every number-taking parameter, are never a 5xx', async () => {
    const failures: string[] = [];
    let asked = 0;
    for (const route of routes) {
      for (const c of numberCases(route)) {
        asked++;
        const answer = await send(route, c);
        const why = problem(answer, route.op);
        if (why) failures.push(`${route.method} ${answer.url}${answer.payload !== undefined ? ` body ${answer.payload.slice(0, 200)}` : ''} ${why}`);
      }
    }
    expect(asked).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, LONG);

  it('random hostile values (seeded) never answer 5xx, and every 4xx is in the error shape', async () => {
    expect(routes.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const route of routes) {
      // One property per route: fast-check shrinks a failure to its smallest case and names the seed.
      const result = await fc.check(
        fc.asyncProperty(caseFor(route), async (c) => {
          const answer = await send(route, c);
          const why = problem(answer, route.op);
          if (why) throw new Error(`${route.method} ${answer.url}${answer.payload !== undefined ? ` body ${answer.payload.slice(0, 300)}` : ''} ${why}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) failures.push(`${route.method} ${route.path} (seed ${result.seed}, path "${result.counterexamplePath}"): ${(result.errorInstance as Error)?.message}`);
    }
    expect(failures).toEqual([]);
  }, LONG);

  it('a request without any parameter is a 4xx in the error shape or a success, on every route', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const answer = await send(route, { query: [], credential: 0 });
      const why = problem(answer, route.op);
      if (why) failures.push(`${route.method} ${route.path} ${why}`);
    }
    expect(failures).toEqual([]);
  });
});
