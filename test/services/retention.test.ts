// Retention on a real embedded store: old finished callbacks lose their attempt log (and a dead
// one the payload it kept), callbacks still to be sent and recent ones keep everything; histories
// go only when HISTORY_RETENTION_DAYS is set, never closer than a layer's rate limit; a running
// service sweeps on its own.
import { describe, expect, it } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { listTriggerHistory } from '../../src/services/trigger-history.js';
import type { ServiceContext } from '../../src/services/context.js';
import { sweepExpired } from '../../src/services/retention.js';
import type { DeviceMessageDoc, MessageDoc, PointRow } from '../../src/store/documents.js';
import type { AttemptRecord, FiringRepo } from '../../src/store/firings.js';
import { newId } from '../../src/store/ids.js';
import { callbackFiring } from '../delivery/firing-rows.js';
import { firingOf, seed, storePerTest, until } from '../delivery/helpers.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp } from '../helpers/server.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12);

let ctx: ServiceContext;
storePerTest((c) => {
  ctx = c;
});

type Kind = 'delivered' | 'dead' | 'pending' | 'delivering';

/**
 * A callback whose last round ended at `at` as `kind` (pending: waiting for a later round;
 * delivering: leased, a round under way), with one attempt in its log.
 */
async function callbackAt(firings: FiringRepo, kind: Kind, at: number, over: { app_id?: string; user_id?: string; trigger_id?: string } = {}): Promise<string> {
  const id = `evt_${newId()}`;
  const fields = { event_id: id, app_id: 'A', trigger_id: 'T', user_id: 'U', place_id: 'P', layer_id: 'L', url: 'http://127.0.0.1/cb', payload: '{}', ...over };
  // Due far ahead, so that no running loop takes it meanwhile.
  await firings.insert([callbackFiring(fields, at, { next_attempt_at: at + 1000 * DAY })]);
  const c = (await firings.leaseOne(id, 'o', at + 60_000, at))!;
  c.attempts = 1;
  const a: AttemptRecord = { event_id: id, attempt: 1, app_id: fields.app_id, at, duration_ms: 3, status_code: kind === 'delivered' ? 200 : 500, outcome: kind === 'delivered' ? 'delivered' : kind === 'dead' ? 'dead' : 'retry' };
  if (kind === 'delivering') await firings.attempted(c, a);
  else if (kind === 'delivered') await firings.finish(c, { status: 'delivered', at, durationMs: 3 }, at, a);
  else if (kind === 'dead') await firings.finish(c, { status: 'dead', lastError: 'HTTP 500' }, at, a);
  else await firings.finish(c, { status: 'pending', nextAttemptAt: at + 1000 * DAY, lastError: 'HTTP 500' }, at, a);
  return id;
}


