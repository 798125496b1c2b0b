// Callbacks already queued when their trigger changes, over a real server and real HTTP receivers.
// A retry goes to the trigger's current URL (as webhook endpoints do elsewhere: the fix for a wrong
// receiver URL is trigger/update); deleting a trigger, or its place, stops its callbacks (dead,
// "cancelled", no payload, and trigger/history says so), as does making it a message trigger; a
// callback waiting out its backoff is due at once at the new URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOptions } from '../../src/delivery/runtime.js';
import type { FiringRecord } from '../../src/store/firings.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { until } from './helpers.js';

const SPOT = { latitude: 45.52, longitude: -122.68 };

/** What the tests of one server share: the server, its API, and the helpers bound to them. */
function harness(delivery: DeliveryOptions) {
  const h = { server: undefined as unknown as TestService, api: undefined as unknown as Api };
  beforeAll(async () => {
    h.server = await startApp({ delivery });
    h.api = h.server.api;
  });
  afterAll(async () => {
    await h.server?.close();
  });
  return {
    h,
    /** One stored firing whole (its payload too). */
    stored: (eventId: string) => h.server.app.ctx.store.firings.get(eventId),
    /** The stored firings of the trigger (trigger/history's, with their delivery state; no payloads). */
    rowsOf: (app: TestApp, triggerId: string) => h.server.app.ctx.store.firings.history({ app_id: app.application_id, trigger_id: triggerId }, 0, 100),
    /** A callback trigger on a new place at SPOT, or on a layer; its id. */
    async callbackTrigger(app: TestApp, url: string, on: { layer_id?: string } = {}): Promise<string> {
      const where = on.layer_id ? { layer_id: on.layer_id } : { ...SPOT, radius: 300 };
      const res = await h.api.post('/1/trigger/create', { token: app.access_token, json: { type: 'callback', url, trigger_on: 'enter', ...where } });
      expect(res.status).toBe(200);
      return res.body.trigger_id as string;
    },
    /** A new user of the application (subscribed to `layers` too) goes to SPOT: every trigger there fires once. */
    async enter(app: TestApp, layers: string[] = []) {
      const user = await createAnonUser(h.api, app);
      for (const id of layers) {
        expect((await h.api.post(`/1/layer/subscribe/${id}`, { token: app.access_token, json: { user_id: user.user_id } })).status).toBe(200);
      }
      const point = { date: new Date().toISOString(), location: { position: { ...SPOT, horizontal_accuracy: 10 } } };
      expect((await h.api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
    },
    async historyOf(app: TestApp, eventId: string) {
      const res = await h.api.get('/1/trigger/history', { token: app.access_token });
      expect(res.status).toBe(200);
      return (res.body.history as Array<{ event_id: string; delivery: { status: string; last_error?: string } }>).find((e) => e.event_id === eventId);
    },
  };
}

/** The requests a receiver got about one trigger's firings. */
const about = (rx: Receiver, triggerId: string) => rx.received.filter((r) => JSON.parse(r.body).trigger.trigger_id === triggerId);

/** Every row failed at least once and waits for its next round: none is being sent right now. */
const waiting = (rows: FiringRecord[], n: number) => rows.length === n && rows.every((r) => r.status === 'pending' && r.attempts >= 1);

const failing = new Receiver();
const working = new Receiver();
beforeAll(async () => {
  await Promise.all([failing.start(), working.start()]);
  failing.plan([], 500);
  working.plan([], 200);
});
afterAll(async () => {
  await Promise.all([failing.stop(), working.stop()]);
});

describe('queued callbacks between rounds', () => {
  // One attempt per round, rounds 1-2 s apart: a change lands while every row waits for its next round.
  const t = harness({ pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 2_000, capMs: 2_000 }, timeoutMs: 2_000 });

  it('trigger/update: the next attempt goes to the new URL, and none more to the old one', async () => {
    const app = await createApp(t.h.api, 'new url');
    const trigger = await t.callbackTrigger(app, failing.url);
    await t.enter(app);
    const [row] = await until(async () => {
      const rows = await t.rowsOf(app, trigger);
      return waiting(rows, 1) && rows;
    });
    const toOld = about(failing, trigger).length;

    const res = await t.h.api.post(`/1/trigger/update/${trigger}`, { token: app.access_token, json: { url: working.url } });
    expect(res.status).toBe(200);

    const delivered = await until(async () => {
      const r = await t.h.server.app.ctx.store.firings.get(row!.event_id);
      return r?.status === 'delivered' && r;
    });
    expect(about(working, trigger).map((r) => r.headers['webhook-id'])).toEqual([row!.event_id]);
    expect(about(failing, trigger)).toHaveLength(toOld);
    expect(delivered.url).toBe(working.url);
    expect((await t.historyOf(app, row!.event_id))?.delivery.status).toBe('delivered');
  });

  it('trigger/delete stops the callbacks of a place trigger and of a layer trigger; the others go on', async () => {
    const app = await createApp(t.h.api, 'deleted triggers');
    const deleted = await t.callbackTrigger(app, failing.url);
    const kept = await t.callbackTrigger(app, failing.url);
    // On the layer: it fires once for each of the two places at SPOT.
    const onLayer = await t.callbackTrigger(app, failing.url, { layer_id: app.default_layer_id });
    await t.enter(app);
    await until(async () => waiting([...(await t.rowsOf(app, deleted)), ...(await t.rowsOf(app, kept)), ...(await t.rowsOf(app, onLayer))], 4));
    const [toDeleted, toKept, toLayer] = [about(failing, deleted).length, about(failing, kept).length, about(failing, onLayer).length];

    for (const id of [deleted, onLayer]) expect((await t.h.api.post(`/1/trigger/delete/${id}`, { token: app.access_token })).status).toBe(200);
    // Ended by the delete itself, or (a row the dispatcher had just leased) by its round's own check.
    await until(async () => [...(await t.rowsOf(app, deleted)), ...(await t.rowsOf(app, onLayer))].every((r) => r.status === 'dead'));

    // Two more rounds of the kept trigger's callback: the deleted ones would have had theirs too.
    await until(() => about(failing, kept).length >= toKept + 2);
    expect(about(failing, deleted)).toHaveLength(toDeleted);
    expect(about(failing, onLayer)).toHaveLength(toLayer);
    const cancelled = [...(await t.rowsOf(app, deleted)), ...(await t.rowsOf(app, onLayer))];
    expect(cancelled).toHaveLength(3);
    for (const row of cancelled) {
      expect(row).toMatchObject({ status: 'dead', last_error: expect.stringMatching(/^cancelled: the trigger was deleted/) });
      expect(await t.stored(row!.event_id)).not.toHaveProperty('payload');
      expect((await t.historyOf(app, row.event_id))?.delivery).toMatchObject({ status: 'dead', last_error: expect.stringMatching(/trigger was deleted/) });
    }
    // Still retried: between rounds or in one, with its payload.
    const [still] = await t.rowsOf(app, kept);
    expect(await t.stored(still!.event_id)).toMatchObject({ status: expect.stringMatching(/^(pending|delivering)$/), payload: expect.any(String) });
  });

  it('place/delete stops the callbacks of the triggers it takes with it', async () => {
    const app = await createApp(t.h.api, 'deleted place');
    const res = await t.h.api.post('/1/trigger/create', {
      token: app.access_token, json: { type: 'callback', url: failing.url, trigger_on: 'enter', ...SPOT, radius: 300 },
    });
    const [goes, placeId] = [res.body.trigger_id as string, res.body.place_id as string];
    const kept = await t.callbackTrigger(app, failing.url);
    await t.enter(app);
    await until(async () => waiting([...(await t.rowsOf(app, goes)), ...(await t.rowsOf(app, kept))], 2));
    const [toGone, toKept] = [about(failing, goes).length, about(failing, kept).length];

    expect((await t.h.api.post(`/1/place/delete/${placeId}`, { token: app.access_token })).status).toBe(200);
    await until(async () => (await t.rowsOf(app, goes)).every((r) => r.status === 'dead'));

    await until(() => about(failing, kept).length >= toKept + 2);
    expect(about(failing, goes)).toHaveLength(toGone);
    const [row] = await t.rowsOf(app, goes);
    expect(row).toMatchObject({ status: 'dead', last_error: expect.stringMatching(/^cancelled: the trigger was deleted/) });
    expect(await t.stored(row!.event_id)).not.toHaveProperty('payload');
    expect((await t.historyOf(app, row!.event_id))?.delivery.status).toBe('dead');
  });

  it('layer/delete stops the callbacks of the triggers on the layer and on its places', async () => {
    const app = await createApp(t.h.api, 'deleted layer');
    const layer = (await t.h.api.post('/1/layer/create', { token: app.access_token, json: { name: 'goes' } })).body.layer_id as string;
    const onLayer = await t.callbackTrigger(app, failing.url, { layer_id: layer });
    const res = await t.h.api.post('/1/trigger/create', {
      token: app.access_token, json: { type: 'callback', url: failing.url, trigger_on: 'enter', ...SPOT, radius: 300, place_layer_id: layer },
    });
    expect(res.status).toBe(200);
    const onPlace = res.body.trigger_id as string;
    const kept = await t.callbackTrigger(app, failing.url);
    await t.enter(app, [layer]);
    await until(async () => waiting([...(await t.rowsOf(app, onLayer)), ...(await t.rowsOf(app, onPlace)), ...(await t.rowsOf(app, kept))], 3));
    const [toLayer, toPlace, toKept] = [about(failing, onLayer).length, about(failing, onPlace).length, about(failing, kept).length];

    expect((await t.h.api.post(`/1/layer/delete/${layer}`, { token: app.access_token })).status).toBe(200);
    await until(async () => [...(await t.rowsOf(app, onLayer)), ...(await t.rowsOf(app, onPlace))].every((r) => r.status === 'dead'));
    const cancelled = [...(await t.rowsOf(app, onLayer)), ...(await t.rowsOf(app, onPlace))];
    expect(cancelled).toHaveLength(2);

    await until(() => about(failing, kept).length >= toKept + 2);
    expect(about(failing, onLayer)).toHaveLength(toLayer);
    expect(about(failing, onPlace)).toHaveLength(toPlace);
    for (const row of cancelled) {
      expect(row).toMatchObject({ last_error: expect.stringMatching(/^cancelled: the trigger was deleted/) });
      expect(await t.stored(row!.event_id)).not.toHaveProperty('payload');
      expect((await t.historyOf(app, row.event_id))?.delivery.status).toBe('dead');
    }
  });

  it('trigger/update to a message trigger cancels its queued callbacks', async () => {
    const app = await createApp(t.h.api, 'no longer a callback');
    const trigger = await t.callbackTrigger(app, failing.url);
    await t.enter(app);
    await until(async () => waiting(await t.rowsOf(app, trigger), 1));

    const res = await t.h.api.post(`/1/trigger/update/${trigger}`, { token: app.access_token, json: { type: 'message', text: 'Hello' } });
    expect(res.status).toBe(200);

    const [row] = await t.rowsOf(app, trigger);
    expect(row).toMatchObject({ status: 'dead', last_error: expect.stringMatching(/^cancelled: the trigger no longer sends callbacks/) });
    expect(await t.stored(row!.event_id)).not.toHaveProperty('payload');
    expect((await t.historyOf(app, row!.event_id))?.delivery.status).toBe('dead');
  });
});

describe('a callback in the middle of its round', () => {
  // Quick retries within a round: the row stays leased (in this process's memory) between them.
  const t = harness({ pollMs: 25, round: { retries: 2, minDelayMs: 20 }, backoff: { baseMs: 60_000, capMs: 60_000 }, timeoutMs: 1_000 });
  const hanging = new Receiver();
  beforeAll(() => hanging.start());
  afterAll(() => hanging.stop());

  it('trigger/update while an attempt hangs: the quick retry after it goes to the new URL', async () => {
    hanging.plan(['hang'], 500);
    const app = await createApp(t.h.api, 'new url mid-round');
    const trigger = await t.callbackTrigger(app, hanging.url);
    await t.enter(app);
    await until(() => about(hanging, trigger).length === 1);

    expect((await t.h.api.post(`/1/trigger/update/${trigger}`, { token: app.access_token, json: { url: working.url } })).status).toBe(200);

    await until(async () => (await t.rowsOf(app, trigger))[0]?.status === 'delivered');
    expect(about(hanging, trigger)).toHaveLength(1);
    expect(about(working, trigger)).toHaveLength(1);
  });

  it('trigger/delete while an attempt hangs: no quick retry follows, and the row ends dead without its payload', async () => {
    hanging.plan(['hang'], 500);
    const app = await createApp(t.h.api, 'deleted mid-round');
    const trigger = await t.callbackTrigger(app, hanging.url);
    await t.enter(app);
    await until(() => about(hanging, trigger).length === 1);

    expect((await t.h.api.post(`/1/trigger/delete/${trigger}`, { token: app.access_token })).status).toBe(200);

    const [row] = await until(async () => {
      const rows = await t.rowsOf(app, trigger);
      return rows[0]?.status === 'dead' && rows;
    });
    expect(row).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/^cancelled: the trigger was deleted/) });
    expect(await t.stored(row!.event_id)).not.toHaveProperty('payload');
    expect(about(hanging, trigger)).toHaveLength(1);
    expect((await t.historyOf(app, row!.event_id))?.delivery.status).toBe('dead');
  });
});

describe('a callback waiting out its backoff', () => {
  const t = harness({ pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 60_000, capMs: 60_000 }, timeoutMs: 1_000 });

  it('trigger/update: due at once at the new URL, not after the backoff the broken one earned', async () => {
    const app = await createApp(t.h.api, 'fixed url');
    const trigger = await t.callbackTrigger(app, failing.url);
    await t.enter(app);
    const [row] = await until(async () => {
      const rows = await t.rowsOf(app, trigger);
      return waiting(rows, 1) && rows;
    });
    expect(row!.next_attempt_at! - Date.now()).toBeGreaterThan(30_000);

    expect((await t.h.api.post(`/1/trigger/update/${trigger}`, { token: app.access_token, json: { url: working.url } })).status).toBe(200);

    await until(async () => (await t.rowsOf(app, trigger))[0]?.status === 'delivered', 10_000);
    expect(about(working, trigger).map((r) => r.headers['webhook-id'])).toEqual([row!.event_id]);
  });
});
