// What a dispatch round (an attempt plus its quick retries) shows and does while it lasts, over a
// real server and real receivers: trigger/history counts each failed attempt as it happens, and a
// delete of the application or of the user stops the quick retries still to come. A receiver takes
// one request at a time here (CALLBACK_ENDPOINT_CONCURRENCY=1): a round holds its receiver until it
// ends, so a second callback to the same receiver arriving shows that the first round is over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { Receiver, type Received } from './receiver.js';
import { until } from './helpers.js';

let server: TestService;
let api: Api;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Rounds of three attempts, retried 1-2 s and then 2-4 s after a failure; a 600 ms deadline.
  server = await startApp({ delivery: { pollMs: 25, round: { retries: 2, minDelayMs: 1_000 }, timeoutMs: 600, endpointConcurrency: 1 } });
  api = server.api;
});
afterAll(async () => {
  await server?.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

/** An application with a callback trigger to a receiver (a new one unless given), and a user who has just entered its place. */
async function firing(behaviour: 'hang' | 503, to?: Receiver): Promise<{ app: TestApp; user: TestUser; rx: Receiver }> {
  let rx = to;
  if (!rx) {
    rx = await new Receiver().start();
    receivers.push(rx);
    rx.plan([], behaviour);
  }
  const app = await createApp(api, 'rounds');
  const trigger = await api.post('/1/trigger/create', {
    token: app.access_token, json: { type: 'callback', url: rx.url, latitude: 45.52, longitude: -122.68, radius: 300 },
  });
  expect(trigger.status).toBe(200);
  const user = await createAnonUser(api, app);
  const point = { date: new Date().toISOString(), location: { position: { latitude: 45.52, longitude: -122.68, horizontal_accuracy: 10 } } };
  expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
  return { app, user, rx };
}

const eventOf = (r: Received) => r.headers['webhook-id'];

/**
 * Waits until the round of the receiver's first callback is over: another callback to the same
 * receiver is sent only then. Answers how many requests that first callback got.
 */
async function firstRoundOver(rx: Receiver): Promise<number> {
  const first = eventOf(rx.received[0]!);
  await firing(503, rx);
  await until(() => rx.received.some((r) => eventOf(r) !== first), 20_000);
  return rx.received.filter((r) => eventOf(r) === first).length;
}

describe('a dispatch round in progress', () => {
  it('shows each failed attempt in trigger/history before the round ends', async () => {
    const { app, rx } = await firing('hang');
    // The second attempt has reached the receiver: the first one timed out and was recorded.
    await until(() => rx.received.length >= 2);
    const res = await api.get('/1/trigger/history', { token: app.access_token });
    expect(res.status).toBe(200);
    expect(res.body.history).toHaveLength(1);
    expect(res.body.history[0].delivery).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringMatching(/^timeout/) });
  });

  it('sends no quick retry once the application is deleted', async () => {
    const { app, rx } = await firing(503);
    await until(() => rx.received.length >= 1);
    expect((await api.post(`/admin/app/delete/${app.application_id}`, { bearer: ADMIN_TOKEN })).status).toBe(200);
    const atDelete = rx.received.length;
    expect(await firstRoundOver(rx)).toBe(atDelete);
  });

  it('sends no quick retry once the user is deleted, and the callback ends dead', async () => {
    const { app, user, rx } = await firing(503);
    await until(() => rx.received.length >= 1);
    expect((await api.post(`/1/user/delete/${user.user_id}`, { token: app.access_token })).status).toBe(200);
    const atDelete = rx.received.length;
    expect(await firstRoundOver(rx)).toBe(atDelete);
    const outbox = server.app.ctx.store.collection<{ _id: string; user_id: string; status: string; last_error?: string }>('outbox');
    const rows = await until(async () => {
      const found = await outbox.find({ user_id: user.user_id }).toArray();
      return found[0]?.status === 'dead' ? found : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'dead', last_error: 'cancelled: the user was deleted' });
    expect(rows[0]).not.toHaveProperty('payload');
  });
});
