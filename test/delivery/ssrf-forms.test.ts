// Every address form that reaches loopback, private, link-local, CGNAT, multicast or unspecified
// space is refused as a callback target: at trigger create and update (the URL, and the addresses
// its host name resolves to), before each attempt, and at connect time; unless configuration
// allows private targets, which never opens the always-refused ranges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressProblem, assertCallbackUrl, assertNewCallbackTarget, guardedLookup, type Resolver } from '../../src/delivery/ssrf-guard.js';
import { ApiError } from '../../src/errors.js';
import { createTrigger } from '../../src/services/triggers.js';
import { Api } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { createApplication } from '../../src/services/applications.js';
import { openCtx, removeDir, tempDataDir } from './helpers.js';

/** [url, what it reaches] */
const FORMS: Array<[string, string]> = [
  ['http://[::127.0.0.1]/hook', 'IPv4-compatible IPv6 of loopback'],
  ['http://[::7f00:1]/hook', 'IPv4-compatible IPv6 of loopback, hex'],
  ['http://[::10.0.0.1]/hook', 'IPv4-compatible IPv6 of 10/8'],
  ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback'],
  ['http://[::ffff:7f00:1]/hook', 'IPv4-mapped loopback, hex'],
  ['http://[::ffff:a9fe:a9fe]/latest/meta-data', 'IPv4-mapped metadata address'],
  ['http://[::ffff:0:7f00:1]/hook', 'SIIT-translated loopback'],
  ['http://[64:ff9b::127.0.0.1]/hook', 'NAT64 of loopback'],
  ['http://[64:ff9b::a00:1]/hook', 'NAT64 of 10.0.0.1'],
  ['http://[64:ff9b:1::7f00:1]/hook', 'local-use NAT64 of loopback'],
  ['http://[2002:7f00:1::1]/hook', '6to4 of loopback'],
  ['http://[2002:c0a8:101::1]/hook', '6to4 of 192.168.1.1'],
  ['http://2130706433/hook', 'decimal IPv4 loopback'],
  ['http://0x7f.1/hook', 'hex IPv4 loopback'],
  ['http://0x7f000001/hook', 'hex IPv4 loopback, one number'],
  ['http://0177.0.0.1/hook', 'octal IPv4 loopback'],
  ['http://127.1/hook', 'short IPv4 loopback'],
  ['http://[::1]/hook', 'IPv6 loopback'],
  ['http://10.1.2.3/hook', 'private'],
  ['http://172.16.0.1/hook', 'private'],
  ['http://192.168.0.1/hook', 'private'],
  ['http://[fd00::1]/hook', 'unique local'],
  ['http://169.254.169.254/latest/meta-data', 'link-local (metadata)'],
  ['http://[fe80::1]/hook', 'IPv6 link-local'],
  ['http://100.64.0.1/hook', 'CGNAT'],
  ['http://224.0.0.1/hook', 'multicast'],
  ['http://[ff02::1]/hook', 'IPv6 multicast'],
  ['http://0.0.0.0/hook', 'unspecified'],
  ['http://0/hook', 'unspecified, one number'],
  ['http://[::]/hook', 'IPv6 unspecified'],
];

/** A resolver stub: every name maps to the listed addresses. */
const resolveTo = (addresses: string[]): Resolver => (_host, _opts, cb) =>
  cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
const unresolvable: Resolver = (host, _opts, cb) => cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);

