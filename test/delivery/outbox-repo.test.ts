// The outbox operations of the delivery loop against a real embedded store: which rows a poll
// finds due, and the conditional writes that keep a row with the holder of its lease.
import { describe, expect, it } from 'vitest';
import { outboxDoc } from '../../src/delivery/outbox.js';
import { OutboxRepo } from '../../src/delivery/outbox-repo.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { OutboxDoc } from '../../src/store/documents.js';
import { storePerTest } from './helpers.js';

let ctx: ServiceContext;
storePerTest((c) => (ctx = c));

const row = (id: string, over: Partial<OutboxDoc> = {}): OutboxDoc => ({
  ...outboxDoc({ _id: id, app_id: 'A', trigger_id: 'T', user_id: 'U', place_id: 'P', layer_id: 'L', url: 'http://a.test/', payload: '{}' }, 0),
  ...over,
});

describe('outbox repository', () => {
  it('finds due rows longest due first, pending ones and those whose lease ran out, up to the limit', async () => {
    const repo = new OutboxRepo(ctx.store);
    await repo.outbox.insertMany([
      row('p_late', { next_attempt_at: 300 }),
      row('p_early', { next_attempt_at: 100 }),
      row('p_future', { next_attempt_at: 5_000 }),
      row('l_expired', { status: 'delivering', lease_owner: 'gone', lease_until: 200, next_attempt_at: 200 }),
      row('l_held', { status: 'delivering', lease_owner: 'alive', lease_until: 9_000, next_attempt_at: 9_000 }),
      row('done', { status: 'delivered', next_attempt_at: 50 }),
      row('dead', { status: 'dead', next_attempt_at: 50 }),
    ]);
    expect((await repo.due(1_000, 10)).map((r) => r._id)).toEqual(['p_early', 'l_expired', 'p_late']);
    expect((await repo.due(1_000, 2)).map((r) => r._id)).toEqual(['p_early', 'l_expired']);
    expect(await repo.due(50, 10)).toEqual([]);
  });

  it('leases a row once of two that saw it due, and only the holder finishes it', async () => {
    const repo = new OutboxRepo(ctx.store);
    const seen = row('e1', { next_attempt_at: 100 });
    await repo.outbox.insertOne(seen);
    const [a, b] = await Promise.all([repo.lease(seen, 'a', 60_000, 1_000), repo.lease(seen, 'b', 60_000, 1_000)]);
    const won = (a ?? b)!;
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(won).toMatchObject({ status: 'delivering', rounds: 1, lease_until: 60_000, next_attempt_at: 60_000 });
    const outcome = { kind: 'delivered' as const, status: 200, durationMs: 3 };
    const other = { ...won, lease_owner: won.lease_owner === 'a' ? 'b' : 'a', attempts: 1 };
    expect(await repo.finish(other, { status: 'delivered' }, outcome, 2_000)).toBe(false);
    expect(await repo.finish({ ...won, attempts: 1 }, { status: 'delivered' }, outcome, 2_000)).toBe(true);
    const stored = (await repo.findOne('e1'))!;
    expect(stored).toMatchObject({ status: 'delivered', attempts: 1, lease_until: 0, last_duration_ms: 3 });
    expect(stored).not.toHaveProperty('payload');
  });
});
