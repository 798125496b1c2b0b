// A receiver's long backlog (it was down) is drained by reading each due row's head about once,
// not once per slot that frees: the poll refills a low queue with a short page, and looks further
// (for other receivers' rows) only now and then. Counted on the real store through the repository.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { outbox } from '../../src/delivery/outbox.js';
import { OutboxRepo } from '../../src/delivery/outbox-repo.js';
import type { DeliveryRuntime } from '../../src/delivery/runtime.js';
import type { ServiceContext } from '../../src/services/context.js';
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
  expect(await outbox(ctx).countDocuments({ status: 'pending' })).toBe(BACKLOG);

  let heads = 0;
  const dueHeads = OutboxRepo.prototype.dueHeads;
  vi.spyOn(OutboxRepo.prototype, 'dueHeads').mockImplementation(async function (this: OutboxRepo, now: number, limit: number) {
    const page = await dueHeads.call(this, now, limit);
    heads += page.length;
    return page;
  });
  // A small queue (8 slots, 4 for the receiver), so the backlog is many queues long.
  dispatcher = startDelivery(ctx, { concurrency: 8, pollMs: 60_000 });
  await until(async () => (await outbox(ctx).countDocuments({ status: 'delivered' })) === BACKLOG, 60_000);

  expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(BACKLOG);
  // Polling for every slot that freed re-read the backlog's heads each time: about 70 a row here.
  expect(heads / BACKLOG).toBeLessThan(30);
});
