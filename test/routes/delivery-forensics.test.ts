// Delivery forensics through the API (docs/api.md "Delivery forensics"): every attempt of a
// callback listed with its time, duration, status or error class and the start of the answer; a
// callback redelivered at the application's request with the same event id and signed bytes; and
// firings that say why they went out late. A real receiver on 127.0.0.1 answers as each test plans.
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../delivery/helpers.js';
import { Receiver } from '../delivery/receiver.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let app: TestApp;
let user: TestUser;
let receiver: Receiver;
const CENTRE = { latitude: 45.5165, longitude: -122.6764 };

beforeAll(async () => {
  // One attempt per round and a short wait before the next, so a failing callback is retried soon.
  server = await startApp({ delivery: { pollMs: 20, round: { retries: 0 }, backoff: { baseMs: 60, capMs: 120 }, timeoutMs: 2_000 } });
  app = await createApp(server.api, 'forensics');
  user = await createAnonUser(server.api, app);
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await server?.close();
});

type History = { event_id: string; received_at?: string; received_at_ts?: number; date_ts: number; delivery?: Record<string, unknown>; late?: Record<string, unknown> };

/** A callback trigger at its own place, and a user who walks into it at device time `at` (ms). */
async function fire(url: string, at = Date.now(), who: TestUser = user) {
  const api = server.api;
  const latitude = CENTRE.latitude + Math.random() / 10;
  const t = await api.post('/1/trigger/create', { token: app.access_token, json: { latitude, longitude: CENTRE.longitude, radius: 100, type: 'callback', url, trigger_on: 'enter' } });
  expect(t.status).toBe(200);
  const point = { date: new Date(at).toISOString(), location: { position: { latitude, longitude: CENTRE.longitude, horizontal_accuracy: 5 } } };
  expect((await api.post('/1/location/update', { token: who.access_token, json: [point] })).status).toBe(200);
  const entry = await until(async () => {
    const h = await api.get('/1/trigger/history', { token: app.access_token, query: { trigger_id: t.body.trigger_id } });
    return (h.body.history as History[])[0];
  });
  return { triggerId: t.body.trigger_id as string, eventId: entry.event_id };
}

const history = async (triggerId: string, query: Record<string, unknown> = {}) =>
  ((await server.api.get('/1/trigger/history', { token: app.access_token, query: { trigger_id: triggerId, ...query } })).body.history as History[])[0]!;
const attempts = (eventId: string, token = app.access_token, query: Record<string, unknown> = {}) =>
  server.api.get('/1/trigger/history/attempts', { token, query: { event_id: eventId, ...query } });
const redeliver = (eventId: string, json: Record<string, unknown> = {}, token = app.access_token) =>
  server.api.post('/1/trigger/history/redeliver', { token, json: { event_id: eventId, ...json } });
const settled = (triggerId: string, status: string) => until(async () => {
  const h = await history(triggerId);
  return h.delivery?.status === status ? h : undefined;
});

