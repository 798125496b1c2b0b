// A stranger cannot lock a named account (auth/limits.ts), while guessing stays as slow as the
// limits say: ten wrong passwords from one address close that address's tries of the account for
// the window, and cost the account's owner, elsewhere, a delay of seconds, on oauth/token and the
// sign-in page alike. Failures from many addresses are held to one try per growing delay, one at
// a time, so that per window they stay within the per-address limit once the delay is at its
// cap; an address the owner signed in from is not delayed. Share-token guessing refuses the
// guesser, not the links already opened from its address. The clock is injected (no sleeps) and
// each request names its client's address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_DELAY_BASE_MS } from '../../src/auth/limits.js';
import type { Api, ApiResponse } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const LIMIT = 10;
const WINDOW_S = 900;
const SHARE_LIMIT = 5;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.example.com/callback';
let clock = Date.now();
let server: TestService;
let api: Api;
let app: TestApp;
/** A fresh address per call: each is another client. */
let nextHost = 1;
const freshAddress = () => `198.51.${Math.floor(nextHost / 250)}.${(nextHost++ % 250) + 1}`;
const STRANGER = '203.0.113.66';

beforeAll(async () => {
  server = await startApp({
    now: () => clock,
    env: { AUTH_ACCOUNT_FAILURES: String(LIMIT), AUTH_FAILURE_WINDOW_S: String(WINDOW_S), SHARE_TOKEN_FAILURES: String(SHARE_LIMIT) },
  });
  api = server.api;
  const res = await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json: { name: 'lockout', redirect_uris: [REDIRECT] } });
  app = res.body as TestApp;
});
afterAll(async () => {
  await server?.close();
});

async function createUser(username: string) {
  expect((await api.post('/1/user/create', { json: { client_id: app.client_id, username, password: PASSWORD } })).status).toBe(200);
}

const login = (username: string, password: string, address: string) =>
  api.post('/1/oauth/token', { address, form: { grant_type: 'password', client_id: app.client_id, username, password } });

