// CALLBACK_CONCURRENCY reaches the service's dispatcher: with 1, a slow receiver never has two
// callbacks open at once; with the default, several firings of one point are sent side by side.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { until } from './helpers.js';

const CENTRE = { latitude: 45.5, longitude: -122.6 };
const north = (metres: number) => CENTRE.latitude + metres / 111_195;
const point = (at: number, lat: number) => ({ date: at, location: { position: { latitude: lat, longitude: CENTRE.longitude, horizontal_accuracy: 10 } } });

/** Answers every request after `holdMs`, counting how many were open at once. */
function slowReceiver(holdMs: number) {
  const seen = { open: 0, maxOpen: 0, done: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    seen.open++;
    seen.maxOpen = Math.max(seen.maxOpen, seen.open);
    setTimeout(() => {
      seen.open--;
      seen.done++;
      res.end('ok');
    }, holdMs);
  });
  return {
    seen,
    start: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`))),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let server: TestService | undefined;
let receiver: ReturnType<typeof slowReceiver> | undefined;

afterEach(async () => {
  await server?.close();
  await receiver?.stop();
  server = undefined;
  receiver = undefined;
});

async function maxOpenFor(env: Record<string, string>): Promise<number> {
  receiver = slowReceiver(150);
  const url = await receiver.start();
  server = await startApp({ env });
  const api = server.api;
  const app = await createApp(api);
  const user = await createAnonUser(api, app);
  // Four callback triggers on one spot: one point inside fires all four.
  for (let i = 0; i < 4; i++) {
    const res = await api.post('/1/trigger/create', { token: app.access_token, json: { type: 'callback', url, ...CENTRE, radius: 100 } });
    expect(res.status).toBe(200);
  }
  const t0 = Math.floor(Date.now() / 1000) - 60;
  const res = await api.post('/1/location/update', { token: user.access_token, json: [point(t0, north(400)), point(t0 + 30, north(10))] });
  expect(res.body).toEqual({ response: 'ok' });
  await until(() => receiver!.seen.done === 4, 5_000);
  return receiver.seen.maxOpen;
}

describe('callback concurrency from the configuration', () => {
  it('CALLBACK_CONCURRENCY=1 sends one callback at a time', async () => {
    expect(await maxOpenFor({ CALLBACK_CONCURRENCY: '1' })).toBe(1);
  });

  it('by default the four callbacks are open together', async () => {
    expect(await maxOpenFor({})).toBe(4);
  });

  it('CALLBACK_ENDPOINT_CONCURRENCY caps one receiver below the total', async () => {
    expect(await maxOpenFor({ CALLBACK_CONCURRENCY: '8', CALLBACK_ENDPOINT_CONCURRENCY: '2' })).toBe(2);
  });
});
