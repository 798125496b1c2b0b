// Push providers against msw: FCM HTTP v1 (service-account JWT -> OAuth token -> messages:send)
// and APNs (ES256 provider token, /3/device/<token>): request shape, auth, error handling, and
// dead tokens dropped from the user's devices when a message is delivered.
import { generateKeyPairSync, verify } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverMessage } from '../../src/delivery/inbox.js';
import { ApnsProvider } from '../../src/delivery/push/apns.js';
import { FcmProvider } from '../../src/delivery/push/fcm.js';
import { providersFromConfig } from '../../src/delivery/push/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { seed, storePerTest } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const account = { client_email: 'push@proj.iam.gserviceaccount.com', private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), token_uri: 'https://oauth2.googleapis.com/token' };
const FCM_SEND = 'https://fcm.googleapis.com/v1/projects/proj-1/messages:send';
const APNS = 'https://api.push.apple.com/3/device/:token';
const message = { message_id: 'm1', text: 'Welcome to Powells', url: 'https://powells.example/', layer_id: 'L1' };
const apnsToken = 'a'.repeat(64);

function decodeJwt(jwt: string) {
  const [h, c, s] = jwt.split('.');
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(c, 'base64url').toString()), input: `${h}.${c}`, sig: Buffer.from(s, 'base64url') };
}

/** Token endpoint that checks the assertion and counts exchanges. */
function tokenEndpoint(counter: { n: number }) {
  return http.post('https://oauth2.googleapis.com/token', async ({ request }) => {
    const form = new URLSearchParams(await request.text());
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const jwt = decodeJwt(form.get('assertion')!);
    expect(jwt.header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(jwt.claims).toMatchObject({ iss: account.client_email, scope: 'https://www.googleapis.com/auth/firebase.messaging', aud: account.token_uri });
    expect(jwt.claims.exp - jwt.claims.iat).toBe(3600);
    expect(verify('sha256', Buffer.from(jwt.input), rsa.publicKey, jwt.sig)).toBe(true);
    counter.n++;
    return HttpResponse.json({ access_token: `ya29.token-${counter.n}`, expires_in: 3599, token_type: 'Bearer' });
  });
}

const fcmError = (status: number, code: string, statusName: string, msg = 'err') =>
  HttpResponse.json({ error: { code: status, message: msg, status: statusName, details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: code }] } }, { status });

