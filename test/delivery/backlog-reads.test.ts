// A receiver's long backlog (it was down) is drained by reading each due callback's head a few
// times, not once per slot that frees: the queue refills with a short page when it runs low, and
// looks further (for other receivers' callbacks) only now and then. Counted on the real store
// through the repository.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import type { DeliveryRuntime } from '../../src/delivery/runtime.js';
import type { ServiceContext } from '../../src/services/context.js';
import { countStatus } from './firing-rows.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until } from './helpers.js';
import { Receiver } from './receiver.js';

const BACKLOG = 1_000;

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
  vi.restoreAllMocks();
  await dispatcher?.close();
  dispatcher = undefined;
  await receiver.stop();
  await ctx.store.close();
  await removeDir(dir);
});

it('drains one receiver\'s backlog reading each row\'s head a few times at most, not once per callback sent', async () => {
  const fx = await seed(ctx, { type: 'callback', url: receiver.url });
  for (let i = 0; i < BACKLOG; i += 100) await recordFirings(ctx.delivery, Array.from({ length: 100 }, () => firingOf(fx)));
  expect(await countStatus(ctx, fx.app._id, 'pending')).toBe(BACKLOG);

  let heads = 0;
  const firings = ctx.store.firings;
  const dueHeads = firings.dueHeads.bind(firings);
  vi.spyOn(firings, 'dueHeads').mockImplementation(async (now, limit, after) => {
    const page = await dueHeads(now, limit, after);
    heads += page.length;
    return page;
  });
  // A small queue (8 slots, 4 for the receiver), so the backlog is many queues long.
  dispatcher = startDelivery(ctx, { concurrency: 8, pollMs: 60_000 });
  // Read every quarter second: each read lists the whole backlog.
  await until(async () => (await countStatus(ctx, fx.app._id, 'delivered')) === BACKLOG, 60_000, 250);

  expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(BACKLOG);
  // Polling for every slot that freed re-read the backlog's heads each time: about 70 a row here.
  expect(heads / BACKLOG).toBeLessThan(30);
});
