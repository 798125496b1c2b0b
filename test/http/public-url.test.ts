// Absolute URLs the service hands out (link/create and trip/create links, the Location of a 409
// create) start with PUBLIC_URL, or without it with the address the service listens on, never with
// the request's Host header (issue 37, item 9): a caller sending `Host: evil.example` gets links to
// this service all the same.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { publicBaseUrl } from '../../src/http/public-url.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const EVIL = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

/** Every absolute URL the service hands out, asked for with a hostile Host header. */
async function handedOut(service: TestService): Promise<string[]> {
  const app = await createApp(service.api);
  const user = await createAnonUser(service.api, app);
  const urls: string[] = [];
  for (const method of ['/1/link/create', '/1/trip/create']) {
    const res = await service.api.post(method, { token: user.access_token, json: {}, headers: EVIL });
    expect(res.status, method).toBe(200);
    urls.push(res.body.link, res.body.shortlink);
  }
  for (const [method, body] of [
    ['/1/layer/create', { name: 'L', key: 'k' }],
    ['/1/place/create', { latitude: 1, longitude: 2, radius: 50, key: 'k' }],
    ['/1/trigger/create', { latitude: 1, longitude: 2, radius: 50, key: 'k', type: 'message', text: 'hi' }],
  ] as const) {
    await service.api.post(method, { token: app.access_token, json: body });
    const again = await service.api.post(method, { token: app.access_token, json: body, headers: EVIL });
    expect(again.status, method).toBe(409);
    urls.push(again.headers.get('location')!);
  }
  return urls;
}

describe('absolute URLs', () => {
  it('start with PUBLIC_URL, its path prefix included, whatever the Host header says', async () => {
    const service = await startApp({ env: { PUBLIC_URL: 'https://geo.example.com/api/' } });
    try {
      const urls = await handedOut(service);
      expect(urls).toHaveLength(7);
      for (const url of urls) expect(url).toMatch(/^https:\/\/geo\.example\.com\/api\/1\/(share\/last\?geoloqi_token=[\w-]{7}|(layer|place|trigger)\/info\/[\w-]+)$/);
    } finally {
      await service.close();
    }
  });

  it('without PUBLIC_URL, start with HOST and PORT, never the Host header', async () => {
    const service = await startApp({ env: { PUBLIC_URL: '', HOST: '127.0.0.1', PORT: '8123' } });
    try {
      for (const url of await handedOut(service)) expect(url.startsWith('http://127.0.0.1:8123/1/'), url).toBe(true);
    } finally {
      await service.close();
    }
  });
});

describe('publicBaseUrl', () => {
  const listening = (address: string, port: number) => ({ address, family: address.includes(':') ? 'IPv6' : 'IPv4', port });

  it('is PUBLIC_URL when set', () => {
    expect(publicBaseUrl({ publicUrl: 'https://geo.example.com', host: '0.0.0.0', port: 80 }, listening('0.0.0.0', 3000))).toBe('https://geo.example.com');
  });

  it('else the host and the port listened on, a wildcard host as loopback', () => {
    expect(publicBaseUrl({ host: '127.0.0.1', port: 0 }, listening('127.0.0.1', 41234))).toBe('http://127.0.0.1:41234');
    expect(publicBaseUrl({ host: 'geo.internal', port: 3000 }, listening('10.0.0.5', 3000))).toBe('http://geo.internal:3000');
    expect(publicBaseUrl({ host: '0.0.0.0', port: 3000 }, listening('0.0.0.0', 3000))).toBe('http://127.0.0.1:3000');
    expect(publicBaseUrl({ host: '::', port: 3000 }, listening('::', 3000))).toBe('http://[::1]:3000');
    expect(publicBaseUrl({ host: 'fd00::5', port: 3000 }, null)).toBe('http://[fd00::5]:3000');
  });
});

describe('PUBLIC_URL', () => {
  it('is read as origin and path, without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Geo.Example.com' }).publicUrl).toBe('https://geo.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://geo.example.com:443/' }).publicUrl).toBe('https://geo.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:8080/geotrigger//' }).publicUrl).toBe('http://10.0.0.5:8080/geotrigger');
    expect(loadConfig({}).publicUrl).toBeUndefined();
  });

  it.each(['geo.example.com', 'ftp://geo.example.com', 'https://user:pw@geo.example.com', 'https://geo.example.com/?x=1', 'https://geo.example.com/#top', 'https://geo.example.com/a b', 'https://'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL must be/);
    },
  );

  it('is asked for when the service listens on every address', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).warnings.join('\n')).toMatch(/PUBLIC_URL is not set and HOST=0\.0\.0\.0/);
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://geo.example.com' }).warnings).toEqual([]);
    expect(loadConfig({ HOST: '127.0.0.1' }).warnings).toEqual([]);
  });
});