describe('FCM HTTP v1', () => {
  it('exchanges a signed assertion for an access token (cached) and posts the message', async () => {
    const tokens = { n: 0 };
    const bodies: any[] = [];
    server.use(tokenEndpoint(tokens), http.post(FCM_SEND, async ({ request }) => {
      expect(request.headers.get('authorization')).toBe('Bearer ya29.token-1');
      bodies.push(await request.json());
      return HttpResponse.json({ name: 'projects/proj-1/messages/0:1' });
    }));
    const fcm = new FcmProvider({ projectId: 'proj-1', account });
    expect(await fcm.send('device-token-1', message)).toEqual({ ok: true });
    expect(await fcm.send('device-token-2', message)).toEqual({ ok: true });
    expect(tokens.n).toBe(1);
    expect(bodies[0]).toEqual({
      message: {
        token: 'device-token-1', notification: { body: 'Welcome to Powells' },
        data: { message_id: 'm1', url: 'https://powells.example/', layer_id: 'L1' }, android: { priority: 'high' },
      },
    });
  });

  it('renews the access token when it expires, and once after a 401', async () => {
    let now = 1_000_000;
    const tokens = { n: 0 };
    let first401 = true;
    server.use(tokenEndpoint(tokens), http.post(FCM_SEND, ({ request }) => {
      if (first401 && request.headers.get('authorization') === 'Bearer ya29.token-2') {
        first401 = false;
        return fcmError(401, 'THIRD_PARTY_AUTH_ERROR', 'UNAUTHENTICATED');
      }
      return HttpResponse.json({ name: 'x' });
    }));
    const fcm = new FcmProvider({ projectId: 'proj-1', account, now: () => now });
    expect((await fcm.send('t', message)).ok).toBe(true);
    now += 3600_000;
    expect((await fcm.send('t', message)).ok).toBe(true);
    expect(tokens.n).toBe(3);
  });

  it('classifies errors: UNREGISTERED and bad tokens are dead; 429/503 retryable; bad payload neither', async () => {
    server.use(tokenEndpoint({ n: 0 }));
    const fcm = new FcmProvider({ projectId: 'proj-1', account });
    const cases: Array<[() => Response, object]> = [
      [() => fcmError(404, 'UNREGISTERED', 'NOT_FOUND', 'Requested entity was not found.'), { unregistered: true, retryable: false }],
      [() => fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token'), { unregistered: true }],
      [() => fcmError(403, 'SENDER_ID_MISMATCH', 'PERMISSION_DENIED'), { unregistered: true }],
      [() => fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Invalid JSON payload'), { unregistered: false, retryable: false }],
      [() => fcmError(429, 'QUOTA_EXCEEDED', 'RESOURCE_EXHAUSTED'), { unregistered: false, retryable: true }],
      [() => fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE'), { unregistered: false, retryable: true }],
      [() => HttpResponse.error(), { unregistered: false, retryable: true }],
    ];
    for (const [respond, expected] of cases) {
      server.use(http.post(FCM_SEND, respond));
      expect(await fcm.send('t', message)).toMatchObject({ ok: false, ...expected });
    }
  });
});

describe('APNs', () => {
  const apns = (over: Partial<ConstructorParameters<typeof ApnsProvider>[0]> = {}) =>
    new ApnsProvider({ key: ec.privateKey, keyId: 'KEY123', teamId: 'TEAM456', topic: 'com.example.app', production: true, ...over });

  it('posts an alert with an ES256 provider token and the apns headers', async () => {
    let seen: { headers: Headers; body: any; token: string } | undefined;
    server.use(http.post(APNS, async ({ request, params }) => {
      seen = { headers: request.headers, body: await request.json(), token: String(params.token) };
      return new HttpResponse(null, { status: 200, headers: { 'apns-id': 'x' } });
    }));
    const p = apns();
    expect(await p.send(apnsToken, message)).toEqual({ ok: true });
    expect(seen!.token).toBe(apnsToken);
    expect(seen!.headers.get('apns-topic')).toBe('com.example.app');
    expect(seen!.headers.get('apns-push-type')).toBe('alert');
    expect(seen!.body).toEqual({ aps: { alert: { body: 'Welcome to Powells' }, sound: 'default' }, message_id: 'm1', url: 'https://powells.example/', layer_id: 'L1' });
    const auth = seen!.headers.get('authorization')!;
    expect(auth).toMatch(/^bearer /);
    const jwt = decodeJwt(auth.slice('bearer '.length));
    expect(jwt.header).toMatchObject({ alg: 'ES256', kid: 'KEY123' });
    expect(jwt.claims).toMatchObject({ iss: 'TEAM456', iat: expect.any(Number) });
    expect(jwt.sig).toHaveLength(64);
    expect(verify('sha256', Buffer.from(jwt.input), { key: ec.publicKey, dsaEncoding: 'ieee-p1363' }, jwt.sig)).toBe(true);
    await p.close();
  });

  it('uses the sandbox host for development tokens', async () => {
    let host = '';
    server.use(http.post('https://api.sandbox.push.apple.com/3/device/:token', ({ request }) => {
      host = new URL(request.url).host;
      return new HttpResponse(null, { status: 200 });
    }));
    expect((await apns({ production: false }).send(apnsToken, message)).ok).toBe(true);
    expect(host).toBe('api.sandbox.push.apple.com');
  });

  it('reuses the provider token, renews it after an ExpiredProviderToken', async () => {
    const auths: string[] = [];
    server.use(http.post(APNS, ({ request }) => {
      auths.push(request.headers.get('authorization')!);
      return auths.length === 2 ? HttpResponse.json({ reason: 'ExpiredProviderToken' }, { status: 403 }) : new HttpResponse(null, { status: 200 });
    }));
    let now = 1_700_000_000_000;
    const p = apns({ now: () => now });
    expect((await p.send(apnsToken, message)).ok).toBe(true);
    now += 1000;
    expect((await p.send(apnsToken, message)).ok).toBe(true);
    expect(auths[1]).toBe(auths[0]);
    expect(auths[2]).not.toBe(auths[1]);
  });

  it('classifies errors: Unregistered / BadDeviceToken dead, 429 and 5xx retryable', async () => {
    const p = apns();
    const cases: Array<[number, string, object]> = [
      [410, 'Unregistered', { unregistered: true }],
      [400, 'BadDeviceToken', { unregistered: true }],
      [400, 'DeviceTokenNotForTopic', { unregistered: true }],
      [400, 'PayloadTooLarge', { unregistered: false, retryable: false }],
      [429, 'TooManyRequests', { unregistered: false, retryable: true }],
      [503, 'ServiceUnavailable', { unregistered: false, retryable: true }],
    ];
    for (const [status, reason, expected] of cases) {
      server.use(http.post(APNS, () => HttpResponse.json({ reason }, { status })));
      expect(await p.send(apnsToken, message)).toMatchObject({ ok: false, error: `APNs ${status} ${reason}`, ...expected });
    }
    // A token that is not hex never leaves the process.
    expect(await p.send('not-a-token', message)).toMatchObject({ ok: false, unregistered: true });
  });
});

describe('pushing a delivered message to the user\'s devices', () => {
  let ctx: ServiceContext;
  storePerTest((c) => (ctx = c));

  it('sends to every token through its provider and drops the dead ones', async () => {
    const f = await seed(ctx, { type: 'message', text: 'hi' }, {
      user: { devices: { apns_live: [apnsToken, 'b'.repeat(64)], apns_dev: [], gcm: ['fcm-ok', 'fcm-dead'], c2dm: ['c2dm-old'] } },
    });
    const fcmSeen: string[] = [];
    const apnsSeen: string[] = [];
    server.use(
      tokenEndpoint({ n: 0 }),
      http.post(FCM_SEND, async ({ request }) => {
        const token = ((await request.json()) as { message: { token: string } }).message.token;
        fcmSeen.push(token);
        return token === 'fcm-ok' ? HttpResponse.json({ name: 'x' }) : fcmError(404, 'UNREGISTERED', 'NOT_FOUND');
      }),
      http.post(APNS, ({ params }) => {
        apnsSeen.push(String(params.token));
        return params.token === apnsToken ? new HttpResponse(null, { status: 200 }) : HttpResponse.json({ reason: 'Unregistered' }, { status: 410 });
      }),
    );
    const fcm = new FcmProvider({ projectId: 'proj-1', account });
    ctx.delivery.configurePush({ gcm: fcm, c2dm: fcm, apns_live: new ApnsProvider({ key: ec.privateKey, keyId: 'K', teamId: 'T', topic: 'com.example.app', production: true }) });
    const { message: m } = await deliverMessage(ctx.delivery, { app_id: f.app._id, user_id: f.user._id, text: 'Hello', url: 'https://x.example/' });
    await ctx.delivery.flushPushes();
    expect(apnsSeen.sort()).toEqual([apnsToken, 'b'.repeat(64)].sort());
    expect(fcmSeen.sort()).toEqual(['c2dm-old', 'fcm-dead', 'fcm-ok']);
    const user = (await ctx.store.users.get(f.app._id, f.user._id))!;
    expect(user.devices).toEqual({ apns_live: [apnsToken], apns_dev: [], gcm: ['fcm-ok'], c2dm: [] });
    expect((await ctx.store.messages.get(f.app._id, m._id))!.pushed_at).toEqual(expect.any(Number));
  });

  it('providers are off when unconfigured: tokens are kept and the message is still stored', async () => {
    expect(await providersFromConfig(undefined)).toEqual({});
    const f = await seed(ctx, { type: 'message', text: 'hi' }, { user: { devices: { apns_live: [], apns_dev: [], gcm: ['kept'], c2dm: [] } } });
    ctx.delivery.configurePush({});
    await deliverMessage(ctx.delivery, { app_id: f.app._id, user_id: f.user._id, text: 'Hello' });
    await ctx.delivery.flushPushes();
    expect((await ctx.store.users.get(f.app._id, f.user._id))!.devices.gcm).toEqual(['kept']);
    expect((await ctx.store.messages.page(f.app._id, f.user._id, { offset: 0, limit: 1 })).total).toBe(1);
  });
});
