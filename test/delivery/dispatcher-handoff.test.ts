// New callbacks reach the dispatcher one way: recordFirings stores them and signals it, and it
// reads the store from where it last stopped (no timed poll needed, no backlog read again per
// signal). It still leases every callback (one send each with two dispatchers on one outbox),
// releases what it queued when it stops, takes over what a dead process left, and signs with the
// application's current secret.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryOptions, DeliveryRuntime } from '../../src/delivery/runtime.js';
import { recordFirings } from '../../src/delivery/firings.js';
import { rotateSecret } from '../../src/services/applications.js';
import type { ServiceContext } from '../../src/services/context.js';
import { callbackFiring, countStatus, getFiring } from './firing-rows.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until, type Fixture } from './helpers.js';
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
  for (const d of dispatchers.splice(0)) await d.close();
  await receiver.stop();
  await ctx.store.close();
  await removeDir(dir);
});

const start = (opts: DeliveryOptions) => {
  const d = startDelivery(ctx, opts);
  dispatchers.push(d);
  return d;
};

/** Counts the loop's reads of due callbacks: from the start of the outbox, and onward from where a read stopped. */
function countReads() {
  const firings = ctx.store.firings;
  const dueHeads = firings.dueHeads.bind(firings);
  const counter = { fromStart: 0, onward: 0 };
  firings.dueHeads = (now, limit, after) => {
    if (after) counter.onward++;
    else counter.fromStart++;
    return dueHeads(now, limit, after);
  };
  return counter;
}

const fields = (f: Fixture, id: string) => ({
  event_id: id, app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id, url: receiver.url, payload: '{}',
});

describe('dispatcher signal', () => {
  it('sends callbacks recordFirings stores as soon as it signals, reading on from where it stopped, and logs every attempt', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const counter = countReads();
    start({ ...FAST, pollMs: 60_000 });
    await until(() => counter.fromStart >= 1); // the read at start, for callbacks left from before
    const atStart = counter.fromStart;
    const firings = Array.from({ length: 8 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 8, 3_000);
    // No timed read from the start came (pollMs is a minute): the signal brought them.
    expect(counter.fromStart).toBe(atStart);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
    for (const x of firings) {
      expect((await ctx.store.attempts.list(x.event_id)).map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([[1, 200, 'delivered']]);
      expect(await getFiring(ctx, x.event_id)).toMatchObject({ status: 'delivered', attempts: 1 });
    }
  });

  it('works through a backlog and new callbacks behind it without a read from the start per free slot', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const earlier = Array.from({ length: 10 }, () => firingOf(f));
    await recordFirings(ctx.delivery, earlier); // due in the store before the dispatcher starts
    const counter = countReads();
    // One receiver may use both slots here (its share is the subject of endpoint-share tests).
    start({ ...FAST, pollMs: 60_000, concurrency: 2, endpointConcurrency: 2 });
    await recordFirings(ctx.delivery, Array.from({ length: 30 }, () => firingOf(f)));
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 40);
    // Reads from the start come when the queue runs low, not for every slot that frees (that was
    // one per callback).
    expect(counter.fromStart).toBeLessThanOrEqual(12);
    expect(receiver.received).toHaveLength(40);
  });

  it('two dispatchers on one outbox, both signalled and reading: each callback is sent once', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const other = start({ ...FAST, pollMs: 5 });
    start(FAST); // the one recordFirings signals
    const firings = Array.from({ length: 30 }, () => firingOf(f));
    for (let i = 0; i < 30; i += 5) {
      await recordFirings(ctx.delivery, firings.slice(i, i + 5));
      other.dispatcher!.wake();
    }
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 30);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received).toHaveLength(30);
    for (const x of firings) expect((await ctx.store.attempts.list(x.event_id)).map((a) => [a.attempt, a.outcome])).toEqual([[1, 'delivered']]);
  });

  it('callbacks it queued but did not start are released when it stops, and the next dispatcher sends them once', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    receiver.plan(['hang'], 200);
    start({ ...FAST, concurrency: 1, endpointConcurrency: 1, timeoutMs: 30_000 });
    const firings = Array.from({ length: 3 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    await until(() => receiver.received.length === 1);
    await dispatchers.shift()!.close();
    // The one in flight is handed back, the queued ones released: all due now, none leased.
    const rows = await Promise.all(firings.map((x) => getFiring(ctx, x.event_id)));
    expect(rows.map((r) => r?.status)).toEqual(['pending', 'pending', 'pending']);
    expect(rows.every((r) => r !== null && r.lease_owner === undefined && r.next_attempt_at! <= Date.now())).toBe(true);
    expect(rows.map((r) => r?.rounds).sort()).toEqual([0, 0, 1]);
    start(FAST);
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 3);
    expect(receiver.received.filter((r) => r.status === 200).map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
  });

  it('on the embedded store, callbacks a dead process left leased are sent at the next start, not after their lease; a live dispatcher\'s are not taken', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    // A dispatcher of this process holds one callback in flight (its receiver does not answer).
    receiver.plan(['hang'], 200);
    start({ ...FAST, pollMs: 60_000, timeoutMs: 30_000 });
    const inFlight = firingOf(f);
    await recordFirings(ctx.delivery, [inFlight]);
    await until(() => receiver.received.length === 1);
    const held = (await getFiring(ctx, inFlight.event_id))!;
    expect(held).toMatchObject({ status: 'delivering', lease_owner: expect.any(String) });
    // Left leased for two minutes by a process that is gone (after the first start, which would
    // have released it).
    const now = Date.now();
    await ctx.store.firings.insert([callbackFiring(fields(f, 'evt_orphan'), now)]);
    await ctx.store.firings.leaseDue(['evt_orphan'], 'a-dead-process:1', now + 120_000, now);
    start({ ...FAST, pollMs: 60_000 });
    await until(async () => (await getFiring(ctx, 'evt_orphan'))?.status === 'delivered', 3_000);
    expect(await getFiring(ctx, inFlight.event_id)).toMatchObject({ status: 'delivering', lease_owner: held.lease_owner });
  });

  it('a queue smaller than what is due leaves the rest due in the store, and every callback is sent once', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    start({ ...FAST, queueLimit: 2, concurrency: 1 });
    const firings = Array.from({ length: 6 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings.slice(0, 3));
    await recordFirings(ctx.delivery, firings.slice(3));
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 6, 3_000);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
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
      await until(async () => (await ctx.store.firings.history({ app_id: f.app._id }, 0, 100)).filter((x) => x.attempts === 1 && x.status !== 'delivering').length === 24, 8_000);
      expect(await countStatus(ctx, f.app._id, 'delivered')).toBe(24);
    } finally {
      clearTimeout(giveUp);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