describe('trigger/history/attempts', () => {
  it('lists a failed attempt and the delivering one, with status, duration, body start and delivered_at', async () => {
    receiver.plan([503], 200);
    const { triggerId, eventId } = await fire(receiver.url);
    const done = await settled(triggerId, 'delivered');
    expect(done.delivery).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200, delivered_at: expect.any(String), delivered_at_ts: expect.any(Number) });

    const res = await attempts(eventId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event_id: eventId, type: 'callback', url: receiver.url, delivery: { status: 'delivered', delivered_at_ts: done.delivery!.delivered_at_ts } });
    const [first, second] = res.body.attempts;
    expect(res.body.attempts).toHaveLength(2);
    expect(first).toMatchObject({ attempt: 1, outcome: 'retry', status_code: 503, error: 'HTTP 503', body: 'thanks' });
    expect(second).toMatchObject({ attempt: 2, outcome: 'delivered', status_code: 200, body: 'thanks' });
    for (const a of [first, second]) {
      expect(a.duration_ms).toBeGreaterThanOrEqual(0);
      expect(new Date(a.date).getTime() / 1000).toBe(a.date_ts);
    }
    expect(second.date_ts).toBeGreaterThanOrEqual(first.date_ts);
    expect(res.body.paging).toEqual({ limit: 25, total: 2 });

    // Paged: one at a time.
    const page = await attempts(eventId, app.access_token, { limit: 1 });
    expect(page.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
    expect(page.body.paging).toEqual({ next_offset: 1, limit: 1, total: 2 });
  });

  it('names the error class of an attempt that got no answer (connection refused)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { eventId } = await fire(`http://127.0.0.1:${port}/gone`);
    const first = await until(async () => (await attempts(eventId)).body.attempts[0]);
    expect(first).toMatchObject({ attempt: 1, outcome: 'retry', error_class: 'refused' });
    expect(first.status_code).toBeUndefined();
  });

  it('is a 404 for another application\'s firing and for an unknown id, and a user token sees only its own', async () => {
    receiver.plan([], 200);
    const { triggerId, eventId } = await fire(receiver.url);
    await settled(triggerId, 'delivered');
    const other = await createApp(server.api, 'other');
    expectErrorShape((await attempts(eventId, other.access_token)).body, 404, 'not_found');
    expectErrorShape((await redeliver(eventId, {}, other.access_token)).body, 404, 'not_found');
    expectErrorShape((await attempts('no:such:event')).body, 404, 'not_found');
    // The firing's own user reads it; another user of the same application gets the 404.
    expect((await attempts(eventId, user.access_token)).status).toBe(200);
    const stranger = await createAnonUser(server.api, app);
    expectErrorShape((await attempts(eventId, stranger.access_token)).body, 404, 'not_found');
    // A user token cannot redeliver.
    expect((await redeliver(eventId, {}, user.access_token)).status).toBeGreaterThanOrEqual(400);
    expect((await attempts(eventId, app.access_token, { limit: 5000 })).status).toBe(400);
  });
});

describe('trigger/history/redeliver', () => {
  it('sends a dead callback again with the same event id and bytes, signed, and records who asked', async () => {
    // 410: the receiver says the endpoint is gone, so the callback is dead at once.
    receiver.plan([410], 200);
    const { triggerId, eventId } = await fire(receiver.url);
    await settled(triggerId, 'dead');
    const res = await redeliver(eventId, { requested_by: 'support-desk' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: 'sent', event_id: eventId,
      delivery: { status: 'delivered', attempts: 2, last_status: 200, redelivery: { requested_by: 'support-desk', requested_at_ts: expect.any(Number) } },
      attempt: { attempt: 2, outcome: 'delivered', status_code: 200, redelivery: { requested_by: 'support-desk' } },
    });
    const sent = receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
    expect(sent).toHaveLength(2);
    const [original, again] = sent;
    expect(again!.body).toBe(original!.body);
    expect(new Webhook(app.webhook_secret).verify(again!.body, again!.headers)).toMatchObject({ event_id: eventId, triggered_on: 'enter' });

    const log = (await attempts(eventId)).body.attempts;
    expect(log.map((a: { outcome: string; redelivery?: unknown }) => [a.outcome, a.redelivery])).toEqual([['dead', undefined], ['delivered', { requested_by: 'support-desk' }]]);
    expect((await history(triggerId)).delivery).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('sends a delivered callback again (its receiver lost it), then refuses another at once (429)', async () => {
    receiver.plan([], 200);
    const { triggerId, eventId } = await fire(receiver.url);
    await settled(triggerId, 'delivered');
    const res = await redeliver(eventId);
    expect(res.body).toMatchObject({ result: 'sent', delivery: { status: 'delivered', attempts: 2 }, attempt: { redelivery: { requested_by: 'api' } } });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === eventId)).toHaveLength(2);
    const again = await redeliver(eventId);
    expectErrorShape(again.body, 429, 'too_many_requests');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === eventId)).toHaveLength(2);
  });

  it('a redelivery that fails stays on the retry schedule, and a second one waits for it (409)', async () => {
    receiver.plan([410, 503], 200);
    const { triggerId, eventId } = await fire(receiver.url);
    await settled(triggerId, 'dead');
    // The receiver still fails: the callback is pending again, one redelivery at a time.
    receiver.plan([503, 503, 503, 503], 200);
    const res = await redeliver(eventId);
    expect(res.body).toMatchObject({ result: 'queued', delivery: { status: 'pending' }, attempt: { attempt: 2, outcome: 'retry', status_code: 503 } });
    const second = await redeliver(eventId);
    expect([409, 429]).toContain(second.status);
    if (second.status === 409) expectErrorShape(second.body, 409, 'redelivery_pending');
    await settled(triggerId, 'delivered');
    const log = (await attempts(eventId)).body.attempts as Array<{ redelivery?: { requested_by: string } }>;
    expect(log.slice(1).every((a) => a.redelivery?.requested_by === 'api')).toBe(true);
  });

  it('refuses a firing that sent nothing over HTTP', async () => {
    const t = await server.api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 10, longitude: 10, radius: 100, type: 'message', text: 'hi', trigger_on: 'enter' },
    });
    const point = { date: new Date().toISOString(), location: { position: { latitude: 10, longitude: 10, horizontal_accuracy: 5 } } };
    await server.api.post('/1/location/update', { token: user.access_token, json: [point] });
    const entry = await until(async () => (await history(t.body.trigger_id as string)) ?? undefined);
    expectErrorShape((await redeliver(entry.event_id)).body, 400, 'cannot_redeliver');
    expect((await attempts(entry.event_id)).body).toMatchObject({ type: 'message', attempts: [], paging: { total: 0 } });
  });
});

