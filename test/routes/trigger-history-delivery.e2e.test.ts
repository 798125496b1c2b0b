// trigger/history shows where a failing callback stands: a real server with its worker threads and
// sender thread, a location/update that fires a callback trigger, and a real receiver that fails
// the first attempt and takes the second.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../delivery/helpers.js';
import { Receiver } from '../delivery/receiver.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  // One attempt per round, and a wait of 1.5-3 s before the next: long enough to be seen waiting.
  server = await startServer({ delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 3_000, capMs: 3_000 }, timeoutMs: 2_000 } });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await server?.close();
});

type Delivery = { status: string; attempts: number; last_status?: number; last_error?: string; next_attempt_at?: string; next_attempt_at_ts?: number };

it('shows attempts, the last error and the next attempt of a failing callback, then its delivery', async () => {
  const { api } = server;
  const app = await createApp(api, 'failing receiver');
  const user = await createAnonUser(api, app);
  const t = await api.post('/1/trigger/create', {
    token: app.access_token, json: { latitude: 45.5165, longitude: -122.6764, radius: 100, type: 'callback', url: receiver.url, trigger_on: 'enter' },
  });
  expect(t.status).toBe(200);
  receiver.plan([503], 200);
  const date = Math.floor(Date.now() / 1000);
  const point = { date, location: { position: { latitude: 45.5165, longitude: -122.6764, horizontal_accuracy: 5 } } };
  expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);

  const delivery = async () => {
    const h = await api.get('/1/trigger/history', { token: app.access_token, query: { trigger_id: t.body.trigger_id } });
    expect(h.body.history).toHaveLength(1);
    return h.body.history[0].delivery as Delivery;
  };
  const waiting = await until(async () => {
    const d = await delivery();
    return d.status === 'pending' && d.attempts === 1 && d.next_attempt_at ? d : undefined;
  });
  expect(waiting).toMatchObject({ last_status: 503, last_error: 'HTTP 503' });
  expect(waiting.next_attempt_at_ts).toBeGreaterThanOrEqual(date);
  expect(new Date(waiting.next_attempt_at!).getTime() / 1000).toBe(waiting.next_attempt_at_ts);
  expect(receiver.received).toHaveLength(1);

  const done = await until(async () => {
    const d = await delivery();
    return d.status === 'delivered' ? d : undefined;
  });
  expect(done).toEqual({ status: 'delivered', attempts: 2, last_status: 200, delivered_at: expect.any(String), delivered_at_ts: expect.any(Number) });
  expect(receiver.delivered()).toHaveLength(1);
  expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([expect.stringMatching(/:enter:/), receiver.received[0]!.headers['webhook-id']]);
});
