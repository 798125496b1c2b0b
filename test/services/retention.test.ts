// Retention on a real embedded store: old finished callbacks go with their attempts, pending ones
// and recent ones stay; histories go only when HISTORY_RETENTION_DAYS is set, never closer than a
// layer's rate limit; a running service sweeps on its own.
import { describe, expect, it } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { listTriggerHistory } from '../../src/services/trigger-history.js';
import { attempts, history, outbox, outboxDoc } from '../../src/delivery/outbox.js';
import type { ServiceContext } from '../../src/services/context.js';
import { sweepExpired } from '../../src/services/retention.js';
import type { DeliveryStatus, DeviceMessageDoc, LocationDoc, MessageDoc, OutboxDoc } from '../../src/store/documents.js';
import { newId } from '../../src/store/ids.js';
import { firingOf, seed, storePerTest, until } from '../delivery/helpers.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp } from '../helpers/server.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12);

let ctx: ServiceContext;
storePerTest((c) => {
  ctx = c;
});

function row(status: DeliveryStatus, updatedAt: number, over: Partial<OutboxDoc> = {}): OutboxDoc {
  const callback = { _id: `evt_${newId()}`, app_id: 'A', trigger_id: 'T', user_id: 'U', place_id: 'P', layer_id: 'L', url: 'http://127.0.0.1/cb', payload: '{}' };
  return { ...outboxDoc(callback, updatedAt), status, attempts: 1, rounds: 1, ...over };
}

async function withAttempts(rows: OutboxDoc[]) {
  await outbox(ctx).insertMany(rows);
  await attempts(ctx).insertMany(rows.map((r) => ({ _id: newId(), event_id: r._id, app_id: r.app_id, attempt: 1, at: r.updated_at, duration_ms: 3, outcome: 'delivered' as const })));
}

const ids = async (col: { find(f: object): { toArray(): Promise<Array<{ _id: string }>> } }) => (await col.find({}).toArray()).map((d) => d._id).sort();

describe('delivery retention', () => {
  it('removes delivered and dead callbacks older than DELIVERY_RETENTION_DAYS with their attempts, and nothing else', async () => {
    ctx.config.deliveryRetentionDays = 30;
    const oldDelivered = row('delivered', NOW - 31 * DAY);
    const oldDead = row('dead', NOW - 40 * DAY);
    const oldPending = row('pending', NOW - 60 * DAY);
    const oldDelivering = row('delivering', NOW - 60 * DAY);
    const recent = row('delivered', NOW - 29 * DAY);
    await withAttempts([oldDelivered, oldDead, oldPending, oldDelivering, recent]);

    const r = await sweepExpired(ctx, NOW);

    expect(r).toMatchObject({ callbacks: 2, attempts: 2 });
    expect(await ids(outbox(ctx))).toEqual([oldPending._id, oldDelivering._id, recent._id].sort());
    expect((await attempts(ctx).find({}).toArray()).map((a) => a.event_id).sort()).toEqual([oldPending._id, oldDelivering._id, recent._id].sort());
  });

  it('keeps the firing in trigger/history with its outcome after its callback row is gone', async () => {
    ctx.config.deliveryRetentionDays = 30;
    const f = await seed(ctx, { type: 'callback', url: 'http://127.0.0.1:9/cb' });
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    await outbox(ctx).updateOne({ _id: firing.event_id }, { $set: { status: 'delivered', updated_at: NOW - 31 * DAY } });
    await history(ctx).updateOne({ _id: firing.event_id }, { $set: { 'delivery.status': 'delivered', 'delivery.attempts': 1 } });

    expect((await sweepExpired(ctx, NOW)).callbacks).toBe(1);
    expect(await outbox(ctx).findOne({ _id: firing.event_id })).toBeNull();
    const listed = await listTriggerHistory(ctx, f.app._id, {}, { offset: 0, limit: 10 });
    expect(listed.history).toHaveLength(1);
    expect(listed.history[0]).toMatchObject({ event_id: firing.event_id, delivery: { status: 'delivered', attempts: 1 } });
  });

  it('keeps everything when DELIVERY_RETENTION_DAYS is 0', async () => {
    ctx.config.deliveryRetentionDays = 0;
    await withAttempts([row('delivered', NOW - 3000 * DAY)]);
    expect(await sweepExpired(ctx, NOW)).toMatchObject({ callbacks: 0, attempts: 0 });
    expect(await outbox(ctx).countDocuments({})).toBe(1);
  });

  it('removes at most chunk × maxChunks rows per sweep; the next sweep takes the rest', async () => {
    ctx.config.deliveryRetentionDays = 1;
    await withAttempts(Array.from({ length: 7 }, () => row('delivered', NOW - 2 * DAY)));
    expect((await sweepExpired(ctx, NOW, { chunk: 2, maxChunks: 2 })).callbacks).toBe(4);
    expect(await outbox(ctx).countDocuments({})).toBe(3);
    expect((await sweepExpired(ctx, NOW, { chunk: 2, maxChunks: 2 })).callbacks).toBe(3);
    expect(await outbox(ctx).countDocuments({})).toBe(0);
    expect(await attempts(ctx).countDocuments({})).toBe(0);
  });

  it('stops before its next round once its signal is aborted (a shutdown does not wait for it)', async () => {
    ctx.config.deliveryRetentionDays = 1;
    await withAttempts(Array.from({ length: 5 }, () => row('delivered', NOW - 2 * DAY)));
    const stop = new AbortController();
    stop.abort();
    expect((await sweepExpired(ctx, NOW, { chunk: 2, signal: stop.signal })).callbacks).toBe(0);
    expect(await outbox(ctx).countDocuments({})).toBe(5);
  });
});

