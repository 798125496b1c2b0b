// Every paging parameter is bounded in its schema (issue 37, item 11): an offset past MAX_OFFSET (an
// offset of 2^63 or more was a 500 from the store), a limit or count past its maximum, an after or
// before outside the years 0001-9999, is a 400 in the error shape naming the field, on every route
// of the OpenAPI document that takes it. test/http/fuzz.e2e.test.ts asks every parameter of every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OFFSET } from '../../src/schemas/common.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

type Operation = { parameters?: Array<{ name: string; in: string }> };

let service: TestService;
let app: TestApp;
let user: TestUser;
let group: string;
let lists: Array<{ path: string; params: string[] }>;

beforeAll(async () => {
  service = await startApp();
  app = await createApp(service.api);
  user = await createAnonUser(service.api, app);
  group = (await service.api.post('/1/group/create', { token: user.access_token, json: { title: 'g' } })).body.group_token;
  const doc = (await service.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, Operation>> };
  lists = Object.entries(doc.paths).flatMap(([path, item]) => (item.get ? [{ path, params: (item.get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name) }] : []))
    .filter((l) => l.params.some((p) => ['offset', 'limit', 'count', 'after', 'before'].includes(p)));
});
afterAll(async () => service?.close());

/** GET `path` with `query` (and the user the route needs), with an application token, else a user's. */
async function ask(path: string, query: Record<string, string>) {
  const url = path.replace('{token}', group);
  // trigger/history/attempts names its firing (any: the bounds are checked first).
  const q = { user_id: user.user_id, ...(path.endsWith('/attempts') ? { event_id: 'run_none' } : {}), ...query };
  const asApp = await service.api.get(url, { token: app.access_token, query: q });
  if (asApp.status !== 403) return asApp;
  return service.api.get(url, { token: user.access_token, query });
}

const TOO_FAR: Record<string, string[]> = {
  offset: ['99999999999999999999', '9223372036854775808', '18446744073709551616', '1e20', String(MAX_OFFSET + 1), '-1'],
  limit: ['1001', '99999999999999999999', '-1'],
  count: ['1001', '99999999999999999999', '0'],
  after: ['1e20', '-99999999999999999999'],
  before: ['1e20', '-99999999999999999999'],
};

describe('paging parameters out of bounds', () => {
  it('are found on every list route of the document', () => {
    expect(lists.map((l) => l.path)).toEqual(expect.arrayContaining(['/1/trigger/list', '/1/place/list', '/1/user/list', '/1/trigger/history', '/1/message/list', '/1/group/list', '/1/trigger/timeline', '/1/location/history', '/1/share/history']));
  });

  it('are a 400 in the error shape naming the field, never a 5xx', async () => {
    const failures: string[] = [];
    for (const { path, params } of lists) {
      for (const param of params.filter((p) => p in TOO_FAR)) {
        for (const value of TOO_FAR[param]) {
          const res = await ask(path, { [param]: value, ...(path.startsWith('/1/share/') ? { geoloqi_token: 'nothing' } : {}) });
          const said = `${path}?${param}=${value}: ${res.status} ${JSON.stringify(res.body)}`;
          if (res.status !== 400 || res.body?.error_code !== 400 || !String(res.body?.error_description).includes(param)) failures.push(said);
          else expectErrorShape(res.body, 400, 'invalid_input');
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('the deepest offset allowed is answered', async () => {
    const res = await service.api.get('/1/trigger/list', { token: app.access_token, query: { offset: String(MAX_OFFSET) } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ triggers: [], paging: { limit: 25, total: 0 } });
  });
});
