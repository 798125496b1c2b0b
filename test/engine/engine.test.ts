// The Engine in-process and with real Piscina threads: routing, batching, order, restore, and
// crash recovery where nothing fires twice.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { Engine, type ApplyResult, type EngineOptions } from '../../src/engine/engine.js';
import { fenceKey, type Geofence, type PointInput, type RecordSeed, type ShardSeed, type UserSeed } from '../../workers/protocol.js';

const S = 1000;
const C = { lat: 45.52, lon: -122.68 };

function fence(triggerId: string, placeId: string, over: Partial<Geofence> = {}): Geofence {
  return {
    key: fenceKey(triggerId, placeId),
    triggerId,
    placeId,
    layerId: 'L',
    lat: C.lat,
    lon: C.lon,
    radius: 100,
    triggerOn: 'enter',
    triggerAfterS: 0,
    oneTime: false,
    rateLimitS: 0,
    window: null,
    ...over,
  };
}

/** Places on a line every 400 m east of C, alternating enter / leave / dwell / one-time triggers. */
const FENCES: Geofence[] = Array.from({ length: 8 }, (_, i) => {
  const c = destinationPoint(C.lat, C.lon, 90, i * 400);
  const kind = i % 4;
  return fence(`t${i}`, `p${i}`, {
    lat: c.lat,
    lon: c.lon,
    triggerOn: kind === 1 ? 'leave' : 'enter',
    triggerAfterS: kind === 2 ? 30 : 0,
    oneTime: kind === 3,
  });
});
const USERS: UserSeed[] = Array.from({ length: 12 }, (_, i) => ({ userId: `user-${i}`, layers: ['L'], timezone: 'UTC' }));

/** Each user walks east and back at its own pace; one point every 5 s per user. */
function walk(step: number): PointInput[] {
  return USERS.map((u, i) => {
    const speed = 8 + i; // m/s
    const x = (step * 5 * speed) % 6000;
    const d = x < 3000 ? x : 6000 - x;
    const p = destinationPoint(C.lat, C.lon, 90, d);
    return { userId: u.userId, at: 1_000_000 + step * 5 * S, lat: p.lat, lon: p.lon, acc: 10 };
  });
}

/** The host's store, as far as the engine is concerned. */
class HostStore {
  records = new Map<string, RecordSeed>();
  lastFired = new Map<string, { userId: string; triggerId: string; at: number }>();
  fired: string[] = [];
  persist(r: ApplyResult): void {
    for (const c of r.changes) {
      const k = `${c.userId}|${c.triggerId}|${c.placeId}`;
      if (c.record === null) this.records.delete(k);
      else this.records.set(k, { userId: c.userId, triggerId: c.triggerId, placeId: c.placeId, record: c.record });
    }
    for (const e of r.effects) {
      if (e.type !== 'FIRE') continue;
      this.fired.push(`${e.userId}|${e.triggerId}|${e.placeId}|${e.triggeredOn}|${e.at}`);
      this.lastFired.set(`${e.userId}|${e.triggerId}`, { userId: e.userId, triggerId: e.triggerId, at: e.at });
    }
  }
  seed(engine: Engine | null, shard?: number): ShardSeed {
    const mine = <T extends { userId: string }>(xs: Iterable<T>) => [...xs].filter((x) => engine === null || shard === undefined || engine.shardOf(x.userId) === shard);
    return { users: mine(USERS), records: mine(this.records.values()), lastFired: mine(this.lastFired.values()) };
  }
}

/** The names of this process's threads (Linux). */
function threadNames(): string[] {
  const names: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      names.push(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // ended meanwhile
    }
  }
  return names;
}

const engines: Engine[] = [];
async function startEngine(opts: EngineOptions, store: HostStore): Promise<Engine> {
  const e: Engine = new Engine({ ...opts, reseed: opts.reseed ?? ((i: number): ShardSeed => store.seed(e, i)) });
  engines.push(e);
  await e.start({ fences: FENCES, ...store.seed(null) });
  return e;
}

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function drive(e: Engine, store: HostStore, from: number, to: number, each?: (step: number) => Promise<void>): Promise<void> {
  for (let step = from; step < to; step++) {
    store.persist(await e.applyPoints(walk(step)));
    store.persist(await e.tick(1_000_000 + step * 5 * S));
    if (each) await each(step);
  }
}