describe('history retention', () => {
  async function dated(at: number) {
    const f = await seed(ctx, { type: 'message', text: 'hi' });
    const firing = firingOf(f, { at });
    await recordFirings(ctx.delivery, [firing]);
    const message: MessageDoc = { _id: newId(), app_id: f.app._id, user_id: f.user._id, text: 'hi', url: '', date: at };
    await ctx.store.messages.col.insertOne(message);
    const point: LocationDoc = {
      _id: newId(), app_id: f.app._id, user_id: f.user._id, uuid: newId(), date: at, latitude: 45.5, longitude: -122.6,
      horizontal_accuracy: 10, raw: null, received_at: at,
    };
    await ctx.store.collection<LocationDoc>('locations').insertOne(point);
    return { f, firing, message, point };
  }

  it('keeps trigger history, messages and location history by default', async () => {
    expect(ctx.config.historyRetentionDays).toBe(0);
    await dated(NOW - 5000 * DAY);
    expect(await sweepExpired(ctx, NOW)).toMatchObject({ history: 0, messages: 0, locations: 0 });
    expect(await history(ctx).countDocuments({})).toBe(1);
  });

  it('removes what is dated before HISTORY_RETENTION_DAYS and keeps what is newer', async () => {
    ctx.config.historyRetentionDays = 90;
    const old = await dated(NOW - 91 * DAY);
    const young = await dated(NOW - 89 * DAY);
    const r = await sweepExpired(ctx, NOW);
    expect(r).toMatchObject({ history: 1, messages: 2, locations: 1 }); // each firing's message plus the inserted one
    expect(await ids(history(ctx))).toEqual([young.firing.event_id]);
    expect(await ctx.store.collection<LocationDoc>('locations').findOne({ _id: old.point._id })).toBeNull();
    expect(await ctx.store.collection<LocationDoc>('locations').findOne({ _id: young.point._id })).not.toBeNull();
    expect(await ctx.store.messages.col.findOne({ _id: young.message._id })).not.toBeNull();
  });

  it('never removes firings within the longest layer rate limit (plus a day): a restarted engine still finds them', async () => {
    ctx.config.historyRetentionDays = 1;
    const inside = await dated(NOW - 10 * DAY);
    await ctx.store.layers.update(inside.f.app._id, inside.f.layer._id, { set: { trigger_rate_limit: 10 * 86_400 } });
    const outside = await dated(NOW - 12 * DAY);
    expect((await sweepExpired(ctx, NOW)).history).toBe(1);
    expect(await ids(history(ctx))).toEqual([inside.firing.event_id]);
    expect(await history(ctx).findOne({ _id: outside.firing.event_id })).toBeNull();
  });
});

describe('message/device payloads', () => {
  it('removes the payloads that expired, whatever the other settings, and keeps those a stream may still take', async () => {
    const col = ctx.store.collection<DeviceMessageDoc>('device_messages');
    const payload = (id: string, expiresAt: number): DeviceMessageDoc => ({ _id: id, app_id: 'A', user_id: 'U', data: { n: id }, date: expiresAt - DAY, expires_at: expiresAt });
    await col.insertMany([payload('gone', NOW - 1), payload('due', NOW), payload('waiting', NOW + 1)]);
    expect((await sweepExpired(ctx, NOW)).device_messages).toBe(2);
    expect(await ids(col)).toEqual(['waiting']);
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
      const done = row('delivered', now, mine);
      const waiting = row('pending', now, mine);
      await c.store.collection<OutboxDoc>('outbox').insertMany([done, waiting]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await c.store.collection<OutboxDoc>('outbox').countDocuments({})).toBe(2); // not old yet
      now += 8 * DAY;
      await until(async () => (await c.store.collection<OutboxDoc>('outbox').countDocuments({})) === 1, 5000, 100);
      expect(await c.store.collection<OutboxDoc>('outbox').findOne({ _id: waiting._id })).not.toBeNull();
    } finally {
      await server.close();
    }
  });
});
