// trigger/run/:id and trigger/history end to end: triggers made through trigger/create, a real
// receiver on 127.0.0.1, signatures checked with the application's webhook secret.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { openStream } from '../helpers/stream.js';
import { until } from '../delivery/helpers.js';
import { Receiver } from '../delivery/receiver.js';

let server: TestService;
let api: Api;
let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  server = await startApp({ delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 50, capMs: 200 }, timeoutMs: 2_000 } });
  api = server.api;
  app = await createApp(api, 'runner');
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await server?.close();
});

async function createTrigger(body: Record<string, unknown>) {
  const res = await api.post('/1/trigger/create', { token: app.access_token, json: { latitude: 45.5165, longitude: -122.6764, radius: 200, ...body } });
  if (res.status !== 200) throw new Error(`trigger/create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { trigger_id: string; place_id: string };
}

const run = (id: string, json: Record<string, unknown> = {}, token = app.access_token) => api.post(`/1/trigger/run/${id}`, { token, json });

describe('trigger/run/:id', () => {
  it('POSTs a signed callback now and answers with the payload it sent', async () => {
    const t = await createTrigger({ type: 'callback', url: receiver.url, place_name: 'Powells' });
    receiver.plan([], 200);
    const before = receiver.received.length;
    const res = await run(t.trigger_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: 'sent', type: 'callback', url: receiver.url, event_id: expect.stringMatching(/^run_/),
      delivery: { status: 'delivered', attempts: 1, last_status: 200 },
    });
    expect(res.body.payload).toMatchObject({
      triggered_on: 'enter', triggered_delay: '0', event_id: res.body.event_id,
      trigger: { trigger_id: t.trigger_id, type: 'callback', callback_url: receiver.url, place_id: t.place_id },
      place: { place_id: t.place_id, latitude: 45.5165, longitude: -122.6764, radius: 200 },
      user: { user_id: 'test', username: 'test' },
      layer: { layer_id: app.default_layer_id },
    });
    const got = receiver.received[before];
    expect(got.headers['webhook-id']).toBe(res.body.event_id);
    expect(new Webhook(app.webhook_secret).verify(got.body, got.headers)).toEqual(res.body.payload);
  });

  it('with user_id the payload carries that user and the firing is in trigger/history', async () => {
    const user = await createAnonUser(api, app, { name: 'Ada' });
    const t = await createTrigger({ type: 'callback', url: receiver.url });
    const res = await run(t.trigger_id, { user_id: user.user_id });
    expect(res.body.payload.user).toMatchObject({ user_id: user.user_id, is_anonymous: '1', name: 'Ada' });
    const hist = await api.get('/1/trigger/history', { token: app.access_token, query: { user_id: user.user_id } });
    expect(hist.status).toBe(200);
    expect(hist.body.history).toHaveLength(1);
    expect(hist.body.history[0]).toMatchObject({
      event_id: res.body.event_id, user_id: user.user_id, type: 'callback', triggered_on: 'enter', run: 1,
      display_date: expect.stringMatching(/^[A-Z][a-z]{2} \d{1,2}, \d{1,2}:\d\d(am|pm)$/),
      delivery: { status: 'delivered', attempts: 1 },
      trigger: { trigger_id: t.trigger_id, type: 'callback' },
      place: { place_id: t.place_id, visits: 0 },
      layer: { layer_id: app.default_layer_id, bounds: { center: expect.any(Object) } },
    });
    // The user sees it too, with their own token.
    const own = await api.get('/1/trigger/history', { token: user.access_token });
    expect(own.body.history.map((h: { event_id: string }) => h.event_id)).toEqual([res.body.event_id]);
  });

  it('a failing receiver: answered "queued" with the attempt, then delivered by the schedule', async () => {
    const t = await createTrigger({ type: 'callback', url: receiver.url });
    receiver.plan([503], 200);
    const res = await run(t.trigger_id);
    expect(res.body).toMatchObject({ result: 'queued', delivery: { status: 'pending', attempts: 1, last_status: 503 } });
    await until(() => receiver.received.filter((r) => r.headers['webhook-id'] === res.body.event_id && r.status === 200).length === 1);
  });

  it('runs a message trigger for a user: stored, streamed, and "sent" when a stream is open', async () => {
    const user = await createAnonUser(api, app);
    const t = await createTrigger({ type: 'message', text: 'Welcome to Powells' });
    const queued = await run(t.trigger_id, { user_id: user.user_id });
    expect(queued.body).toMatchObject({ result: 'queued', type: 'message', message: 'Welcome to Powells', user_id: user.user_id });
    expect(queued.body.payload.trigger).toMatchObject({ type: 'message', text: 'Welcome to Powells' });

    const { ws, frames } = await openStream(server, { authorization: `OAuth ${user.access_token}` });
    await until(() => frames.length === 1);
    const sent = await run(t.trigger_id, { user_id: user.user_id });
    expect(sent.body.result).toBe('sent');
    await until(() => frames.length === 2);
    ws.close();
    await until(async () => {
      const list = await api.get('/1/message/list', { token: user.access_token });
      return list.body.messages.length === 2 && list.body.messages.every((m: { text: string; delivered: number }) => m.text === 'Welcome to Powells' && m.delivered === 1);
    });
  });

  it('layer triggers run on the named place, or the layer\'s first place', async () => {
    const p1 = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 10, longitude: 10, radius: 50, name: 'first' } });
    expect(p1.status).toBe(200);
    const tr = await api.post('/1/trigger/create', { token: app.access_token, json: { layer_id: app.default_layer_id, type: 'callback', url: receiver.url } });
    expect(tr.status).toBe(200);
    const anyPlace = await run(tr.body.trigger_id);
    expect(anyPlace.body.payload.trigger).toMatchObject({ layer_id: app.default_layer_id });
    expect(anyPlace.body.payload.trigger.place_id).toBeUndefined();
    const named = await run(tr.body.trigger_id, { place_id: p1.body.place_id });
    expect(named.body.payload.place).toMatchObject({ place_id: p1.body.place_id, name: 'first' });
  });

  it('errors: unknown or foreign trigger 404, message trigger without user 400, user token 403', async () => {
    const other = await createApp(api, 'foreign runner');
    const foreign = await api.post('/1/trigger/create', { token: other.access_token, json: { latitude: 1, longitude: 1, radius: 10, type: 'callback', url: receiver.url } });
    const r404 = await run(foreign.body.trigger_id);
    expect(r404.status).toBe(404);
    expectErrorShape(r404.body, 404, 'not_found');
    expect((await run('nope')).body).toEqual(r404.body);

    const msg = await createTrigger({ type: 'message', text: 'hi' });
    expectErrorShape((await run(msg.trigger_id)).body, 400, 'missing_input');
    const user = await createAnonUser(api, app);
    const stranger = await createAnonUser(api, other);
    expectErrorShape((await run(msg.trigger_id, { user_id: stranger.user_id })).body, 404, 'not_found');
    expect((await run(msg.trigger_id, {}, user.access_token)).status).toBe(403);
  });
});

describe('trigger/history', () => {
  it('lists engine firings newest first, filtered and paged, with delivery status', async () => {
    const user = await createAnonUser(api, app);
    const t = await createTrigger({ type: 'callback', url: receiver.url });
    const ctx = server.app.ctx;
    const base = { app_id: app.application_id, user_id: user.user_id, trigger_id: t.trigger_id, place_id: t.place_id, layer_id: app.default_layer_id, triggered_on: 'enter' as const, delay_s: 0, received_at: Date.now() };
    const at = Date.now();
    const location = { date: at, latitude: 45.5165, longitude: -122.6764, horizontal_accuracy: 5 };
    await recordFirings(ctx.delivery, [
      { ...base, event_id: 'hist-1', at: at - 2000, location },
      { ...base, event_id: 'hist-2', at: at - 1000, location, triggered_on: 'leave' },
    ]);
    await until(async () => {
      const h = await api.get('/1/trigger/history', { token: user.access_token });
      return h.body.history.every((e: { delivery: { status: string } }) => e.delivery.status === 'delivered') && h.body.history.length === 2;
    });
    const page = await api.get('/1/trigger/history', { token: app.access_token, query: { user_id: user.user_id, limit: 1 } });
    expect(page.body.history.map((h: { event_id: string }) => h.event_id)).toEqual(['hist-2']);
    expect(page.body.paging).toEqual({ limit: 1, total: 2, next_offset: 1 });
    const byPlace = await api.get('/1/trigger/history', { token: app.access_token, query: { place_id: t.place_id } });
    expect(byPlace.body.history).toHaveLength(2);
    expectErrorShape((await api.get('/1/trigger/history', { token: app.access_token, query: { place_id: 'elsewhere' } })).body, 404, 'not_found');
    const p2 = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 1, longitude: 2, radius: 30 } });
    expect((await api.get('/1/trigger/history', { token: app.access_token, query: { place_id: p2.body.place_id } })).body.history).toHaveLength(0);
    // Another user's token does not see these.
    const someone = await createAnonUser(api, app);
    expect((await api.get('/1/trigger/history', { token: someone.access_token })).body.history).toHaveLength(0);
    expect((await api.get('/1/trigger/history', { token: someone.access_token, query: { user_id: user.user_id } })).status).toBe(404);
  });
});
