// The dispatcher takes rows recordFirings hands it without polling for them, sends many at once,
// still leases every row (one send per row with two dispatchers on one outbox), and signs with the
// application's current secret.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryOptions, DeliveryRuntime } from '../../src/delivery/runtime.js';
import { recordFirings } from '../../src/delivery/firings.js';
import { history, listAttempts, outbox, outboxDoc } from '../../src/delivery/outbox.js';
import { rotateSecret } from '../../src/services/applications.js';
import type { ServiceContext } from '../../src/services/context.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until } from './helpers.js';
import { Receiver } from './receiver.js';

const FAST: DeliveryOptions = { pollMs: 25, round: { retries: 2, minDelayMs: 10 }, backoff: { baseMs: 60, capMs: 500 }, timeoutMs: 5_000 };

let dir: string;
let ctx: ServiceContext;
let receiver: Receiver;
const dispatchers: DeliveryRuntime[] = [];

beforeEach(async () => {
  dir = await tempDataDir();
  ctx = await openCtx(dir);
  receiver = await new Receiver().start();
});

afterEach(async () => {
  await stopAll();
  await receiver.stop();
  await ctx.store.close();
  await removeDir(dir);
});

/** Stops the dispatchers started so far; each waits for the sends it has in flight. */
const stopAll = async () => {
  for (const d of dispatchers.splice(0)) await d.close();
};

const start = (opts: DeliveryOptions) => {
  const d = startDelivery(ctx, opts);
  dispatchers.push(d);
  return d;
};

/** Counts the delivery loop's poll queries on the outbox. */
function countPolls() {
  const col = outbox(ctx);
  const find = col.find.bind(col);
  const counter = { polls: 0 };
  col.find = (filter, options) => {
    // A poll reads due pending rows (and due leased ones); the start-up look for orphans does not count.
    const f = filter as { status?: unknown; next_attempt_at?: { $lte?: number } };
    if (f.status === 'pending' && f.next_attempt_at?.$lte !== undefined) counter.polls++;
    return find(filter, options);
  };
  return counter;
}

