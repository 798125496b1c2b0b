// Batched callbacks (callback_batch_max > 1) against a real receiver on 127.0.0.1: several events
// in one POST whose body is a JSON array of the exact bodies single delivery sends, signed once
// over the whole body; every event arrives once with its own event_id; a failing receiver gets the
// batch again without losing an event; and an application that did not ask still gets one event
// per POST.
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchBody } from '../../src/delivery/batch-round.js';
import { recordFirings } from '../../src/delivery/firings.js';
import { countStatus, firingsOf } from './firing-rows.js';
import type { DeliveryOptions, DeliveryRuntime } from '../../src/delivery/runtime.js';
import type { ServiceContext } from '../../src/services/context.js';
import { updateApplication } from '../../src/services/applications.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until, type Fixture } from './helpers.js';
import { Receiver } from './receiver.js';

const FAST: DeliveryOptions = { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 60, capMs: 200 }, timeoutMs: 2_000 };

let dir: string;
let ctx: ServiceContext;
let receiver: Receiver;
let dispatcher: DeliveryRuntime | undefined;

beforeEach(async () => {
  dir = await tempDataDir();
  ctx = await openCtx(dir);
  receiver = await new Receiver().start();
});

afterEach(async () => {
  await dispatcher?.close();
  dispatcher = undefined;
  await receiver.stop();
  await ctx.store.close();
  await removeDir(dir);
});

/** `n` firings of the fixture recorded with no loop running, and their stored bodies by event id. */
async function backlog(f: Fixture, n: number): Promise<Map<string, string>> {
  const firings = Array.from({ length: n }, () => firingOf(f));
  await recordFirings(ctx.delivery, firings);
  const rows = await Promise.all(firings.map((x) => ctx.store.firings.get(x.event_id)));
  return new Map(rows.map((r) => [r!.event_id, r!.payload!]));
}

const allDelivered = (f: Fixture, n: number) => until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === n, 15_000);

describe('batched callbacks', () => {
  it('sends several events in one signed POST, each once, with the body single delivery sends', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    await updateApplication(ctx, f.app._id, { callback_batch_max: 10 });
    const bodies = await backlog(f, 25);
    dispatcher = startDelivery(ctx, FAST);
    await allDelivered(f, 25);

    const wh = new Webhook(f.app.webhook_secret);
    const seen: string[] = [];
    for (const r of receiver.received) {
      expect(r.status).toBe(200);
      // One signature over the whole body, verifiable with any Standard Webhooks library.
      const events = wh.verify(r.body, r.headers) as Array<{ event_id: string }>;
      expect(Array.isArray(events)).toBe(true);
      expect(events.length).toBeGreaterThan(0);
      expect(events.length).toBeLessThanOrEqual(10);
      expect(r.headers['webhook-id']).toMatch(/^batch_/);
      // Byte for byte the stored single-event bodies, in order.
      expect(r.body).toBe(batchBody(events.map((e) => bodies.get(e.event_id)!)));
      seen.push(...events.map((e) => e.event_id));
    }
    expect(receiver.received.length).toBeLessThan(25);
    expect(seen.sort()).toEqual([...bodies.keys()].sort());
    const rows = await firingsOf(ctx, f.app._id);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
  });

  it('batches the events handed to the running loop as they fire', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    await updateApplication(ctx, f.app._id, { callback_batch_max: 5 });
    dispatcher = startDelivery(ctx, FAST);
    const firings = Array.from({ length: 30 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    await allDelivered(f, 30);
    const seen = receiver.received.flatMap((r) => {
      const events = JSON.parse(r.body) as Array<{ event_id: string }>;
      expect(events.length).toBeLessThanOrEqual(5);
      return events.map((e) => e.event_id);
    });
    expect(seen.sort()).toEqual(firings.map((x) => x.event_id).sort());
  });

  it('retries a refused batch without losing an event', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    await updateApplication(ctx, f.app._id, { callback_batch_max: 100 });
    const bodies = await backlog(f, 12);
    receiver.plan([503, 'reset', 500], 200);
    dispatcher = startDelivery(ctx, FAST);
    await allDelivered(f, 12);

    const refused = receiver.received.filter((r) => r.status !== 200);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const delivered = receiver.delivered().flatMap((r) => (JSON.parse(r.body) as Array<{ event_id: string }>).map((e) => e.event_id));
    // Each event once among the accepted POSTs, and every one of them.
    expect([...delivered].sort()).toEqual([...bodies.keys()].sort());
    for (const r of receiver.received.filter((x) => x.status === 503 || x.status === 500)) {
      for (const e of JSON.parse(r.body) as Array<{ event_id: string }>) expect(bodies.has(e.event_id)).toBe(true);
    }
    const rows = await firingsOf(ctx, f.app._id);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts >= 2)).toBe(true);
  });

  it('sends one event per POST to an application that did not ask for batches', async () => {
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    const bodies = await backlog(f, 6);
    dispatcher = startDelivery(ctx, FAST);
    await allDelivered(f, 6);

    expect(receiver.received).toHaveLength(6);
    for (const r of receiver.received) {
      const id = r.headers['webhook-id']!;
      expect(r.body).toBe(bodies.get(id));
      expect(JSON.parse(r.body)).toMatchObject({ event_id: id });
    }
  });
});