describe('delivery retention', () => {
  it('removes the attempt log of delivered and dead callbacks older than DELIVERY_RETENTION_DAYS, and a dead one\'s payload, and nothing else', async () => {
    ctx.config.deliveryRetentionDays = 30;
    const f = ctx.store.firings;
    const oldDelivered = await callbackAt(f, 'delivered', NOW - 31 * DAY);
    const oldDead = await callbackAt(f, 'dead', NOW - 40 * DAY);
    const oldPending = await callbackAt(f, 'pending', NOW - 60 * DAY);
    const oldDelivering = await callbackAt(f, 'delivering', NOW - 60 * DAY);
    const recent = await callbackAt(f, 'delivered', NOW - 29 * DAY);
    const recentDead = await callbackAt(f, 'dead', NOW - 29 * DAY);

    expect(await sweepExpired(ctx, NOW)).toMatchObject({ callbacks: 2, attempts: 2 });

    for (const id of [oldDelivered, oldDead]) expect(await ctx.store.attempts.list(id)).toEqual([]);
    for (const id of [oldPending, oldDelivering, recent, recentDead]) expect(await ctx.store.attempts.list(id)).toHaveLength(1);
    expect(await f.get(oldDead)).not.toHaveProperty('payload');
    expect(await f.get(recentDead)).toMatchObject({ payload: '{}' });
    // A delivered callback keeps its payload for a redelivery as long as its log.
    expect(await f.get(oldDelivered)).not.toHaveProperty('payload');
    expect(await f.get(recent)).toMatchObject({ payload: '{}' });
    expect(await f.get(oldPending)).toMatchObject({ payload: '{}' });
    // The firings themselves are history: they stay.
    for (const id of [oldDelivered, oldDead, oldPending, oldDelivering, recent, recentDead]) expect(await f.get(id)).not.toBeNull();
  });

  it('keeps the firing in trigger/history with its outcome after its log is gone', async () => {
    ctx.config.deliveryRetentionDays = 30;
    const fx = await seed(ctx, { type: 'callback', url: 'http://127.0.0.1:9/cb' });
    const firing = firingOf(fx);
    await recordFirings(ctx.delivery, [firing]);
    const c = (await ctx.store.firings.leaseOne(firing.event_id, 'o', NOW, NOW - 31 * DAY))!;
    c.attempts = 1;
    await ctx.store.firings.finish(c, { status: 'delivered', at: NOW - 31 * DAY, durationMs: 3 }, NOW - 31 * DAY,
      { event_id: firing.event_id, attempt: 1, app_id: fx.app._id, at: NOW - 31 * DAY, duration_ms: 3, status_code: 200, outcome: 'delivered' });

    expect((await sweepExpired(ctx, NOW)).callbacks).toBe(1);
    expect(await ctx.store.attempts.list(firing.event_id)).toEqual([]);
    const listed = await listTriggerHistory(ctx, fx.app._id, {}, { offset: 0, limit: 10 });
    expect(listed.history).toHaveLength(1);
    expect(listed.history[0]).toMatchObject({ event_id: firing.event_id, delivery: { status: 'delivered', attempts: 1 } });
  });

  it('keeps everything when DELIVERY_RETENTION_DAYS is 0', async () => {
    ctx.config.deliveryRetentionDays = 0;
    const id = await callbackAt(ctx.store.firings, 'dead', NOW - 3000 * DAY);
    expect(await sweepExpired(ctx, NOW)).toMatchObject({ callbacks: 0, attempts: 0 });
    expect(await ctx.store.attempts.list(id)).toHaveLength(1);
    expect(await ctx.store.firings.get(id)).toMatchObject({ payload: '{}' });
  });

  it('removes at most about chunk × maxChunks per sweep; the next sweep takes the rest', async () => {
    ctx.config.deliveryRetentionDays = 1;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await callbackAt(ctx.store.firings, 'delivered', NOW - 2 * DAY));
    const left = async () => (await Promise.all(ids.map((id) => ctx.store.attempts.list(id)))).flat().length;
    expect((await sweepExpired(ctx, NOW, { chunk: 2, maxChunks: 2 })).attempts).toBe(4);
    expect(await left()).toBe(3);
    expect((await sweepExpired(ctx, NOW, { chunk: 2, maxChunks: 2 })).attempts).toBe(3);
    expect(await left()).toBe(0);
  });

  it('stops before its next round once its signal is aborted (a shutdown does not wait for it)', async () => {
    ctx.config.deliveryRetentionDays = 1;
    const id = await callbackAt(ctx.store.firings, 'delivered', NOW - 2 * DAY);
    const stop = new AbortController();
    stop.abort();
    expect((await sweepExpired(ctx, NOW, { chunk: 2, signal: stop.signal })).callbacks).toBe(0);
    expect(await ctx.store.attempts.list(id)).toHaveLength(1);
  });
});

