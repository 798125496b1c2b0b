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
    expect((await repo.dueHeads(1_000, 10)).map((r) => r._id)).toEqual(['p_early', 'l_expired', 'p_late']);
    expect((await repo.dueHeads(1_000, 2)).map((r) => r._id)).toEqual(['p_early', 'l_expired']);
    expect(await repo.dueHeads(50, 10)).toEqual([]);
    // Heads carry what a poll decides on, nothing of the payload; rows() reads the chosen ones whole.
    const [head] = await repo.dueHeads(1_000, 1);
    const whole = (await repo.outbox.findOne({ _id: 'p_early' }))!;
    expect(head).toEqual({ _id: 'p_early', status: whole.status, next_attempt_at: 100, url: whole.url, app_id: whole.app_id });
    expect(await repo.rows(['p_late', 'missing', 'p_early'])).toEqual([await repo.outbox.findOne({ _id: 'p_late' }), whole]);
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

  it('writes the rows delivered in one turn together, each only while its lease is ours, with its history', async () => {
    const repo = new OutboxRepo(ctx.store);
    const ids = ['d1', 'd2', 'd3', 'd4'];
    const leased = ids.map((id, i) => row(id, { status: 'delivering', lease_owner: `o${i}`, lease_until: 60_000, next_attempt_at: 60_000, attempts: 1, last_status: 200 }));
    await repo.outbox.insertMany(leased);
    await repo.history.insertMany(ids.map((id) => ({ _id: id, app_id: 'A', delivery: { status: 'delivering', attempts: 0, updated_at: 0 } }) as never));
    // d3's lease went to another loop meanwhile.
    await repo.outbox.updateOne({ _id: 'd3' }, { $set: { lease_owner: 'another' } });
    const ok = { kind: 'delivered' as const, status: 200, durationMs: 3 };
    const results = await Promise.all(leased.map((r, i) => repo.finish(
      { ...r, lease_owner: r.lease_owner! }, { status: 'delivered' }, i === 3 ? { ...ok, durationMs: 9 } : ok, 2_000, { n: 1, outcome: ok, at: 1_500 },
    )));
    expect(results).toEqual([true, true, false, true]);
    const stored = new Map((await repo.outbox.find({}).toArray()).map((r) => [r._id, r]));
    for (const id of ['d1', 'd2', 'd4']) {
      expect(stored.get(id)).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, delivered_at: 1_500, lease_until: 0, updated_at: 2_000 });
      expect(stored.get(id)).not.toHaveProperty('payload');
    }
    expect(stored.get('d4')!.last_duration_ms).toBe(9);
    expect(stored.get('d1')!.last_duration_ms).toBe(3);
    expect(stored.get('d3')).toMatchObject({ status: 'delivering', lease_owner: 'another' });
    const hist = new Map((await repo.history.find({}).toArray()).map((h) => [h._id, h.delivery]));
    expect(hist.get('d1')).toMatchObject({ status: 'delivered', attempts: 1, updated_at: 2_000 });
    expect(hist.get('d4')).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
