// A receiver that is down for a while and comes back: every event it refused is delivered soon
// after its return (not when the backoff its outage earned runs out), none is lost, and each is
// delivered with the same body and event id it was first sent with. The load harness's
// `--scenario receiver-outage` is the same at full scale (a 2-minute outage).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { countStatus, firingsOf } from './firing-rows.js';
import type { ServiceContext } from '../../src/services/context.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until } from './helpers.js';
import { Receiver } from './receiver.js';

describe('a receiver that is down, then back', () => {
  let dir = '';
  let ctx: ServiceContext;
  let receiver: Receiver;

  beforeEach(async () => {
    dir = await tempDataDir();
    ctx = await openCtx(dir);
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await ctx.delivery.close();
    await ctx.store.close();
    await receiver.stop();
    await removeDir(dir);
  });

  it('gets every event it refused soon after it answers again, each with its first body, none lost', async () => {
    // A schedule whose next round is a minute away: only the return of the receiver brings them forward.
    startDelivery(ctx, { pollMs: 50, round: { retries: 0 }, backoff: { baseMs: 60_000, capMs: 60_000 }, timeoutMs: 2_000 });
    const f = await seed(ctx, { type: 'callback', url: receiver.url });
    receiver.plan([], 503);
    const during = Array.from({ length: 20 }, () => firingOf(f));
    await recordFirings(ctx.delivery, during);
    await until(async () => (await firingsOf(ctx, f.app._id)).filter((r) => r.status === 'pending' && r.attempts === 1).length === during.length, 10_000);
    const pending = (await firingsOf(ctx, f.app._id)).filter((r) => r.status === 'pending');
    const returnedAt = Date.now();
    expect(Math.min(...pending.map((r) => r.next_attempt_at!))).toBeGreaterThan(returnedAt + 20_000);

    // The receiver is back; the next event reaches it, and the refused ones follow at once.
    receiver.plan([], 200);
    const after = firingOf(f);
    await recordFirings(ctx.delivery, [after]);
    const all = [...during, after].map((x) => x.event_id);
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === all.length, 15_000);
    expect(Date.now() - returnedAt).toBeLessThan(20_000);

    const refused = new Map(receiver.received.filter((r) => r.status === 503).map((r) => [r.headers['webhook-id'], r.body]));
    const delivered = receiver.delivered();
    expect(delivered.map((r) => r.headers['webhook-id']).sort()).toEqual([...all].sort());
    for (const r of delivered) {
      const first = refused.get(r.headers['webhook-id']);
      if (first !== undefined) expect(r.body).toBe(first);
    }
    expect(refused.size).toBe(during.length);
  });
});