async function refusal(check: () => unknown): Promise<ApiError | undefined> {
  try {
    await check();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  return undefined;
}

function connectTime(address: string, allowPrivate: boolean) {
  const lookup = guardedLookup(allowPrivate, resolveTo([address]));
  return new Promise<Error | null>((resolve) => lookup('hooks.example.com', { all: true }, (err) => resolve(err)));
}

describe.each(FORMS)('%s (%s)', (url) => {
  const address = new URL(url).hostname.replace(/^\[|\]$/g, '');

  it('is refused at trigger create and update', async () => {
    const err = await refusal(() => assertNewCallbackTarget(url, false, unresolvable));
    expect(err?.code).toBe('invalid_input');
    expect(err?.description).toMatch(/not a public address/);
  });

  it('is refused before each attempt', async () => {
    expect((await refusal(() => assertCallbackUrl(url, false)))?.code).toBe('invalid_input');
  });

  it('is refused at connect time when a name resolves to it', async () => {
    expect((await connectTime(address, false))?.name).toBe('SsrfBlockedError');
  });
});

describe('with private targets allowed', () => {
  it.each(['http://127.0.0.1/hook', 'http://[::1]/hook', 'http://10.1.2.3/hook', 'http://100.64.0.1/hook', 'http://[::ffff:127.0.0.1]/hook'])(
    'accepts %s', async (url) => {
      await expect(assertNewCallbackTarget(url, true, unresolvable)).resolves.toBeInstanceOf(URL);
    });

  it.each(['http://169.254.169.254/', 'http://[::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::1]/', 'http://224.0.0.1/', 'http://0.0.0.0/'])(
    'still refuses %s', async (url) => {
      expect((await refusal(() => assertNewCallbackTarget(url, true, unresolvable)))?.code).toBe('invalid_input');
      expect(addressProblem(new URL(url).hostname, true)).toBeDefined();
    });
});

describe('host names at trigger create and update', () => {
  it.each([[['127.0.0.1']], [['::1']], [['10.0.0.1', '::ffff:192.168.0.1']], [['::7f00:1']], [['169.254.169.254']]])(
    'refuses a name whose every address is refused (%j)', async (addresses) => {
      const err = await refusal(() => assertNewCallbackTarget('https://hooks.example.com/cb', false, resolveTo(addresses)));
      expect(err?.code).toBe('invalid_input');
      expect(err?.description).toMatch(/"hooks\.example\.com" resolves to no public address/);
    });

  it('accepts a name with a public address (a private one among them is refused at connect time)', async () => {
    await expect(assertNewCallbackTarget('https://hooks.example.com/cb', false, resolveTo(['8.8.8.8', '10.0.0.1']))).resolves.toBeInstanceOf(URL);
    const lookup = guardedLookup(false, resolveTo(['8.8.8.8', '10.0.0.1']));
    const err = await new Promise<Error | null>((resolve) => lookup('hooks.example.com', { all: true }, (e) => resolve(e)));
    expect(err?.name).toBe('SsrfBlockedError');
  });

  it('accepts a name that does not resolve (yet): the connect-time check covers it', async () => {
    await expect(assertNewCallbackTarget('https://not-yet.example.com/cb', false, unresolvable)).resolves.toBeInstanceOf(URL);
  });

  it('accepts a loopback name when private targets are allowed, never a metadata one', async () => {
    await expect(assertNewCallbackTarget('http://receiver.test/cb', true, resolveTo(['127.0.0.1']))).resolves.toBeInstanceOf(URL);
    expect((await refusal(() => assertNewCallbackTarget('http://receiver.test/cb', true, resolveTo(['169.254.169.254']))))?.code).toBe('invalid_input');
  });

  it('trigger/create refuses a callback host that resolves to loopback (the service resolves it)', async () => {
    const dir = await tempDataDir();
    const ctx = await openCtx(dir, { callbackAllowPrivate: false });
    try {
      ctx.callbackResolver = resolveTo(['127.0.0.1']);
      const created = await createApplication(ctx, 'ssrf');
      const app = (await ctx.store.applications.get(created.application_id))!;
      const create = () => createTrigger(ctx, app._id, app.default_layer_id, {
        type: 'callback', url: 'https://internal.example.com/cb', latitude: 45.5, longitude: -122.6, radius: 100,
      } as Parameters<typeof createTrigger>[3]);
      const err = await refusal(create);
      expect(err?.status).toBe(400);
      expect(err?.description).toMatch(/resolves to no public address: 127\.0\.0\.1 is in the loopback range/);
      ctx.callbackResolver = resolveTo(['8.8.8.8']);
      await expect(create()).resolves.toBeDefined();
    } finally {
      await ctx.store.close();
      await removeDir(dir);
    }
  });
});

describe('trigger/create over HTTP', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApp({ env: { CALLBACK_ALLOW_PRIVATE: 'false' } });
    api = server.api;
    app = await createApp(api);
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(['http://[::127.0.0.1]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[2002:c0a8:101::1]/', 'http://0x7f.1/'])('refuses %s with a 400', async (url) => {
    const res = await api.post('/1/trigger/create', {
      token: app.access_token,
      json: { type: 'callback', url, latitude: 45.5, longitude: -122.6, radius: 100 },
    });
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/not a public address/);
  });
});
