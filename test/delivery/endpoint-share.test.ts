// One receiver that hangs must not hold every dispatcher slot: each origin has a share of the
// callbacks in their HTTP phase, and the callbacks of other origins go out meanwhile, whether
// signalled by recordFirings or found due by a read from the start.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryOptions, DeliveryRuntime } from '../../src/delivery/runtime.js';
import { OriginLimits, OriginQueues, originOf } from '../../src/delivery/origin-limits.js';
import { recordFirings } from '../../src/delivery/firings.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { LeasedCallback } from '../../src/store/firings.js';
import { countStatus } from './firing-rows.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until } from './helpers.js';
import { Receiver } from './receiver.js';

const row = (id: string, url: string): LeasedCallback => ({
  event_id: id, app_id: 'A', trigger_id: 'T', user_id: 'U', url, payload: '{}', attempts: 0, rounds: 1, lease_owner: 'o', lease_until: 60_000, created_at: 0,
});

describe('endpoint shares', () => {
  it('serves the origins in turn, oldest first within one, and skips an origin at its share', async () => {
    const q = new OriginQueues();
    for (const [id, url] of [['a1', 'http://a.test/x'], ['a2', 'http://a.test/y'], ['b1', 'https://b.test/'], ['a3', 'http://a.test/z'], ['c1', 'http://a.test:81/']]) q.push(row(id, url));
    const all = () => true;
    expect([q.next(all)?.event_id, q.next(all)?.event_id, q.next(all)?.event_id, q.next(all)?.event_id]).toEqual(['a1', 'b1', 'c1', 'a2']);
    expect(q.next((o) => o !== 'http://a.test')).toBeUndefined();
    expect(q.hasReady((o) => o !== 'http://a.test')).toBe(false);
    expect(q.size).toBe(1);
    expect(q.drain().map((r) => r.event_id)).toEqual(['a3']);
    expect(q.size).toBe(0);

    const limits = new OriginLimits(2);
    const o = limits.origin('http://a.test/x?y=1');
    expect(o).toBe(originOf('http://a.test/'));
    expect(o).toBe('http://a.test');
    const phase = () => {
      let end!: () => void;
      return { done: new Promise<void>((r) => (end = r)), end: () => end() };
    };
    const [one, two, three] = [phase(), phase(), phase()];
    await limits.take(o, one.done);
    expect(limits.full(o)).toBe(false);
    await limits.take(o, two.done);
    expect(limits.full(o)).toBe(true);
    expect(limits.full(limits.origin('http://b.test/'))).toBe(false);
    // A third waits for a slot: it gets one when a phase ends.
    let third = false;
    const taken = limits.take(o, three.done).then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    one.end();
    await taken;
    expect(third).toBe(true);
    two.end();
    three.end();
    await until(() => !limits.full(o));
  });
});

describe('a hanging receiver and a healthy one', () => {
  let dir: string;
  let ctx: ServiceContext;
  let hanging: Receiver;
  let healthy: Receiver;
  let dispatcher: DeliveryRuntime | undefined;
  // 8 slots; each attempt to the hanging receiver ends at the 4 s timeout, with no quick retry.
  const OPTS: DeliveryOptions = { concurrency: 8, timeoutMs: 4_000, round: { retries: 0 }, backoff: { baseMs: 60_000, capMs: 60_000 }, pollMs: 25 };

  beforeEach(async () => {
    dir = await tempDataDir();
    ctx = await openCtx(dir);
    hanging = await new Receiver().plan([], 'hang').start();
    healthy = await new Receiver().start();
  });
  afterEach(async () => {
    await dispatcher?.close();
    dispatcher = undefined;
    await hanging.stop();
    await healthy.stop();
    await ctx.store.close();
    await removeDir(dir);
  });

  /** 12 callbacks to the hanging receiver, then 3 to the healthy one, handed over or left for a poll. */
  async function deliverWhileOneHangs(opts: DeliveryOptions, how: 'handed over' | 'polled'): Promise<void> {
    const slow = await seed(ctx, { type: 'callback', url: hanging.url });
    const fast = await seed(ctx, { type: 'callback', url: healthy.url });
    if (how === 'handed over') dispatcher = startDelivery(ctx, opts);
    await recordFirings(ctx.delivery, Array.from({ length: 12 }, () => firingOf(slow)));
    // Signalled, the hanging receiver's callbacks take what slots they may before the others come.
    if (how === 'handed over') await until(() => hanging.received.length >= (opts.endpointConcurrency ?? 4));
    await recordFirings(ctx.delivery, Array.from({ length: 3 }, () => firingOf(fast)));
    if (how === 'polled') {
      expect((await countStatus(ctx, slow.app._id, 'pending')) + (await countStatus(ctx, fast.app._id, 'pending'))).toBe(15);
      dispatcher = startDelivery(ctx, opts);
    }
  }

  /**
   * The healthy receiver has all three while the hanging one holds its share of the slots: an
   * attempt to the hanging one ends only at the 4 s timeout, which would free a slot for another
   * of its rows, so still exactly 4 of them means the healthy ones did not wait for a timeout.
   */
  async function expectHealthyServedBeforeATimeout(): Promise<void> {
    await until(() => healthy.received.length === 3 && hanging.received.length >= 4, 15_000);
    expect(hanging.received).toHaveLength(4); // half of the 8 slots
  }

  it('sends the healthy receiver its handed-over callbacks at once, with the hanging one at its share', async () => {
    await deliverWhileOneHangs(OPTS, 'handed over');
    await expectHealthyServedBeforeATimeout();
  });

  it('does the same for rows a poll finds due', async () => {
    await deliverWhileOneHangs(OPTS, 'polled');
    await expectHealthyServedBeforeATimeout();
    await until(() => healthy.received.filter((r) => r.status === 200).length === 3);
  });

  it('reaches due rows of other origins behind more rows of the hanging one than a poll page holds', async () => {
    const slow = await seed(ctx, { type: 'callback', url: hanging.url });
    const fast = await seed(ctx, { type: 'callback', url: healthy.url });
    await recordFirings(ctx.delivery, Array.from({ length: 40 }, () => firingOf(slow)));
    // Due later than every row of the hanging receiver: the clock has moved on.
    const written = Date.now();
    await until(() => Date.now() > written, 1_000, 1);
    await recordFirings(ctx.delivery, Array.from({ length: 3 }, () => firingOf(fast)));
    dispatcher = startDelivery(ctx, { ...OPTS, pollMs: 60_000 });
    await expectHealthyServedBeforeATimeout();
  });

  it('without shares (one origin may take every slot) the healthy receiver waits for the timeout', async () => {
    await deliverWhileOneHangs({ ...OPTS, endpointConcurrency: 8 }, 'handed over');
    // Every slot went to the hanging receiver; nothing is left for the healthy one until a timeout.
    await until(() => hanging.received.length === 8, 15_000);
    expect(healthy.received).toHaveLength(0);
  });
});
