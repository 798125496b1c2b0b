// What a dispatch round (an attempt plus its quick retries) shows and does while it lasts, over a
// real server and real receivers: trigger/history counts each failed attempt as it happens, and a
// delete of the application or of the user stops the quick retries still to come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { until } from './helpers.js';

let server: TestService;
let api: Api;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Rounds of three attempts, retried 1-2 s and then 2-4 s after a failure; a 600 ms deadline.
  server = await startApp({ delivery: { pollMs: 25, round: { retries: 2, minDelayMs: 1_000 }, timeoutMs: 600 } });
  api = server.api;
});
afterAll(async () => {
  await server?.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

/** An application with a callback trigger to a new receiver, and a user who has just entered its place. */
async function firing(behaviour: 'hang' | 503): Promise<{ app: TestApp; user: TestUser; rx: Receiver }> {
  const rx = await new Receiver().start();
  receivers.push(rx);
  rx.plan([], behaviour);
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    // Both quick retries would have come by now (1-2 s, then 2-4 s later).
    await sleep(6_500);
    expect(rx.received).toHaveLength(atDelete);
  });

  it('sends no quick retry once the user is deleted, and the callback ends dead', async () => {
    const { app, user, rx } = await firing(503);
    await until(() => rx.received.length >= 1);
    expect((await api.post(`/1/user/delete/${user.user_id}`, { token: app.access_token })).status).toBe(200);
    const atDelete = rx.received.length;
    await sleep(6_500);
    expect(rx.received).toHaveLength(atDelete);
    // The round that was under way ends it; nothing of it is listed or kept but its outcome.
    const row = await server.app.ctx.store.firings.get(rx.received[0]!.headers['webhook-id'] as string);
    expect(row).toMatchObject({ user_id: user.user_id, status: 'dead', last_error: 'cancelled: the user was deleted', unlisted: true });
    expect(row).not.toHaveProperty('payload');
  });
});
