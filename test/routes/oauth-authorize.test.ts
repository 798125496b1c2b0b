// The authorization code flow (reference §2.3, §2.4; RFC 6749 §4.1; RFC 7636): the /oauth/authorize
// page and grant_type=authorization_code, through the real routes, the CSRF cookie as a browser
// keeps it, and the embedded store on disk. The browser walk is test/oauth/authorize.e2e.test.ts.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpired } from '../../src/services/retention.js';
import type { Api, ApiResponse } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

let clock = Date.now();
let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;
const REDIRECT = 'https://app.example.com/callback?from=geotrigger';
const SECOND = 'com.example.app://oauth';
const PASSWORD = 'correct horse battery staple';

async function createAppWith(name: string, redirect_uris: string[]): Promise<TestApp> {
  const res = await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json: { name, redirect_uris } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as TestApp;
}

async function createUser(a: TestApp, username: string) {
  const res = await api.post('/1/user/create', { json: { client_id: a.client_id, username, password: PASSWORD } });
  expect(res.status).toBe(200);
  return res.body as { user_id: string };
}

beforeAll(async () => {
  server = await startApp({ now: () => clock, env: { AUTH_ACCOUNT_FAILURES: '3' } });
  api = server.api;
  app = await createAppWith('Trail <b>"Maps"</b> & Co', [REDIRECT, SECOND]);
  other = await createAppWith('other app', ['https://other.example.com/cb']);
  await createUser(app, 'walker');
  await createUser(app, 'guesser');
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

interface Form {
  page: ApiResponse;
  fields: Record<string, string>;
  cookie: string;
}

/** Opens the page as a browser would and reads its form: hidden fields and the CSRF cookie. */
async function openForm(query: Record<string, string>): Promise<Form> {
  const page = await api.get('/oauth/authorize', { query });
  expect(page.status, String(page.body)).toBe(200);
  const fields: Record<string, string> = {};
  for (const m of String(page.body).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[unescape(m[1]!)] = unescape(m[2]!);
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { page, fields, cookie };
}

const submit = (form: Form, fields: Record<string, string>, cookie = form.cookie) =>
  api.post('/oauth/authorize', { form: { ...form.fields, ...fields }, headers: cookie ? { cookie } : {} });

const baseQuery = (extra: Record<string, string> = {}) => ({ response_type: 'code', client_id: app.client_id, redirect_uri: REDIRECT, state: 'xyz', ...extra });

/** The query of the redirect a response sends the browser to (which must start with `uri`). */
function redirectedTo(res: ApiResponse, uri = REDIRECT): URLSearchParams {
  expect([302, 303], String(res.body)).toContain(res.status);
  const location = res.headers.get('location')!;
  expect(location.startsWith(uri.split('?')[0]!)).toBe(true);
  return new URL(location).searchParams;
}

/** Signs walker in through the page and returns the code it redirects with. */
async function authorize(extra: Record<string, string> = {}, username = 'walker'): Promise<string> {
  const form = await openForm(baseQuery(extra));
  const params = redirectedTo(await submit(form, { username, password: PASSWORD, decision: 'allow' }), extra.redirect_uri ?? REDIRECT);
  expect(params.get('state')).toBe(extra.state ?? 'xyz');
  return params.get('code')!;
}

/** `basic`: the client's key and secret as HTTP Basic (null: none, as a public client sends). */
const exchange = (form: Record<string, string>, basic: [string, string] | null = [app.client_id, app.client_secret]) =>
  api.post('/1/oauth/token', { form: { grant_type: 'authorization_code', redirect_uri: REDIRECT, ...form }, ...(basic ? { basic } : {}) });

const pkce = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = 'v'.repeat(20) + '-._~' + 'A1'.repeat(12);

describe('the authorize page', () => {
  it('shows a login and consent form, escaped, that may not be framed, with a CSRF cookie', async () => {
    const form = await openForm(baseQuery({ state: '"><script>alert(1)</script>' }));
    const body = String(form.page.body);
    expect(form.page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(body).toContain('Trail &lt;b&gt;&quot;Maps&quot;&lt;/b&gt; &amp; Co');
    expect(body).not.toContain('<script>');
    expect(body).not.toContain('<b>');
    expect(form.fields.state).toBe('"><script>alert(1)</script>');
    expect(form.fields._csrf).toBeTruthy();
    expect(form.page.headers.get('x-frame-options')).toBe('DENY');
    expect(form.page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(form.page.headers.get('cache-control')).toBe('no-store');
    expect(form.page.headers.getSetCookie().join()).toMatch(/geotrigger_csrf=.*HttpOnly/i);
  });

  it('never redirects to an unknown client or an unregistered redirect_uri: an error page says why', async () => {
    for (const [query, says] of [
      [baseQuery({ client_id: 'no-such-client' }), 'unknown'],
      [baseQuery({ redirect_uri: 'https://evil.example.com/callback' }), 'not one the application registered'],
      [baseQuery({ redirect_uri: `${REDIRECT}&x=1` }), 'not one the application registered'],
      [baseQuery({ redirect_uri: '' }), 'several'],
      [{ response_type: 'code', redirect_uri: REDIRECT }, 'no application'],
    ] as const) {
      const res = await api.get('/oauth/authorize', { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(String(res.body)).toContain(says);
    }
    // An application with no redirect URI registered cannot use the page at all.
    const bare = await createApp(api, 'no redirect');
    const res = await api.get('/oauth/authorize', { query: { response_type: 'code', client_id: bare.client_id, redirect_uri: REDIRECT } });
    expect(res.status).toBe(400);
    expect(String(res.body)).toContain('no registered redirect_uri');
  });

  it('with one registered redirect_uri the request may leave it out', async () => {
    const page = await api.get('/oauth/authorize', { query: { response_type: 'code', client_id: other.client_id } });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('https://other.example.com/cb');
  });

  it('sends request errors back to the application with the state (RFC 6749 §4.1.2.1)', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [baseQuery({ response_type: 'id_token' }), 'unsupported_response_type'],
      [baseQuery({ response_type: '' }), 'invalid_request'],
      [baseQuery({ code_challenge: 'short' }), 'invalid_request'],
      [baseQuery({ code_challenge: pkce(VERIFIER), code_challenge_method: 'S512' }), 'invalid_request'],
    ];
    for (const [query, error] of cases) {
      const params = redirectedTo(await api.get('/oauth/authorize', { query }));
      expect(params.get('error'), JSON.stringify(query)).toBe(error);
      expect(params.get('state')).toBe('xyz');
      expect(params.get('from')).toBe('geotrigger'); // the redirect URI's own query is kept
    }
    // No state sent, none returned.
    const { state: _s, ...noState } = baseQuery({ response_type: 'id_token' });
    expect(redirectedTo(await api.get('/oauth/authorize', { query: noState })).has('state')).toBe(false);
  });

  it('refuses a POST without the form token or without its cookie (CSRF)', async () => {
    const form = await openForm(baseQuery());
    for (const res of [
      await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow' }, ''),
      await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow', _csrf: 'forged' }),
      await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow', _csrf: '' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect(String(res.body)).toContain('has expired or did not come from this site');
    }
  });

  it('deny sends access_denied back with the state; a wrong password shows the form again', async () => {
    const form = await openForm(baseQuery({ state: 'deny me' }));
    const denied = redirectedTo(await submit(form, { decision: 'deny' }));
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('state')).toBe('deny me');
    expect(denied.has('code')).toBe(false);
    const wrong = await submit(form, { username: 'walker', password: 'nope', decision: 'allow' });
    expect(wrong.status).toBe(200);
    expect(wrong.headers.get('location')).toBeNull();
    expect(String(wrong.body)).toContain('The username or password is incorrect.');
    expect(String(wrong.body)).toContain('value="walker"');
  });

  it('failed logins count against the account: past the limit the form says to wait, with Retry-After', async () => {
    const form = await openForm(baseQuery());
    for (let i = 0; i < 3; i++) expect((await submit(form, { username: 'guesser', password: `wrong ${i}`, decision: 'allow' })).status).toBe(200);
    const limited = await submit(form, { username: 'guesser', password: PASSWORD, decision: 'allow' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(String(limited.body)).toContain('Too many failed credential checks');
  });
});

describe('response_type=token (the implicit grant geoloqi-js asks for)', () => {
  const fragmentOf = (res: ApiResponse) => {
    expect(res.status).toBe(303);
    const url = new URL(res.headers.get('location')!);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT.split('?')[0]);
    // Nothing of the answer in the query, which the application's server would see.
    expect([...url.searchParams.keys()]).toEqual(['from']);
    return new URLSearchParams(url.hash.slice(1));
  };

  it('sends a user token back in the fragment with the state, and no refresh token', async () => {
    const form = await openForm(baseQuery({ response_type: 'token', state: 'js state' }));
    const got = fragmentOf(await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow' }));
    expect(got.get('state')).toBe('js state');
    expect(got.get('token_type')).toBe('bearer');
    expect(Number(got.get('expires_in'))).toBeGreaterThan(0);
    expect(got.has('refresh_token')).toBe(false);
    expect(got.has('code')).toBe(false);
    const profile = await api.get('/1/account/profile', { token: got.get('access_token')! });
    expect(profile.body.username).toBe('walker');
  });

  it('a denial goes back in the fragment too', async () => {
    const form = await openForm(baseQuery({ response_type: 'token' }));
    const got = fragmentOf(await submit(form, { decision: 'deny' }));
    expect(got.get('error')).toBe('access_denied');
    expect(got.get('state')).toBe('xyz');
    expect(got.has('access_token')).toBe(false);
  });
});

describe('grant_type=authorization_code', () => {
  it('exchanges a code for a user token once; a second use is refused and withdraws the first tokens', async () => {
    const code = await authorize();
    const res = await exchange({ code });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ username: 'walker', scope: null });
    expect(res.body.refresh_token).toBeTruthy();
    const profile = await api.get('/1/account/profile', { token: res.body.access_token });
    expect(profile.body.username).toBe('walker');

    const again = await exchange({ code });
    expectErrorShape(again.body, 400, 'invalid_grant');
    expect(again.body.error_description).toBe('The authorization code has already been used');
    expect((await api.get('/1/account/profile', { token: res.body.access_token })).status).toBe(401);
    const refreshed = await api.post('/1/oauth/token', { form: { grant_type: 'refresh_token', client_id: app.client_id, refresh_token: res.body.refresh_token } });
    expectErrorShape(refreshed.body, 400, 'invalid_grant');
  });

  it('is bound to the redirect_uri, the client and its secret', async () => {
    const code = await authorize();
    expectErrorShape((await exchange({ code, redirect_uri: SECOND })).body, 400, 'invalid_grant');
    expectErrorShape((await exchange({ code, redirect_uri: '' })).body, 400, 'invalid_grant');
    expectErrorShape((await exchange({ code }, [other.client_id, other.client_secret])).body, 400, 'invalid_grant');
    const noSecret = await exchange({ code, client_id: app.client_id }, null);
    expect(noSecret.status).toBe(401);
    expectErrorShape(noSecret.body, 401, 'invalid_client');
    expectErrorShape((await exchange({ code: 'not-a-code' })).body, 400, 'invalid_grant');
    expectErrorShape((await exchange({})).body, 400, 'invalid_request');
    // None of those spent it.
    expect((await exchange({ code })).status).toBe(200);
  });

  it('takes the redirect_uri as the browser came back to it, with the code and state the service added (MapAttack)', async () => {
    const form = await openForm(baseQuery());
    const location = (await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow' })).headers.get('location')!;
    const code = new URL(location).searchParams.get('code')!;
    // Anything else added, or a code other than this one, is still another URI.
    for (const other of [`${location}&x=1`, location.replace(code, `${code}x`), location.replace('from=geotrigger', 'from=elsewhere')]) {
      expectErrorShape((await exchange({ code, redirect_uri: other })).body, 400, 'invalid_grant');
    }
    const res = await exchange({ code, redirect_uri: location });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ username: 'walker' });
  });

  it('a code expires within ten minutes, with the description the ruby client looks for', async () => {
    const code = await authorize();
    clock += 10 * 60_000;
    try {
      const res = await exchange({ code });
      expectErrorShape(res.body, 400, 'invalid_grant');
      expect(res.body.error_description).toMatch(/The auth code expired/);
    } finally {
      clock = Date.now();
    }
  });

  it('PKCE: the verifier is required when a challenge was sent, and then the secret is not', async () => {
    const code = await authorize({ code_challenge: pkce(VERIFIER), code_challenge_method: 'S256' });
    const publicClient = (form: Record<string, string>) => exchange({ code, client_id: app.client_id, ...form }, null);
    expectErrorShape((await publicClient({})).body, 400, 'invalid_grant');
    expectErrorShape((await publicClient({ code_verifier: `${VERIFIER}x` })).body, 400, 'invalid_grant');
    expectErrorShape((await publicClient({ code_verifier: pkce(VERIFIER) })).body, 400, 'invalid_grant');
    const ok = await publicClient({ code_verifier: VERIFIER });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const plain = await authorize({ code_challenge: VERIFIER });
    expect((await exchange({ code: plain, client_id: app.client_id, code_verifier: VERIFIER }, null)).status).toBe(200);
    // A verifier for a code issued without a challenge is refused (no downgrade).
    const none = await authorize();
    expectErrorShape((await exchange({ code: none, code_verifier: VERIFIER })).body, 400, 'invalid_grant');
  });

  it('works with a custom-scheme redirect_uri and without state', async () => {
    const form = await openForm({ response_type: 'code', client_id: app.client_id, redirect_uri: SECOND });
    const params = redirectedTo(await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow' }), SECOND);
    expect(params.has('state')).toBe(false);
    expect((await exchange({ code: params.get('code')!, redirect_uri: SECOND })).status).toBe(200);
  });

  it('codes are stored: one survives a restart, and expired ones are swept a day later', async () => {
    const code = await authorize();
    await server.restart();
    expect((await exchange({ code })).status).toBe(200);
    const r = await sweepExpired(server.app.ctx, Date.now() + 2 * 86_400_000);
    expect(r.codes).toBeGreaterThan(0);
    expectErrorShape((await exchange({ code })).body, 400, 'invalid_grant');
  });
});

describe('registered redirect URIs (admin API)', () => {
  it('are listed and replaced; a fragment, a script scheme or a relative URI is refused', async () => {
    const a = await createAppWith('uris', ['https://a.example.com/cb']);
    const updated = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { redirect_uris: ['http://localhost:8080/cb'] } });
    expect(updated.body.redirect_uris).toEqual(['http://localhost:8080/cb']);
    const list = await api.get('/admin/app/list', { bearer: ADMIN_TOKEN });
    expect(list.body.applications.find((x: { application_id: string }) => x.application_id === a.application_id).redirect_uris).toEqual(['http://localhost:8080/cb']);
    for (const bad of ['https://a.example.com/cb#frag', 'javascript:alert(1)', '/relative/cb', 'data:text/html,hi']) {
      const res = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { redirect_uris: [bad] } });
      expect(res.status, bad).toBe(400);
      expectErrorShape(res.body, 400, 'invalid_input');
    }
  });
});

describe('mode=popup (test/oauth/popup.e2e.test.ts runs it in a browser)', () => {
  /** The popup page's posted message, target origin and fallback, and its headers. */
  const popupAnswer = (res: ApiResponse) => {
    expect(res.status, String(res.body)).toBe(200);
    const html = String(res.body);
    const data = JSON.parse(/<script type="application\/json" id="popup-answer">(.*?)<\/script>/s.exec(html)![1]!);
    const script = /<script>(.*?)<\/script>/s.exec(html)![1]!;
    return { data, message: JSON.parse(data.message), script, csp: res.headers.get('content-security-policy') ?? '' };
  };

  it('answers the sign-in with a page that posts it to the redirect URI\'s origin, its script allowed by hash', async () => {
    const form = await openForm(baseQuery({ response_type: 'token', mode: 'popup' }));
    expect(form.fields.mode).toBe('popup');
    const answer = popupAnswer(await submit(form, { username: 'walker', password: PASSWORD, decision: 'allow' }));
    expect(answer.data.origin).toBe('https://app.example.com');
    const auth = new URLSearchParams(answer.message.oauth.auth);
    expect(auth.get('token_type')).toBe('bearer');
    expect(auth.get('state')).toBe('xyz');
    expect((await api.get('/1/account/profile', { token: auth.get('access_token')! })).body).toMatchObject({ username: 'walker' });
    // With no opener, the page goes where the redirect would have.
    expect(answer.data.fallback).toBe(`${REDIRECT}#${answer.message.oauth.auth}`);
    expect(answer.script).toContain('postMessage(data.message, data.origin)');
    expect(answer.csp).toContain(`script-src 'sha256-${createHash('sha256').update(answer.script).digest('base64')}'`);
    expect(answer.csp).toContain("frame-ancestors 'none'");
  });

  it('posts a request error or a denial as {"oauth":{"error"}}, and keeps redirecting an app scheme', async () => {
    const bad = popupAnswer(await api.get('/oauth/authorize', { query: baseQuery({ response_type: 'nonsense', mode: 'popup' }) }));
    expect(bad.message).toMatchObject({ oauth: { error: 'unsupported_response_type', state: 'xyz' } });
    const form = await openForm(baseQuery({ response_type: 'token', mode: 'popup' }));
    const denied = popupAnswer(await submit(form, { decision: 'deny' }));
    expect(denied.message).toMatchObject({ oauth: { error: 'access_denied', state: 'xyz' } });
    // No web origin to post to: redirected as without the popup.
    const res = await api.get('/oauth/authorize', { query: baseQuery({ response_type: 'nonsense', mode: 'popup', redirect_uri: SECOND }) });
    expect(res.status).toBe(302);
  });
});