describe('dispatcher hand-off', () => {
  it('sends rows recordFirings hands over without polling for them, and logs and marks every one', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const counter = countPolls();
    start({ ...FAST, pollMs: 60_000 });
    await until(() => counter.polls === 1); // the poll at start, for rows left from before
    const firings = Array.from({ length: 8 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 8, 3_000);
    expect(counter.polls).toBe(1);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
    for (const x of firings) {
      expect((await listAttempts(ctx, x.event_id)).map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([[1, 200, 'delivered']]);
      expect((await history(ctx).findOne({ _id: x.event_id }))!.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    }
  });

  it('works through a backlog of handed-over rows without a poll per free slot', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const earlier = Array.from({ length: 10 }, () => firingOf(f));
    await recordFirings(ctx.delivery, earlier); // due in the store before the dispatcher starts
    const counter = countPolls();
    // One receiver may use both slots here (its share is the subject of endpoint-share tests).
    start({ ...FAST, pollMs: 60_000, concurrency: 2, endpointConcurrency: 2 });
    await recordFirings(ctx.delivery, Array.from({ length: 30 }, () => firingOf(f)));
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 40);
    // Slots free one at a time, so at most a poll per earlier row (plus the start and a last empty
    // one), and none for the 30 handed-over rows (re-polling on every full page made it about 40).
    expect(counter.polls).toBeLessThanOrEqual(1 + 10 + 1);
    expect(receiver.received).toHaveLength(40);
  });

  it('two dispatchers on one outbox, rows handed to one while the other polls: each row is sent once', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    start({ ...FAST, pollMs: 5 });
    start(FAST); // the one recordFirings hands rows to
    const firings = Array.from({ length: 30 }, () => firingOf(f));
    for (let i = 0; i < 30; i += 5) await recordFirings(ctx.delivery, firings.slice(i, i + 5));
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 30);
    // Once both have stopped, every send they started has ended: nothing more can come.
    await stopAll();
    expect(receiver.received).toHaveLength(30);
    // One attempt per row, each the delivering one (kept on the row, so none in the stored log).
    for (const x of firings) expect((await listAttempts(ctx, x.event_id)).map((a) => [a.attempt, a.outcome])).toEqual([[1, 'delivered']]);
    expect(await ctx.store.collection('delivery_attempts').countDocuments({})).toBe(0);
  });

  it('rows it can start at once are written leased; if they are never sent they are due when the lease runs out, and sent once', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const d = start({ ...FAST, leaseMs: 400 });
    const loop = d.dispatcher!;
    // The process "dies" between writing the rows and handing them over: nothing offered.
    d.dispatcher = { wake: () => loop.wake(), deliverNow: (id) => loop.deliverNow(id), leaseNew: (rows, now) => loop.leaseNew!(rows, now), offer: () => undefined };
    const firings = Array.from({ length: 3 }, () => firingOf(f));
    const before = Date.now();
    await recordFirings(ctx.delivery, firings);
    for (const x of firings) {
      const row = (await outbox(ctx).findOne({ _id: x.event_id }))!;
      expect(row).toMatchObject({ status: 'delivering', rounds: 1, attempts: 0, lease_owner: expect.any(String) });
      expect(row.lease_until).toBeGreaterThanOrEqual(before + 400);
      expect(row.next_attempt_at).toBe(row.lease_until);
    }
    expect(receiver.received).toHaveLength(0);
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 3, 3_000);
    await stopAll();
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
    for (const x of firings) expect(await outbox(ctx).findOne({ _id: x.event_id })).toMatchObject({ status: 'delivered', rounds: 2, attempts: 1 });
  });

  it('rows leased before they were written but handed over only after a stop are released at once, not left leased', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const d = start(FAST).dispatcher!;
    const now = Date.now();
    const rows = Array.from({ length: 2 }, (_, i) => outboxDoc({
      _id: `evt_held_${i}`, app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id,
      url: receiver.url, payload: '{}',
    }, now));
    d.leaseNew!(rows, now);
    await outbox(ctx).insertMany(rows);
    await dispatchers[0]!.close();
    d.offer!(rows);
    await until(async () => (await outbox(ctx).countDocuments({ status: 'pending', lease_until: 0, rounds: 0 })) === 2);
    expect(receiver.received).toHaveLength(0);
    start(FAST);
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 2);
    expect(receiver.received).toHaveLength(2);
  });

  it('on the embedded store, rows a dead process left leased are sent at the next start, not after their lease; a live dispatcher\'s are not taken', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const now = Date.now();
    const row = (id: string, owner: string) => ({
      ...outboxDoc({ _id: id, app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id, url: receiver.url, payload: '{}' }, now),
      status: 'delivering' as const, lease_owner: owner, lease_until: now + 120_000, next_attempt_at: now + 120_000, rounds: 1,
    });
    // A dispatcher of this process holds one row (leased before it was written, not offered yet).
    const live = start({ ...FAST, pollMs: 60_000 }).dispatcher!;
    const held = outboxDoc({ _id: 'evt_live', app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id, url: receiver.url, payload: '{}' }, now);
    live.leaseNew!([held], now);
    await outbox(ctx).insertMany([row('evt_orphan', 'a-dead-process:1'), held]);
    start({ ...FAST, pollMs: 60_000 });
    await until(async () => (await outbox(ctx).countDocuments({ _id: 'evt_orphan', status: 'delivered' })) === 1, 3_000);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['evt_orphan']);
    expect(await outbox(ctx).findOne({ _id: 'evt_live' })).toMatchObject({ status: 'delivering', lease_owner: held.lease_owner });
  });

  it('rows leased for the queue that it could no longer take are due at once, not when their lease runs out', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const d = start({ ...FAST, queueLimit: 2, concurrency: 1 }).dispatcher!;
    const now = Date.now();
    const rows = (tag: string) => Array.from({ length: 2 }, (_, i) => outboxDoc({
      _id: `evt_${tag}_${i}`, app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id,
      url: receiver.url, payload: '{}',
    }, now));
    // Two batches leased side by side, as two location updates' firings are; the first fills the queue.
    const [a, b] = [rows('a'), rows('b')];
    d.leaseNew!(a, now);
    d.leaseNew!(b, now);
    expect(b.every((r) => r.status === 'delivering')).toBe(true);
    await outbox(ctx).insertMany([...a, ...b]);
    d.offer!(a);
    d.offer!(b);
    await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === 4, 3_000);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...a, ...b].map((r) => r._id).sort());
  });

  it('signs with the new secret right after a rotation, and with the replaced one too until the overlap ends', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    start(FAST);
    const first = firingOf(f);
    await recordFirings(ctx.delivery, [first]);
    await until(() => receiver.received.length === 1);
    expect(String(receiver.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);

    const rotated = await rotateSecret(ctx, f.app._id, true);
    expect(Date.parse(rotated.previous_webhook_secret_expires_at!) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    await recordFirings(ctx.delivery, [firingOf(f)]);
    await until(() => receiver.received.length === 2);
    const second = receiver.received[1]!;
    // Both secrets verify it: a receiver still on the old one keeps accepting callbacks.
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.webhook_secret).verify(second.body, second.headers)).toMatchObject({ event_id: expect.any(String) });
    expect(new Webhook(f.app.webhook_secret).verify(second.body, second.headers)).toMatchObject({ event_id: expect.any(String) });

    // A rotation made 25 hours ago: its overlap is over, the replaced secret no longer signs.
    const realNow = ctx.now;
    ctx.now = () => realNow() - 25 * 3_600_000;
    const again = await rotateSecret(ctx, f.app._id, true);
    ctx.now = realNow;
    expect(Date.parse(again.previous_webhook_secret_expires_at!)).toBeLessThan(Date.now() - 3_500_000);
    await recordFirings(ctx.delivery, [firingOf(f)]);
    await until(() => receiver.received.length === 3);
    const third = receiver.received[2]!;
    expect(String(third.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(again.webhook_secret).verify(third.body, third.headers)).toMatchObject({ event_id: expect.any(String) });
    expect(() => new Webhook(rotated.webhook_secret).verify(third.body, third.headers)).toThrow();
  });

  it('with WEBHOOK_SECRET_OVERLAP_S=0 the replaced secret stops signing at once', async () => {
    ctx.config = { ...ctx.config, webhookSecretOverlapS: 0 };
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    start(FAST);
    const rotated = await rotateSecret(ctx, f.app._id, true);
    expect(rotated.previous_webhook_secret_expires_at).toBeNull();
    await recordFirings(ctx.delivery, [firingOf(f)]);
    await until(() => receiver.received.length === 1);
    const got = receiver.received[0]!;
    expect(new Webhook(rotated.webhook_secret).verify(got.body, got.headers)).toMatchObject({ event_id: expect.any(String) });
    expect(() => new Webhook(f.app.webhook_secret).verify(got.body, got.headers)).toThrow();
  });
});

describe('dispatcher concurrency', () => {
  it('has many more than 4 callbacks in flight by default', async () => {
    // Holds every request until 24 are open at once (or gives up after 4 s and answers 503).
    const open: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      open.push(res);
      if (open.length === 24) for (const r of open) r.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const giveUp = setTimeout(() => { for (const r of open) if (!r.headersSent) r.writeHead(503).end(); }, 4_000);
    try {
      const f = await seed(ctx, { type: 'callback', url });
      start({ ...FAST, round: { retries: 0 } });
      await recordFirings(ctx.delivery, Array.from({ length: 24 }, () => firingOf(f)));
      await until(async () => (await outbox(ctx).countDocuments({ status: { $in: ['delivered', 'pending'] }, attempts: 1 })) === 24, 8_000);
      expect(await outbox(ctx).countDocuments({ status: 'delivered' })).toBe(24);
    } finally {
      clearTimeout(giveUp);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
