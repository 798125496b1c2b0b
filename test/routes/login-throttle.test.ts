// Credential guessing is throttled without locking other users out (auth/limits.ts): a flood of
// wrong passwords against one account is refused for that account from the flooding address,
// while the other users of the same application and of another one log in; client-secret guessing
// is refused per client.
// End to end over real sockets against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let shop: TestApp;
let other: TestApp;
const PASSWORD = 'correct horse battery staple';

async function createUser(app: TestApp, username: string) {
  const res = await api.post('/1/user/create', { json: { client_id: app.client_id, username, password: PASSWORD } });
  expect(res.status).toBe(200);
}

const login = (app: TestApp, username: string, password: string) =>
  api.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username, password } });

function expectThrottled(res: ApiResponse) {
  expectErrorShape(res.body, 429, 'too_many_requests');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

beforeAll(async () => {
  // Small limits: each password check is a real scrypt run (up to a second on a busy machine).
  server = await startApp({ env: { AUTH_ACCOUNT_FAILURES: '3', AUTH_CLIENT_FAILURES: '5' } });
  api = server.api;
  shop = await createApp(api, 'shop');
  other = await createApp(api, 'other');
  await Promise.all([createUser(shop, 'victim'), createUser(shop, 'neighbour'), createUser(other, 'stranger')]);
});
afterAll(async () => {
  await server?.close();
});

describe('wrong-password floods', () => {
  it('throttle the flooded account while other users of the same and another application log in', async () => {
    let flooding = true;
    const seen: ApiResponse[] = [];
    // 40 concurrent loops of wrong passwords against one account, until the other logins are done.
    const loops = Array.from({ length: 40 }, async () => {
      while (flooding) seen.push(await login(shop, 'victim', 'wrong password'));
    });
    try {
      // Wait until the flood is under way: the first refusals have come back.
      while (!seen.some((r) => r.status === 429)) await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < 2; i++) {
        const [neighbour, stranger] = await Promise.all([login(shop, 'neighbour', PASSWORD), login(other, 'stranger', PASSWORD)]);
        expect(neighbour.status, JSON.stringify(neighbour.body)).toBe(200);
        expect(stranger.status, JSON.stringify(stranger.body)).toBe(200);
        expect(neighbour.body.access_token).toEqual(expect.any(String));
      }
    } finally {
      flooding = false;
      await Promise.all(loops);
    }
    // The flood only ever heard "wrong password" or "come back later", in the documented shape.
    expect(seen.every((r) => r.status === 400 || r.status === 429)).toBe(true);
    for (const r of seen.filter((r) => r.status === 400)) expectErrorShape(r.body, 400, 'invalid_grant');
    expect(seen.some((r) => r.status === 429)).toBe(true);
    for (const r of seen.filter((r) => r.status === 429)) expectThrottled(r);
    // Once its failures are counted (AUTH_ACCOUNT_FAILURES), the flooding address's tries of the
    // account are refused until the window ends, the right password too (the victim elsewhere is
    // not: test/routes/targeted-lockout.test.ts).
    let res = seen.at(-1)!;
    for (let i = 0; i < 4 && !/failed credential checks for this account from this address/.test(res.body.error_description); i++) {
      res = await login(shop, 'victim', 'wrong password');
    }
    expectThrottled(res);
    expect(res.body.error_description).toMatch(/failed credential checks for this account from this address/);
    expectThrottled(await login(shop, 'victim', PASSWORD));
  }, 90_000);

  it('counts logins that name no one too, so the refusal does not tell which logins exist', async () => {
    let res: ApiResponse | undefined;
    for (let i = 0; i < 4 && res?.status !== 429; i++) res = await login(other, 'nobody-here', 'guess');
    expectThrottled(res!);
  });
});

describe('client-secret guessing', () => {
  it('is refused per client, and neither that client\'s password logins nor another client are blocked', async () => {
    const guess = () => api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: shop.client_id, client_secret: 'guess' } });
    let res = await guess();
    expectErrorShape(res.body, 401, 'invalid_client');
    for (let i = 0; i < 6 && res.status === 401; i++) res = await guess();
    expectThrottled(res);
    // The guessed client's secret is refused for now, even the right one...
    const right = await api.post('/1/oauth/token', { basic: [shop.client_id, shop.client_secret], form: { grant_type: 'client_credentials' } });
    expectThrottled(right);
    // ...but its users log in (the password grant sends no secret), and other clients work.
    expect((await login(shop, 'neighbour', PASSWORD)).status).toBe(200);
    const another = await api.post('/1/oauth/token', { basic: [other.client_id, other.client_secret], form: { grant_type: 'client_credentials' } });
    expect(another.status).toBe(200);
  });
});

describe('per-address limiting', () => {
  it('is off by default, and when configured refuses an address after its failures across accounts', async () => {
    const limited = await startApp({ env: { AUTH_ADDRESS_FAILURES: '3' } });
    try {
      const lapi = limited.api;
      const app = await createApp(lapi, 'by address');
      const tryLogin = (username: string) =>
        lapi.post('/1/oauth/token', { form: { grant_type: 'password', client_id: app.client_id, username, password: 'guess' } });
      for (const name of ['a', 'b', 'c']) expectErrorShape((await tryLogin(name)).body, 400, 'invalid_grant');
      const res = await tryLogin('d');
      expectThrottled(res);
      expect(res.body.error_description).toMatch(/from this address/);
    } finally {
      await limited.close();
    }
    // The shared server has seen more failures from 127.0.0.1 than that, on fresh logins: none refused for the address.
    const fresh = await login(other, 'yet-another-nobody', 'guess');
    expectErrorShape(fresh.body, 400, 'invalid_grant');
  });
});