describe('history retention', () => {
  async function dated(at: number) {
    const f = await seed(ctx, { type: 'message', text: 'hi' });
    const firing = firingOf(f, { at });
    await recordFirings(ctx.delivery, [firing]);
    const message: MessageDoc = { _id: newId(), app_id: f.app._id, user_id: f.user._id, text: 'hi', url: '', date: at };
    await ctx.store.messages.insert(message);
    const point: PointRow = {
      app_id: f.app._id, user_id: f.user._id, uuid: newId(), own_uuid: false, date: at, latitude: 45.5, longitude: -122.6,
      horizontal_accuracy: 10, speed: null, altitude: null, heading: null, vertical_accuracy: null, raw: null, client: null, received_at: at,
    };
    await ctx.store.locations.add([point]);
    return { f, firing, message, point };
  }

  it('keeps trigger history, messages and location history by default', async () => {
    expect(ctx.config.historyRetentionDays).toBe(0);
    const old = await dated(NOW - 5000 * DAY);
    expect(await sweepExpired(ctx, NOW)).toMatchObject({ history: 0, messages: 0, locations: 0 });
    expect(await ctx.store.firings.get(old.firing.event_id)).not.toBeNull();
  });

  it('removes what is dated before HISTORY_RETENTION_DAYS and keeps what is newer', async () => {
    ctx.config.historyRetentionDays = 90;
    const old = await dated(NOW - 91 * DAY);
    const young = await dated(NOW - 89 * DAY);
    const r = await sweepExpired(ctx, NOW);
    expect(r).toMatchObject({ history: 1, messages: 2, locations: 1 }); // each firing's message plus the inserted one
    expect(await ctx.store.firings.get(old.firing.event_id)).toBeNull();
    expect(await ctx.store.firings.get(young.firing.event_id)).not.toBeNull();
    const stored = async (p: PointRow) => (await ctx.store.locations.newest(p.app_id, p.user_id, {}, 10)).map((d) => d.uuid);
    expect(await stored(old.point)).toEqual([]);
    expect(await stored(young.point)).toEqual([young.point.uuid]);
    expect(await ctx.store.messages.get(young.f.app._id, young.message._id)).not.toBeNull();
  });

  it('never removes firings within the longest layer rate limit (plus a day): a restarted engine still finds them', async () => {
    ctx.config.historyRetentionDays = 1;
    const inside = await dated(NOW - 10 * DAY);
    await ctx.store.layers.update(inside.f.app._id, inside.f.layer._id, { set: { trigger_rate_limit: 10 * 86_400 } });
    const outside = await dated(NOW - 12 * DAY);
    expect((await sweepExpired(ctx, NOW)).history).toBe(1);
    expect(await ctx.store.firings.get(inside.firing.event_id)).not.toBeNull();
    expect(await ctx.store.firings.get(outside.firing.event_id)).toBeNull();
  });
});

describe('message/device payloads', () => {
  it('removes the payloads that expired, whatever the other settings, and keeps those a stream may still take', async () => {
    const payload = (id: string, expiresAt: number): DeviceMessageDoc => ({ _id: id, app_id: 'A', user_id: 'U', data: { n: id }, date: expiresAt - DAY, expires_at: expiresAt });
    for (const p of [payload('gone', NOW - 1), payload('due', NOW), payload('waiting', NOW + 1)]) await ctx.store.deviceMessages.insert(p);
    expect((await sweepExpired(ctx, NOW)).device_messages).toBe(2);
    expect((await ctx.store.deviceMessages.waiting('A', 'U', NOW - 2 * DAY)).map((p) => p._id)).toEqual(['waiting']);
  });
});

describe('a running service', () => {
  it('sweeps on its own every RETENTION_SWEEP_S', async () => {
    let now = Date.now();
    const server = await startApp({ env: { RETENTION_SWEEP_S: '1', DELIVERY_RETENTION_DAYS: '7', ACCESS_TOKEN_TTL: '0' }, now: () => now });
    try {
      const api = server.api;
      const app = await createApp(api);
      // A real user and trigger: the dispatcher ends a row whose user or trigger is gone (dead) instead of keeping it pending.
      const user = await createAnonUser(api, app);
      const trigger = await api.post('/1/trigger/create', {
        token: app.access_token, json: { type: 'callback', url: 'http://127.0.0.1/cb', latitude: 45.52, longitude: -122.68, radius: 100 },
      });
      expect(trigger.status).toBe(200);
      const c = server.app.ctx;
      const mine = { app_id: app.application_id, user_id: user.user_id, trigger_id: trigger.body.trigger_id as string };
      const done = await callbackAt(c.store.firings, 'dead', now, mine);
      const waiting = await callbackAt(c.store.firings, 'pending', now, mine);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await c.store.attempts.list(done)).toHaveLength(1); // not old yet
      now += 8 * DAY;
      await until(async () => (await c.store.attempts.list(done)).length === 0, 5000, 100);
      expect(await c.store.firings.get(done)).not.toHaveProperty('payload');
      expect(await c.store.attempts.list(waiting)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
