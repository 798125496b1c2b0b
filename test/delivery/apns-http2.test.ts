// APNs only speaks HTTP/2. msw works at the fetch level and cannot show that the request really
// goes out as HTTP/2, so this test runs a local h2-only TLS server (no HTTP/1 fallback) and sends
// through the provider's own dispatcher.
import http2 from 'node:http2';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApnsProvider } from '../../src/delivery/push/apns.js';

// A throwaway self-signed certificate for localhost / 127.0.0.1, valid until 2126.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg48w4FPgJY+NmgQZ6
4heEf5Wq8WmrdrAKCQp8wsO8bl6hRANCAARQU0IP1runEJD3vBixal/Fa3lIbaJo
N9CwHLB7cnogNjTOPv1Bw88fDxCnNWAy4efNrN32KTGPukDClX3ktP7H
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUPjvs04EXNAyIMfOYkUPnB5t7BuswCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMTE2MjcxMloYDzIxMjYxMDI4
MTYyNzEyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARQU0IP1runEJD3vBixal/Fa3lIbaJoN9CwHLB7cnogNjTOPv1Bw88f
DxCnNWAy4efNrN32KTGPukDClX3ktP7Ho28wbTAdBgNVHQ4EFgQUFJn/u+ysdo4p
vfiOzUFEFcadguMwHwYDVR0jBBgwFoAUFJn/u+ysdo4pvfiOzUFEFcadguMwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhAMoqKLU9KBSO7NOy0k1Y248ZP4Epq1raGqckNrt0deu6AiB1
gTkl6XC9FlcP3XNeV5la/UUxZiCkejBdbtmAEW+0kA==
-----END CERTIFICATE-----`;

const seen: Array<{ path: string; topic: string; auth: string; body: string; httpVersion: string }> = [];
let server: http2.Http2SecureServer;
let origin: string;

beforeAll(async () => {
  server = http2.createSecureServer({ key: KEY, cert: CERT, allowHTTP1: false }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ path: req.url, topic: String(req.headers['apns-topic']), auth: String(req.headers.authorization), body, httpVersion: req.httpVersion });
      if (req.url.includes('/3/device/dead')) {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reason: 'Unregistered', timestamp: Date.now() }));
      } else {
        res.writeHead(200, { 'apns-id': '6c4ce46e-4ad2-4a40-a0e0-8a5e3b1f4c11' });
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

it('sends over HTTP/2 and reads APNs answers', async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p = new ApnsProvider({ key: privateKey, keyId: 'K', teamId: 'T', topic: 'com.example.app', production: true, origin, ca: CERT });
  expect(await p.send('a'.repeat(64), { message_id: 'm1', text: 'hello' })).toEqual({ ok: true });
  expect(await p.send(`dead${'a'.repeat(60)}`, { message_id: 'm2', text: 'hello' })).toMatchObject({ ok: false, unregistered: true, error: 'APNs 410 Unregistered' });
  await p.close();
  expect(seen.map((s) => s.httpVersion)).toEqual(['2.0', '2.0']);
  expect(seen[0]).toMatchObject({ path: `/3/device/${'a'.repeat(64)}`, topic: 'com.example.app', auth: expect.stringMatching(/^bearer ey/) });
  expect(JSON.parse(seen[0].body)).toEqual({ aps: { alert: { body: 'hello' }, sound: 'default' }, message_id: 'm1' });
});
