// The Engine with real Piscina threads: the same results as in-process, per-user order, thread
// names, and crash recovery where nothing fires twice.
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, type ApplyResult } from '../../src/engine/engine.js';
import { byKey, drive, engines, FENCES, HostStore, S, startEngine, threadNames, USERS, walk } from './helpers/engine-world.js';

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

describe('Engine with worker threads (Piscina)', () => {
  it('gives exactly what the in-process engine gives, over a long walk', async () => {
    const a = new HostStore();
    const b = new HostStore();
    const threads = await startEngine({ shards: 2 }, a);
    const local = await startEngine({ inProcess: true, shards: 2 }, b);
    await drive(threads, a, 0, 60);
    await drive(local, b, 0, 60);
    expect(a.fired.length).toBeGreaterThan(20);
    expect(a.fired).toEqual(b.fired);
    expect([...a.records.values()]).toEqual([...b.records.values()]);
    const stats = await threads.stats();
    expect(stats).toHaveLength(2);
    // Each shard's thread carries its name where the operating system shows it (top -H, ps -T).
    expect(threadNames()).toEqual(expect.arrayContaining(['gt-shard-0', 'gt-shard-1']));
    expect(stats.reduce((n, s) => n + s.points, 0)).toBe(60 * USERS.length);
    // Every point of a user went to that user's shard, and only there.
    for (const [i, s] of stats.entries()) {
      const mine = USERS.filter((u) => threads.shardOf(u.userId) === i).length;
      expect(s.users).toBe(mine);
      expect(s.points).toBe(60 * mine);
    }
  });

  it('keeps per-user order when calls are not awaited one by one', async () => {
    const store = new HostStore();
    const e = await startEngine({ shards: 2 }, store);
    const calls: Promise<ApplyResult>[] = [];
    for (let step = 0; step < 40; step++) calls.push(e.applyPoints(walk(step)));
    for (const r of await Promise.all(calls)) store.persist(r);
    const ref = new HostStore();
    const seq = await startEngine({ inProcess: true }, ref);
    for (let step = 0; step < 40; step++) ref.persist(await seq.applyPoints(walk(step)));
    const perUser = (fired: string[]) => {
      const m = new Map<string, string[]>();
      for (const f of fired) {
        const u = f.split('|')[0]!;
        m.set(u, [...(m.get(u) ?? []), f]);
      }
      return m;
    };
    expect(store.fired.length).toBeGreaterThan(10);
    expect(perUser(store.fired)).toEqual(perUser(ref.fired));
  });

  it('rebuilds a crashed shard from reseed, and nothing fires twice', async () => {
    const ref = new HostStore();
    const refEngine = await startEngine({ inProcess: true }, ref);
    await drive(refEngine, ref, 0, 50);

    const store = new HostStore();
    const rebuilt: number[] = [];
    const e = await startEngine({ shards: 2, shard: { testHooks: true }, onShardRebuilt: (i) => rebuilt.push(i) }, store);
    await drive(e, store, 0, 50, async (step) => {
      if (step === 10) await e.crashShard(0); // thread exits between batches
      if (step === 25) await e.crashShard(1);
    });
    expect(rebuilt.sort()).toEqual([0, 1]);
    expect(new Set(store.fired).size).toBe(store.fired.length);
    expect(store.fired.sort()).toEqual([...ref.fired].sort());
    expect([...store.records.values()].sort(byKey)).toEqual([...ref.records.values()].sort(byKey));
  });

  it('hands over, once, the pairs a shard released as it loaded: at start and again after a rebuild', async () => {
    const store = new HostStore();
    // t3 is one-time in FENCES; here it comes recurring while the stored record is still spent.
    store.records.set('user-0|t3|p3', { userId: 'user-0', triggerId: 't3', placeId: 'p3', record: { state: 'firedOnce', since: 0, enteredAt: 0, history: [] } });
    const e: Engine = new Engine({ shards: 2, shard: { testHooks: true }, reseed: (i) => store.seed(e, i) });
    engines.push(e);
    await e.start({ fences: FENCES.map((f) => ({ ...f, oneTime: false })), ...store.seed(null) });
    const released = { userId: 'user-0', triggerId: 't3', placeId: 'p3', transition: { from: 'firedOnce', reason: 'one_time_off' } };
    expect(e.takeReleased()).toMatchObject([released]);
    expect(e.takeReleased()).toEqual([]);
    // The host did not store it here: the rebuilt shard reads the spent record and releases it again.
    await e.crashShard(e.shardOf('user-0'));
    await e.applyPoints(walk(0));
    expect(e.takeReleased()).toMatchObject([released]);
  });

  it('a thread killed in the middle of a batch: the batch is retried once on a rebuilt shard', async () => {
    const ref = new HostStore();
    const refEngine = await startEngine({ inProcess: true }, ref);
    await drive(refEngine, ref, 0, 30);

    const store = new HostStore();
    let rebuilds = 0;
    const e = await startEngine({ shards: 2, onShardRebuilt: () => rebuilds++ }, store);
    await drive(e, store, 0, 15);
    const pending = e.applyPoints(walk(15));
    await e.terminateShardThread(0);
    store.persist(await pending);
    store.persist(await e.tick(1_000_000 + 15 * 5 * S));
    await drive(e, store, 16, 30);
    expect(rebuilds).toBeGreaterThanOrEqual(1);
    expect(new Set(store.fired).size).toBe(store.fired.length);
    expect(store.fired.sort()).toEqual([...ref.fired].sort());
  });
});