describe('Engine in-process', () => {
  it('routes a user to the same shard every time and remaps point indexes', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true, shards: 3 }, store);
    expect(USERS.map((u) => e.shardOf(u.userId))).toEqual(USERS.map((u) => e.shardOf(u.userId)));
    expect(new Set(USERS.map((u) => e.shardOf(u.userId))).size).toBe(3);
    const pts = walk(0);
    const r = await e.applyPoints(pts);
    // Everyone starts at C, inside p0 (enter trigger): one FIRE per user, pointing at its own point.
    const fires = r.effects.filter((x) => x.type === 'FIRE');
    expect(fires).toHaveLength(USERS.length);
    for (const f of fires) expect(pts[f.point!]!.userId).toBe(f.userId);
  });

  it('reads bodies in their users\' shards and gives the results in request order, rows of one merged batch', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true, shards: 3 }, store);
    const body = (lat: number, at: number) => JSON.stringify([{ date: new Date(at).toISOString(), location: { position: { latitude: lat, longitude: C.lon } } }]);
    const at = 2_000_000_000_000;
    const requests = USERS.map((u, i) => ({ userId: u.userId, text: i === 4 ? 'not json' : body(C.lat, at + i * S), now: at + 100 * S, all: false }));
    const r = await e.applyBodies(requests);
    expect(r.results).toHaveLength(USERS.length);
    expect(r.results[4]).toEqual({ error: 'Request body is not valid JSON', code: 'invalid_request' });
    const full = new Map(r.full);
    r.results.forEach((res, i) => {
      if ('error' in res) return;
      // The request's row is its user's, with its own point, and came back whole.
      expect(r.batch.users[r.batch.user[res.first]!]).toBe(USERS[i]!.userId);
      expect(r.batch.at[res.newest]).toBe(at + i * S);
      expect(full.get(res.newest)!.at).toBe(at + i * S);
    });
    // Everyone but user-4 starts at C, inside p0: one FIRE each, at its own row.
    const fires = r.effects.filter((x) => x.type === 'FIRE');
    expect(fires).toHaveLength(USERS.length - 1);
    for (const f of fires) expect(r.batch.users[r.batch.user[f.point!]!]).toBe(f.userId);
  });

  it('geofence changes reach every shard for the next point; inspect shows the pairs', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true }, store);
    const far = destinationPoint(C.lat, C.lon, 0, 5000);
    const pts = USERS.map((u) => ({ userId: u.userId, at: 10, lat: far.lat, lon: far.lon }));
    expect((await e.applyPoints(pts)).effects).toEqual([]);
    await e.upsertGeofences([fence('tn', 'pn', { lat: far.lat, lon: far.lon })]);
    const r = await e.applyPoints(pts.map((p) => ({ ...p, at: 20 })));
    expect(r.effects.filter((x) => x.type === 'FIRE')).toHaveLength(USERS.length);
    const v = await e.inspect('user-3', { triggerId: 'tn' });
    expect(v!.pairs).toMatchObject([{ triggerId: 'tn', placeId: 'pn', record: { state: 'inside', since: 20 } }]);
    const removed = await e.removeGeofences([fenceKey('tn', 'pn')]);
    expect(removed.changes).toHaveLength(USERS.length);
    expect([...e.geofences()].some((f) => f.key === fenceKey('tn', 'pn'))).toBe(false);
  });

  it('membership decides which geofences a user meets', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true }, store);
    await e.setMembership('user-0', [], 'UTC');
    const r = await e.applyPoints([{ userId: 'user-0', at: 1, lat: C.lat, lon: C.lon }]);
    expect(r.effects).toEqual([]);
  });
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

function byKey(a: RecordSeed, b: RecordSeed): number {
  const ka = `${a.userId}|${a.triggerId}|${a.placeId}`;
  const kb = `${b.userId}|${b.triggerId}|${b.placeId}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