describe('received_at and late', () => {
  it('a point that reached the service late: received_at next to the date, and late.kind point_late', async () => {
    receiver.plan([], 200);
    // A user of its own: a point older than a user's last one is kept but moves no machine.
    const phone = await createAnonUser(server.api, app);
    const sent = Date.now() - 10 * 60_000;
    const { triggerId } = await fire(receiver.url, sent, phone);
    const h = await settled(triggerId, 'delivered');
    expect(h.date_ts).toBe(Math.floor(sent / 1000));
    expect(h.received_at_ts! - h.date_ts).toBeGreaterThanOrEqual(599);
    expect(new Date(h.received_at!).getTime() / 1000).toBe(h.received_at_ts);
    expect(h.late).toMatchObject({ kind: 'point_late', failed_attempts: 0 });
    expect(h.late!.arrival_s as number).toBeGreaterThanOrEqual(600);
    expect(h.late!.late_s as number).toBeGreaterThanOrEqual(h.late!.arrival_s as number);
  });

  it('a callback whose first attempts failed: late.kind attempts_failed (with late_after)', async () => {
    // A receiver of its own: no other test's callback takes one of its failures.
    const own = await new Receiver().start();
    own.plan([503, 503], 200);
    const { triggerId } = await fire(own.url);
    const h = await settled(triggerId, 'delivered');
    await own.stop();
    // Within the default minute it is not late; with a threshold of 0 s it says why it was.
    expect(h.late).toBeUndefined();
    const strict = await history(triggerId, { late_after: 0 });
    expect(strict.late).toMatchObject({ kind: 'attempts_failed', failed_attempts: 2 });
    expect(strict.late!.delivery_s as number).toBeGreaterThan(strict.late!.arrival_s as number);
  });

  it('a firing on time has received_at and no late', async () => {
    receiver.plan([], 200);
    const { triggerId } = await fire(receiver.url);
    const h = await settled(triggerId, 'delivered');
    expect(h.received_at_ts).toBeGreaterThanOrEqual(h.date_ts);
    expect(h.late).toBeUndefined();
  });
});