/** Signs in on the page from `address`: 303 (signed in), 200 (wrong password: the form again) or 429. */
async function signIn(username: string, password: string, address: string): Promise<ApiResponse> {
  const query = { response_type: 'code', client_id: app.client_id, redirect_uri: REDIRECT, state: 's' };
  const page = await api.get('/oauth/authorize', { query, address });
  const fields: Record<string, string> = {};
  for (const m of String(page.body).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!.replace(/&amp;/g, '&');
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return api.post('/oauth/authorize', { address, headers: { cookie }, form: { ...fields, username, password, decision: 'allow' } });
}

const retryAfter = (res: ApiResponse) => Number(res.headers.get('retry-after'));

/**
 * Tries until the answer is not a 429, moving the clock by each Retry-After, for at most `maxWaitS`
 * seconds in all; resolves with the answer and the seconds waited.
 */
async function patiently(attempt: () => Promise<ApiResponse>, maxWaitS = 60): Promise<{ res: ApiResponse; waitedS: number }> {
  let waitedS = 0;
  for (;;) {
    const res = await attempt();
    if (res.status !== 429) return { res, waitedS };
    expect(retryAfter(res)).toBeGreaterThan(0);
    waitedS += retryAfter(res);
    if (waitedS > maxWaitS) throw new Error(`still refused after ${waitedS} s: ${JSON.stringify(res.body)}`);
    clock += retryAfter(res) * 1000;
  }
}

describe('a stranger\'s ten wrong passwords', () => {
  it('on oauth/token: the owner\'s right password works again within seconds; the stranger stays refused', async () => {
    await createUser('target');
    for (let i = 0; i < LIMIT; i++) expectErrorShape((await login('target', `guess ${i}`, STRANGER)).body, 400, 'invalid_grant');

    const owner = await patiently(() => login('target', PASSWORD, freshAddress()));
    expect(owner.res.status, JSON.stringify(owner.res.body)).toBe(200);
    expect(owner.waitedS).toBeLessThanOrEqual(ACCOUNT_DELAY_BASE_MS / 1000);

    // The stranger's address may not try the account again this window, the right password neither:
    // else the refusal would tell a right guess from a wrong one.
    const again = await login('target', PASSWORD, STRANGER);
    expectErrorShape(again.body, 429, 'too_many_requests');
    expect(again.body.error_description).toMatch(/for this account from this address/);
    clock += (WINDOW_S - 5) * 1000;
    expect((await login('target', PASSWORD, STRANGER)).status).toBe(429);
    clock += 5_000;
    expect((await login('target', PASSWORD, STRANGER)).status).toBe(200);
  });

  it('on the sign-in page too', async () => {
    await createUser('page-target');
    for (let i = 0; i < LIMIT; i++) {
      const res = await signIn('page-target', `guess ${i}`, STRANGER);
      expect(res.status).toBe(200);
      expect(String(res.body)).toContain('The username or password is incorrect');
    }
    expect((await signIn('page-target', PASSWORD, STRANGER)).status).toBe(429);
    const owner = await patiently(() => signIn('page-target', PASSWORD, freshAddress()));
    expect(owner.res.status).toBe(303);
    expect(new URL(owner.res.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    expect(owner.waitedS).toBeLessThanOrEqual(ACCOUNT_DELAY_BASE_MS / 1000);
  });
});

describe('guessing from many addresses', () => {
  it('gets one try per growing delay, then no more per window than one address may', async () => {
    await createUser('spread');
    const failuresIn = [0, 0, 0];
    const start = clock;
    // A new address for every try, each waiting exactly the Retry-After it was told.
    while (clock - start < 3 * WINDOW_S * 1000) {
      const { res } = await patiently(() => login('spread', 'guess', freshAddress()), WINDOW_S);
      expectErrorShape(res.body, 400, 'invalid_grant');
      const w = Math.floor((clock - start) / (WINDOW_S * 1000));
      if (w < failuresIn.length) failuresIn[w]!++;
    }
    // The first window has the free tries and the doubling delays; later ones the capped delay:
    // at most one address's limit per window (plus one where a window's edge splits a delay).
    expect(failuresIn[0]).toBeLessThan(3 * LIMIT);
    expect(failuresIn[1]).toBeLessThanOrEqual(LIMIT + 1);
    expect(failuresIn[2]).toBeLessThanOrEqual(LIMIT + 1);
  }, 120_000);

  it('lets one of several tries at once through while the account is delayed', async () => {
    await createUser('crowd');
    for (let i = 0; i < LIMIT; i++) await login('crowd', 'guess', freshAddress());
    clock += 60_000;
    const answers = await Promise.all(Array.from({ length: 4 }, () => login('crowd', 'guess', freshAddress())));
    expect(answers.filter((r) => r.status === 400)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 400)) expectErrorShape(r.body, 429, 'too_many_requests');
  });

  it('does not delay the owner where they signed in before', async () => {
    await createUser('homebody');
    const HOME = '192.0.2.10';
    expect((await login('homebody', PASSWORD, HOME)).status).toBe(200);
    for (let i = 0; i < LIMIT + 5; i++) await patiently(() => login('homebody', 'guess', freshAddress()));
    // The account is in its delay for anyone new...
    expectErrorShape((await login('homebody', PASSWORD, freshAddress())).body, 429, 'too_many_requests');
    // ...but not at home.
    expect((await login('homebody', PASSWORD, HOME)).status).toBe(200);
  });
});

describe('share-token guessing behind a shared address', () => {
  it('refuses the guesses, not the links already opened from there', async () => {
    const SHARED = '192.0.2.200';
    const other = await createApp(api, 'sharing');
    const walker = await createAnonUser(api, other);
    const link = async () => (await api.post('/1/link/create', { token: walker.access_token, json: {} })).body.token as string;
    const [inUse, fresh] = [await link(), await link()];
    const info = (token: string, address: string) => api.get('/1/share/info', { query: { geoloqi_token: token }, address });
    expect((await info(inUse, SHARED)).status).toBe(200);

    for (let i = 0; i < SHARE_LIMIT; i++) expect((await info(`Guess${i}x`, SHARED)).status).toBe(403);
    expectErrorShape((await info('Guess99', SHARED)).body, 429, 'too_many_requests');
    // The link in use keeps working for the address...
    expect((await info(inUse, SHARED)).status).toBe(200);
    // ...a guess riding along with it does not get through...
    expect((await api.get('/1/share/last', { query: { geoloqi_token: `${inUse},Guess77` }, address: SHARED })).status).toBe(429);
    // ...and a link never opened from there waits for the window like any guess (elsewhere it works).
    expect((await info(fresh, SHARED)).status).toBe(429);
    expect((await info(fresh, freshAddress())).status).toBe(200);
    clock += WINDOW_S * 1000;
    expect((await info(fresh, SHARED)).status).toBe(200);
  });
});
