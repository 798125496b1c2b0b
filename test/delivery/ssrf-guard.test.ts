// The SSRF guard table: every non-public target form we know of is refused, at registration and
// at connect time (including a public-looking name that resolves to a private address).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { addressProblem, assertCallbackUrl, assertNewCallbackUrl, createGuardedAgent, guardedLookup, type Resolver } from '../../src/delivery/ssrf-guard.js';

const refusedAlways = [
  '169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', '2001:db8::1',
  '192.0.2.1', '198.51.100.7', '240.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1', '::ffff:169.254.169.254',
];
const refusedUnlessAllowed = [
  '127.0.0.1', '127.255.0.1', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '10.0.0.1', '172.16.5.4', '172.31.255.255',
  '192.168.1.1', '100.64.0.1', 'fc00::1', 'fd12:3456::1', '::ffff:10.0.0.1',
];
const publicAddresses = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

describe('addressProblem', () => {
  it.each(refusedAlways)('refuses %s even when private targets are allowed', (a) => {
    expect(addressProblem(a, false)).toBeDefined();
    expect(addressProblem(a, true)).toBeDefined();
  });
  it.each(refusedUnlessAllowed)('refuses %s unless private targets are allowed', (a) => {
    expect(addressProblem(a, false)).toBeDefined();
    expect(addressProblem(a, true)).toBeUndefined();
  });
  it.each(publicAddresses)('accepts public %s', (a) => expect(addressProblem(a, false)).toBeUndefined());
});

describe('assertCallbackUrl', () => {
  const refused: Array<[string, RegExp]> = [
    ['http://127.0.0.1/hook', /loopback/],
    ['http://2130706433/hook', /127\.0\.0\.1.*loopback/], // decimal
    ['http://0x7f.1/hook', /loopback/], // hex, short form
    ['http://0177.0.0.1/hook', /loopback/], // octal
    ['http://127.1/hook', /loopback/],
    ['http://[::1]/hook', /loopback/],
    ['http://[::ffff:127.0.0.1]/hook', /loopback/], // IPv4-mapped IPv6
    ['http://[::ffff:a9fe:a9fe]/latest/meta-data', /linkLocal/], // 169.254.169.254, mapped
    ['http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['http://10.0.0.5:8080/hook', /private/],
    ['http://192.168.0.1/hook', /private/],
    ['http://[fd00::1]/hook', /uniqueLocal/],
    ['http://[fe80::1]/hook', /linkLocal/],
    ['http://0.0.0.0/hook', /unspecified/],
    ['http://localhost:3000/hook', /loopback name/],
    ['http://api.localhost/hook', /loopback name/],
    ['ftp://example.com/hook', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['http://user:pass@example.com/hook', /credentials/],
    ['not-a-url', /not an absolute URL/],
    ['http://exa\tmple.com/hook', /whitespace or control characters \(U\+0009 at character 11\)/], // parsed as example.com
    ['http://example.com/\r\nhook', /whitespace or control/],
  ];
  it.each(refused)('refuses %s', (url, why) => {
    let err: unknown;
    try {
      assertNewCallbackUrl(url, false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_input');
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).description).toMatch(why);
  });

  it('names CALLBACK_ALLOW_PRIVATE when that setting would allow the target, and only then', () => {
    const why = (url: string) => {
      try {
        assertNewCallbackUrl(url, false);
      } catch (e) {
        return (e as ApiError).description;
      }
      return undefined;
    };
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:4000/hook', 'http://10.0.0.5/hook', 'http://[::1]/hook']) {
      expect(why(url), url).toContain('CALLBACK_ALLOW_PRIVATE=true');
    }
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/hook', 'ftp://example.com/hook']) {
      expect(why(url), url).not.toContain('CALLBACK_ALLOW_PRIVATE');
    }
  });

  it('refuses whitespace only at registration: a URL stored before the rule is still delivered', () => {
    expect(() => assertNewCallbackUrl('https://example.com/cb?name=a b', false)).toThrow(/whitespace/);
    expect(assertCallbackUrl('https://example.com/cb?name=a b', false).href).toBe('https://example.com/cb?name=a%20b');
  });

  it('accepts public names and addresses', () => {
    expect(assertCallbackUrl('https://example.com/hook?secret=1', false).hostname).toBe('example.com');
    expect(assertCallbackUrl('http://8.8.8.8:8080/x', false).port).toBe('8080');
  });

  it('allows loopback and private targets when configured, never metadata', () => {
    expect(() => assertCallbackUrl('http://127.0.0.1:9999/hook', true)).not.toThrow();
    expect(() => assertCallbackUrl('http://localhost:9999/hook', true)).not.toThrow();
    expect(() => assertCallbackUrl('http://10.1.2.3/hook', true)).not.toThrow();
    expect(() => assertCallbackUrl('http://169.254.169.254/', true)).toThrow(ApiError);
  });
});

/** A resolver stub: every name maps to the listed addresses. */
const resolveTo = (addresses: string[]): Resolver => (_host, _opts, cb) =>
  cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

function lookup(fn: ReturnType<typeof guardedLookup>, all: boolean) {
  return new Promise<{ err: Error | null; result: unknown }>((resolve) =>
    fn('hooks.example.com', { all } as never, (err, result) => resolve({ err, result })));
}

describe('guardedLookup (connect time)', () => {
  it('refuses a name resolving to a private address, or to any private address among public ones', async () => {
    for (const addrs of [['10.0.0.7'], ['127.0.0.1'], ['8.8.8.8', '192.168.1.4'], ['::ffff:127.0.0.1'], ['169.254.169.254']]) {
      const { err } = await lookup(guardedLookup(false, resolveTo(addrs)), true);
      expect(err?.name, addrs.join()).toBe('SsrfBlockedError');
    }
  });

  it('passes public addresses through in the form asked for', async () => {
    const fn = guardedLookup(false, resolveTo(['8.8.8.8', '2606:4700::1']));
    expect((await lookup(fn, true)).result).toEqual([{ address: '8.8.8.8', family: 4 }, { address: '2606:4700::1', family: 6 }]);
    expect((await lookup(fn, false)).result).toBe('8.8.8.8');
  });
});

describe('guarded agent against a real local server', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('blocks a DNS name that resolves to loopback (DNS rebinding), allows it when configured', async () => {
    const blocked = createGuardedAgent({ allowPrivate: false, resolve: resolveTo(['127.0.0.1']) });
    const err = await fetch(`http://rebind.example.test:${port}/`, { dispatcher: blocked } as unknown as RequestInit).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(((err as Error).cause as Error).name).toBe('SsrfBlockedError');
    await blocked.close();

    const allowed = createGuardedAgent({ allowPrivate: true, resolve: resolveTo(['127.0.0.1']) });
    const res = await fetch(`http://rebind.example.test:${port}/`, { dispatcher: allowed } as unknown as RequestInit);
    expect(await res.text()).toBe('reached');
    await allowed.close();
  });
});
