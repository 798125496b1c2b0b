// ShardState in-process: the rules as a shard applies them (order, time, gates, visits), restore
// from persisted changes, and the index + nearby cache path against a brute-force oracle.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { step, type PairRecord, type StepEvent } from '../../machines/index.js';
import { destinationPoint, haversineM } from '../../src/geo/distance.js';
import { classifyZone } from '../../src/geo/hysteresis.js';
import { mergeWindows, windowGate } from '../../src/geo/time-window.js';
import { fenceKey, type Geofence, type PointInput, type RecordSeed, type ShardOutput, type UserSeed } from '../../workers/protocol.js';
import { ShardState } from '../../workers/shard-state.js';

const S = 1000;
const C = { lat: 45.52, lon: -122.68 };

function fence(over: Partial<Geofence> & { triggerId: string; placeId: string }): Geofence {
  return {
    key: fenceKey(over.triggerId, over.placeId),
    layerId: 'L1',
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

/** A point `d` metres east of the fence centre (or of C). */
function pt(userId: string, at: number, d: number, from = C, acc = 5): PointInput {
  const p = destinationPoint(from.lat, from.lon, 90, d);
  return { userId, at, lat: p.lat, lon: p.lon, acc };
}

const shardWith = (fences: Geofence[], users: UserSeed[] = [{ userId: 'u1', layers: ['L1'] }]) => {
  const s = new ShardState();
  s.load({ fences, users });
  return s;
};

const fires = (o: ShardOutput) => o.effects.filter((e) => e.type !== 'VISIT').map((e) => (e.type === 'FIRE' ? `${e.triggerId}:${e.triggeredOn}@${e.at / S}` : `${e.triggerId}:${e.reason}@${e.at / S}`));

describe('ShardState', () => {
  it('fires on entering, with the user and the index of the point', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1' })]);
    const out = s.applyPoints([pt('u1', 1 * S, 500), pt('u1', 2 * S, 50)]);
    expect(out.effects).toEqual([
      { type: 'VISIT', triggerId: 't1', placeId: 'p1', at: 2 * S, userId: 'u1', point: 1 },
      { type: 'FIRE', triggerId: 't1', placeId: 'p1', triggeredOn: 'enter', delaySeconds: 0, at: 2 * S, userId: 'u1', point: 1 },
    ]);
    expect(out.changes).toHaveLength(1);
    expect(out.changes[0]).toMatchObject({ userId: 'u1', triggerId: 't1', placeId: 'p1', record: { state: 'inside' } });
  });

  it('applies each user in device-time order and ignores points not newer than the last applied', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', triggerOn: 'leave' })], [
      { userId: 'u1', layers: ['L1'] },
      { userId: 'u2', layers: ['L1'] },
    ]);
    // Out of order within the batch, two users interleaved.
    const out = s.applyPoints([pt('u1', 5 * S, 500), pt('u2', 1 * S, 10), pt('u1', 1 * S, 10), pt('u2', 5 * S, 500)]);
    expect(fires(out)).toEqual(['t1:leave@5', 't1:leave@5']);
    expect(out.effects.find((e) => e.type === 'FIRE' && e.userId === 'u1')!.point).toBe(0);
    // An older point, and the last applied one sent again, move nothing.
    const late = s.applyPoints([pt('u1', 4 * S, 10), pt('u1', 5 * S, 500)]);
    expect(late.effects).toEqual([]);
    expect(s.stats().oldPoints).toBe(2);
    expect(s.inspect('u1')!.pairs).toEqual([]);
  });

  it('applies points stamped in the same second at different places in arrival order', () => {
    // An SDK or simulator dating points to the whole second: out, in, out again within one second.
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1' }), fence({ triggerId: 't2', placeId: 'p1', triggerOn: 'leave' })]);
    const out = s.applyPoints([pt('u1', 1 * S, 500), pt('u1', 1 * S, 10), pt('u1', 1 * S, 600)]);
    expect(fires(out)).toEqual(['t1:enter@1', 't2:leave@1']);
    // Across requests too: the next batch's point of that same second, inside again, is applied.
    expect(fires(s.applyPoints([pt('u1', 1 * S, 20)]))).toEqual(['t1:enter@1']);
    // The same point sent again (a retry) changes nothing.
    const again = s.applyPoints([pt('u1', 1 * S, 20)]);
    expect(again.effects).toEqual([]);
    expect(again.changes).toEqual([]);
    expect(s.stats().oldPoints).toBe(1);
  });

  it('dwell fires on a tick alone, at the deadline', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', triggerAfterS: 60 })]);
    s.applyPoints([pt('u1', 0, 10)]);
    expect(s.tick(59_999).effects).toEqual([]);
    const out = s.tick(61 * S);
    expect(out.effects).toEqual([{ type: 'FIRE', triggerId: 't1', placeId: 'p1', triggeredOn: 'enter', delaySeconds: 60, at: 60 * S, userId: 'u1' }]);
    expect(s.inspect('u1')!.pairs[0]!.record.state).toBe('dwelling');
    expect(s.tick(120 * S).effects).toEqual([]);
  });

  it('a deadline that passed before a late batched point fires first, at the deadline', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', triggerAfterS: 60 })]);
    s.applyPoints([pt('u1', 0, 10)]);
    // Phone offline: the next thing we hear is that it left at 120 s. The dwell still happened.
    const out = s.applyPoints([pt('u1', 120 * S, 800)]);
    expect(fires(out)).toEqual(['t1:enter@60']);
    expect(out.changes.map((c) => c.record?.state ?? 'outside')).toEqual(['dwelling', 'outside']);
    expect(s.stats().pendingDeadlines).toBe(0);
  });

  it('leaving before the deadline drops it', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', triggerAfterS: 60 })]);
    s.applyPoints([pt('u1', 0, 10), pt('u1', 30 * S, 800)]);
    expect(s.tick(100 * S).effects).toEqual([]);
  });

  it('gates by the daily window in the user timezone', () => {
    const window = mergeWindows({ time_from: '08:00:00', time_to: '10:00:00' });
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', window })], [
      { userId: 'ny', layers: ['L1'], timezone: 'America/New_York' },
      { userId: 'utc', layers: ['L1'], timezone: 'UTC' },
    ]);
    const at = Date.UTC(2024, 6, 15, 13); // 09:00 in New York, 13:00 UTC
    const out = s.applyPoints([pt('ny', at, 10), pt('utc', at, 10)]);
    expect(out.effects.filter((e) => e.type !== 'VISIT').map((e) => [e.userId, e.type])).toEqual([
      ['ny', 'FIRE'],
      ['utc', 'SUPPRESSED'],
    ]);
    expect(out.effects.find((e) => e.type === 'SUPPRESSED')).toMatchObject({ reason: 'time_window' });
  });

  it('gates by the date window', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', window: mergeWindows({ date_to: 5 * S }) })]);
    expect(fires(s.applyPoints([pt('u1', 6 * S, 10)]))).toEqual(['t1:date_window@6']);
  });

  it('rate-limits one trigger for one user across places (layer trigger)', () => {
    const east = destinationPoint(C.lat, C.lon, 90, 2000);
    const s = shardWith([
      fence({ triggerId: 'lt', placeId: 'a', rateLimitS: 60 }),
      fence({ triggerId: 'lt', placeId: 'b', rateLimitS: 60, ...east }),
    ]);
    const out = s.applyPoints([pt('u1', 0, 10), pt('u1', 10 * S, 2000), pt('u1', 20 * S, 10), pt('u1', 100 * S, 2000)]);
    expect(fires(out)).toEqual(['lt:enter@0', 'lt:rate_limit@10', 'lt:rate_limit@20', 'lt:enter@100']);
  });

  it('reports one visit per place and point, however many triggers the place has', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1' }), fence({ triggerId: 't2', placeId: 'p1', triggerOn: 'leave' })]);
    const out = s.applyPoints([pt('u1', 0, 10)]);
    expect(out.effects.filter((e) => e.type === 'VISIT')).toHaveLength(1);
    expect(out.changes).toHaveLength(2);
  });

  it('one_time: firedOnce survives leaving and re-entering, and layer changes', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', oneTime: true }), fence({ triggerId: 't2', placeId: 'p1', triggerOn: 'leave' })]);
    const out = s.applyPoints([pt('u1', 0, 10), pt('u1', 10 * S, 500), pt('u1', 20 * S, 10)]);
    // Entering again is a firing the spent one-time trigger gates (trigger/history include_gated).
    expect(fires(out)).toEqual(['t1:enter@0', 't2:leave@10', 't1:one_time_spent@20']);
    // Leaving the layer drops the inside record (t2) but never the firedOnce one.
    const left = s.setUsers([{ userId: 'u1', layers: [] }]);
    expect(left.changes).toEqual([{ userId: 'u1', triggerId: 't2', placeId: 'p1', record: null }]);
    expect(s.inspect('u1')!.pairs.map((p) => p.record.state)).toEqual(['firedOnce']);
  });

  it('one_time turned off releases the spent pairs by the last point: in → inside, out → outside, no firing', () => {
    const once = fence({ triggerId: 't1', placeId: 'p1', oneTime: true });
    const users = ['in', 'out', 'band', 'far-acc'].map((userId) => ({ userId, layers: ['L1'] }));
    const s = shardWith([once], users);
    s.applyPoints([
      pt('in', 0, 10), pt('in', 10 * S, 20),
      pt('out', 0, 10), pt('out', 10 * S, 500),
      pt('band', 0, 10), pt('band', 10 * S, 110),
      pt('far-acc', 0, 10), pt('far-acc', 10 * S, 500, C, 900),
    ]);
    expect([...s.records()].map((r) => r.record.state)).toEqual(['firedOnce', 'firedOnce', 'firedOnce', 'firedOnce']);

    const out = s.upsertFences([{ ...once, oneTime: false }]);
    expect(out.effects).toEqual([]);
    const byUser = Object.fromEntries(out.changes.map((c) => [c.userId, c]));
    expect(byUser.out).toEqual({
      userId: 'out', triggerId: 't1', placeId: 'p1', record: null,
      transition: { from: 'firedOnce', to: 'outside', at: 10 * S, reason: 'one_time_off' },
    });
    // An enter trigger: the band and an unusable point count as the visit going on.
    for (const u of ['in', 'band', 'far-acc']) {
      // Inside as of the last point: the spent record's entry (0) may be a visit left since.
      expect(byUser[u]!.record).toMatchObject({ state: 'inside', since: 10 * S, enteredAt: 10 * S });
      expect(byUser[u]!.record!.history.at(-1)).toEqual({ from: 'firedOnce', to: 'inside', at: 10 * S, reason: 'one_time_off' });
    }
    // Upserting the recurring fence again releases nothing more.
    expect(s.upsertFences([{ ...once, oneTime: false }]).changes).toEqual([]);

    // Outside: the next entry fires. Inside: only an entry after leaving does.
    expect(fires(s.applyPoints([pt('out', 20 * S, 10), pt('in', 20 * S, 10), pt('band', 20 * S, 10)]))).toEqual(['t1:enter@20']);
    expect(fires(s.applyPoints([pt('in', 30 * S, 500), pt('in', 40 * S, 10)]))).toEqual(['t1:enter@40']);
  });

  it('one_time turned off on a leave trigger: only a band or missing point differs, it counts as outside', () => {
    const once = fence({ triggerId: 't1', placeId: 'p1', triggerOn: 'leave', oneTime: true });
    const s = shardWith([once], [{ userId: 'back', layers: ['L1'] }, { userId: 'band', layers: ['L1'] }]);
    s.applyPoints([pt('back', 0, 10), pt('back', 10 * S, 500), pt('back', 20 * S, 10), pt('band', 0, 10), pt('band', 10 * S, 500), pt('band', 20 * S, 110)]);
    const out = s.upsertFences([{ ...once, oneTime: false }]);
    expect(out.changes.map((c) => [c.userId, c.record?.state ?? 'outside'])).toEqual([['back', 'inside'], ['band', 'outside']]);
    expect(fires(s.applyPoints([pt('back', 30 * S, 500), pt('band', 30 * S, 500)]))).toEqual(['t1:leave@30']);
  });

  it('a user restored with a last point is released by it, as the running shard would', () => {
    const once = fence({ triggerId: 't1', placeId: 'p1', oneTime: true });
    const far = destinationPoint(C.lat, C.lon, 90, 500);
    const s = new ShardState();
    s.load({
      fences: [once],
      users: [{ userId: 'u1', layers: ['L1'], lastAt: 10 * S, lastPoint: { lat: far.lat, lon: far.lon, acc: 5 } }],
      records: [{ userId: 'u1', triggerId: 't1', placeId: 'p1', record: { state: 'firedOnce', since: 0, enteredAt: 0, history: [] } }],
    });
    expect(s.upsertFences([{ ...once, oneTime: false }]).changes).toMatchObject([{ userId: 'u1', record: null }]);
  });

  it('a trigger made recurring while the shard was down is released when the shard loads', () => {
    // The stored record is still firedOnce (the shard that would have released it was being rebuilt,
    // or the process stopped before the release was stored); the fence comes recurring.
    const recurring = fence({ triggerId: 't1', placeId: 'p1', oneTime: false });
    const s = new ShardState();
    s.load({
      fences: [recurring],
      users: [{ userId: 'u1', layers: ['L1'], lastAt: 10 * S, lastPoint: { lat: C.lat, lon: C.lon, acc: 5 } }],
      records: [{ userId: 'u1', triggerId: 't1', placeId: 'p1', record: { state: 'firedOnce', since: 0, enteredAt: 0, history: [] } }],
    });
    expect(s.inspect('u1')!.pairs.map((p) => p.record.state)).toEqual(['inside']);
    // Inside at the last point: the next entry, after leaving, fires.
    expect(fires(s.applyPoints([pt('u1', 20 * S, 500), pt('u1', 30 * S, 10)]))).toEqual(['t1:enter@30']);
  });

  it('one_time turned off never puts a user who left the layer inside: no leave fires for them', () => {
    const once = fence({ triggerId: 't1', placeId: 'p1', triggerOn: 'leave', oneTime: true });
    const s = shardWith([once], [{ userId: 'u1', layers: ['L1'] }]);
    // Inside, out (the leave fires once), back inside; then unsubscribed from the layer.
    expect(fires(s.applyPoints([pt('u1', 0, 10), pt('u1', 10 * S, 500), pt('u1', 20 * S, 10)]))).toEqual(['t1:leave@10']);
    s.setUsers([{ userId: 'u1', layers: [] }]);
    const out = s.upsertFences([{ ...once, oneTime: false }]);
    expect(out.changes).toMatchObject([{ userId: 'u1', record: null }]);
    expect(fires(s.applyPoints([pt('u1', 30 * S, 500)]))).toEqual([]);
  });

  it('removing a geofence drops its records and reports them', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1' })]);
    s.applyPoints([pt('u1', 0, 10)]);
    const out = s.removeFences(['t1:p1']);
    expect(out.changes).toEqual([{ userId: 'u1', triggerId: 't1', placeId: 'p1', record: null }]);
    expect(s.stats().records).toBe(0);
  });

  it('geofences added later apply to the next point', () => {
    const s = shardWith([]);
    expect(s.applyPoints([pt('u1', 0, 10)]).effects).toEqual([]);
    s.upsertFences([fence({ triggerId: 't1', placeId: 'p1' })]);
    expect(fires(s.applyPoints([pt('u1', 1 * S, 20)]))).toEqual(['t1:enter@1']);
  });

  it('inspect shows state, since, last point and recent transitions', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1', triggerAfterS: 10 })]);
    s.applyPoints([pt('u1', 0, 10)]);
    s.tick(10 * S);
    const v = s.inspect('u1', { triggerId: 't1' })!;
    expect(v.lastAt).toBe(0);
    expect(v.pairs[0]).toMatchObject({
      triggerId: 't1',
      placeId: 'p1',
      record: { state: 'dwelling', since: 10 * S, lastPointAt: 0, history: [{ to: 'inside' }, { to: 'dwelling', reason: 'dwell_tick' }] },
    });
    expect(s.inspect('u1', { triggerId: 'other' })!.pairs).toEqual([]);
    expect(s.inspect('nobody')).toBeNull();
  });

  it('counts machine runs: points that change nothing run none', () => {
    const s = shardWith([fence({ triggerId: 't1', placeId: 'p1' })]);
    const pts: PointInput[] = [];
    for (let i = 0; i < 100; i++) pts.push(pt('u1', i * S, i < 50 ? 30 + (i % 5) : 300 + i));
    s.applyPoints(pts);
    const st = s.stats();
    expect(st.points).toBe(100);
    expect(st.machineRuns).toBe(2); // enter, leave
  });
});

// ---- restore and oracle properties ------------------------------------------------------------

/** A small world: a few fences on two layers around C, three users. */
const worldArb = fc.record({
  fences: fc.array(
    fc.record({
      placeId: fc.constantFrom('a', 'b', 'c', 'd'),
      triggerId: fc.constantFrom('t1', 't2', 't3'),
      dx: fc.integer({ min: -250, max: 250 }),
      radius: fc.integer({ min: 50, max: 300 }),
      triggerOn: fc.constantFrom('enter' as const, 'leave' as const),
      triggerAfterS: fc.constantFrom(0, 0, 20),
      oneTime: fc.boolean(),
      rateLimitS: fc.constantFrom(0, 60, 600),
      layerId: fc.constantFrom('L1', 'L2'),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  points: fc.array(
    fc.record({
      user: fc.constantFrom('u1', 'u2', 'u3'),
      dt: fc.oneof(fc.integer({ min: -3000, max: 30_000 }), fc.constantFrom(0, 10_000, 20_000)),
      d: fc.integer({ min: 0, max: 500 }),
      bearing: fc.constantFrom(0, 45, 90, 180, 270),
      acc: fc.oneof(fc.constant(5), fc.integer({ min: 0, max: 400 })),
      tickAfter: fc.boolean(),
    }),
    { maxLength: 50 },
  ),
  split: fc.nat(),
});

type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function buildFences(w: World): Geofence[] {
  const byKey = new Map<string, Geofence>();
  for (const f of w.fences) {
    const c = destinationPoint(C.lat, C.lon, 90, f.dx);
    // A place has one position whatever trigger is on it.
    const placeShift = { a: 0, b: 60, c: -120, d: 150 }[f.placeId]!;
    const at = destinationPoint(c.lat, c.lon, 0, placeShift);
    byKey.set(fenceKey(f.triggerId, f.placeId), fence({ ...f, lat: at.lat, lon: at.lon }));
  }
  return [...byKey.values()];
}

const USERS: UserSeed[] = [
  { userId: 'u1', layers: ['L1'], timezone: 'UTC' },
  { userId: 'u2', layers: ['L1', 'L2'], timezone: 'UTC' },
  { userId: 'u3', layers: ['L2'], timezone: 'UTC' },
];

/** Steps of a world: batches of points and ticks, in order. */
function schedule(w: World): ({ kind: 'points'; points: PointInput[] } | { kind: 'tick'; now: number })[] {
  const steps: ({ kind: 'points'; points: PointInput[] } | { kind: 'tick'; now: number })[] = [];
  let t = 1_000_000;
  let batch: PointInput[] = [];
  for (const p of w.points) {
    t += p.dt;
    const at = destinationPoint(C.lat, C.lon, p.bearing, p.d);
    batch.push({ userId: p.user, at: t, lat: at.lat, lon: at.lon, acc: p.acc });
    if (p.tickAfter) {
      steps.push({ kind: 'points', points: batch }, { kind: 'tick', now: t + 5000 });
      batch = [];
    }
  }
  if (batch.length) steps.push({ kind: 'points', points: batch });
  return steps;
}

/** A persisted store as a host would keep it: records, last firing per (user, trigger), last point time. */
class MiniStore {
  records = new Map<string, RecordSeed>();
  lastFired = new Map<string, { userId: string; triggerId: string; at: number }>();
  lastAt = new Map<string, number>();
  lastPoint = new Map<string, PointInput>();
  apply(o: ShardOutput, points: PointInput[] = []): void {
    for (const c of o.changes) {
      const k = `${c.userId}|${c.triggerId}|${c.placeId}`;
      if (c.record === null) this.records.delete(k);
      else this.records.set(k, { userId: c.userId, triggerId: c.triggerId, placeId: c.placeId, record: c.record });
    }
    for (const e of o.effects) if (e.type === 'FIRE') this.lastFired.set(`${e.userId}|${e.triggerId}`, { userId: e.userId, triggerId: e.triggerId, at: e.at });
    for (const p of points) this.lastAt.set(p.userId, Math.max(this.lastAt.get(p.userId) ?? -Infinity, p.at));
    for (const p of points) if (p.at >= (this.lastPoint.get(p.userId)?.at ?? -Infinity)) this.lastPoint.set(p.userId, p);
  }
}

describe('ShardState properties', () => {
  it('a shard restored from persisted changes continues exactly like the one that kept running', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const fences = buildFences(w);
        const steps = schedule(w);
        const cut = steps.length === 0 ? 0 : w.split % (steps.length + 1);
        const live = shardWith(fences, USERS);
        const store = new MiniStore();
        const run = (s: ShardState, st: (typeof steps)[number]) => (st.kind === 'points' ? s.applyPoints(st.points) : s.tick(st.now));
        for (const st of steps.slice(0, cut)) store.apply(run(live, st), st.kind === 'points' ? st.points : []);
        const restored = new ShardState();
        restored.load({
          fences,
          users: USERS.map((u) => {
            const p = store.lastPoint.get(u.userId);
            return { ...u, lastAt: store.lastAt.get(u.userId), ...(p ? { lastPoint: { lat: p.lat, lon: p.lon, acc: p.acc ?? NaN } } : {}) };
          }),
          records: [...store.records.values()],
          lastFired: [...store.lastFired.values()],
        });
        // Which spent one-time pairs the user is inside of is not persisted: the restored shard
        // judges it from the last point, which records no gated one_time_spent firing the live
        // shard does not (a band or unusable last point may cost one); the rest is exactly equal.
        const spent = (e: ShardOutput['effects'][number]) => e.type === 'SUPPRESSED' && e.reason === 'one_time_spent';
        const liveSpent: unknown[] = [];
        const restoredSpent: unknown[] = [];
        for (const st of steps.slice(cut)) {
          const a = run(restored, st);
          const b = run(live, st);
          expect({ ...a, effects: a.effects.filter((e) => !spent(e)) }).toEqual({ ...b, effects: b.effects.filter((e) => !spent(e)) });
          restoredSpent.push(...a.effects.filter(spent));
          liveSpent.push(...b.effects.filter(spent));
        }
        let k = 0;
        for (const e of liveSpent) if (k < restoredSpent.length && isDeepStrictEqual(e, restoredSpent[k])) k++;
        expect(k).toBe(restoredSpent.length);
      }),
      { numRuns: 300 },
    );
  });

  it('index + nearby cache give exactly what testing every geofence of the user gives (brute force)', () => {
    fc.assert(
      fc.property(worldArb, fc.constantFrom(1, 50, 250, 5000), (w, nearby) => {
        const fences = buildFences(w);
        const s = new ShardState({ nearbyHalfSizeM: nearby });
        s.load({ fences, users: USERS });
        const oracle = new BruteForce(fences, USERS);
        for (const st of schedule(w)) {
          if (st.kind === 'points') expect(s.applyPoints(st.points)).toEqual(oracle.points(st.points));
          // Users are independent: a tick may serve them in any order, each user's own order is what counts.
          else expect(byUser(s.tick(st.now))).toEqual(byUser(oracle.tick(st.now)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

function byUser(o: ShardOutput): ShardOutput {
  const cmp = (a: { userId: string }, b: { userId: string }) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
  return { effects: [...o.effects].sort(cmp), changes: [...o.changes].sort(cmp) };
}

/** The shard rules written the slow, obvious way: every point against every member geofence. */
class BruteForce {
  private recs = new Map<string, Map<string, PairRecord>>();
  private last = new Map<string, PointInput>();
  private fired = new Map<string, number>();
  /** Per user, the spent one-time pairs they are inside of. */
  private spentIn = new Map<string, Set<string>>();
  constructor(
    private fences: Geofence[],
    private users: UserSeed[],
  ) {
    this.fences = [...fences].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  private mine(u: string) {
    let m = this.recs.get(u);
    if (!m) this.recs.set(u, (m = new Map()));
    return m;
  }
  private run(userId: string, f: Geofence, ev: StepEvent, point: number | undefined, out: ShardOutput, from: number) {
    const m = this.mine(userId);
    const rec = m.get(f.key);
    const tz = this.users.find((u) => u.userId === userId)!.timezone ?? 'UTC';
    const res = step(rec, f, ev, (rule, at) => ({
      window: windowGate(f.window, at, tz),
      lastFiredAt: this.fired.get(`${userId}|${rule.triggerId}`) ?? null,
    }));
    if (res.record !== rec) {
      if (res.record) m.set(f.key, res.record);
      else m.delete(f.key);
      // A firing that spent the pair with the user in it (an in-point or a tick) leaves them inside it.
      const spentIn = this.spentIn.get(userId) ?? this.spentIn.set(userId, new Set()).get(userId)!;
      if (res.record?.state === 'firedOnce' && rec?.state !== 'firedOnce' && (ev.type === 'TICK' || ev.zone === 'in')) spentIn.add(f.key);
      else if (res.record?.state !== 'firedOnce') spentIn.delete(f.key);
      out.changes.push({ userId, triggerId: f.triggerId, placeId: f.placeId, record: res.record ?? null, ...(res.transition ? { transition: res.transition } : {}) });
    }
    for (const e of res.effects) {
      if (e.type === 'FIRE') this.fired.set(`${userId}|${e.triggerId}`, e.at);
      if (e.type === 'VISIT' && out.effects.slice(from).some((x) => x.type === 'VISIT' && x.placeId === e.placeId && x.userId === userId && x.at === e.at)) continue;
      out.effects.push(point === undefined ? { ...e, userId } : { ...e, userId, point });
    }
  }
  private due(userId: string, upTo: number, out: ShardOutput) {
    for (;;) {
      const m = this.mine(userId);
      const cands = this.fences.filter((f) => (m.get(f.key)?.deadline ?? Infinity) <= upTo);
      if (cands.length === 0) return;
      cands.sort((a, b) => m.get(a.key)!.deadline! - m.get(b.key)!.deadline! || (a.key < b.key ? -1 : 1));
      const f = cands[0]!;
      this.run(userId, f, { type: 'TICK', at: m.get(f.key)!.deadline! }, undefined, out, out.effects.length);
    }
  }
  points(points: PointInput[]): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    const order = points.map((p, i) => ({ p, i }));
    const firstSeen = [...new Set(points.map((p) => p.userId))];
    order.sort((a, b) => firstSeen.indexOf(a.p.userId) - firstSeen.indexOf(b.p.userId) || a.p.at - b.p.at || a.i - b.i);
    for (const { p, i } of order) {
      // Older than the last applied point, or that point again, moves nothing; as old elsewhere is applied.
      const last = this.last.get(p.userId);
      if (last && (p.at < last.at || (p.at === last.at && p.lat === last.lat && p.lon === last.lon && p.acc === last.acc))) continue;
      this.due(p.userId, p.at, out);
      this.last.set(p.userId, p);
      const from = out.effects.length;
      const layers = this.users.find((u) => u.userId === p.userId)!.layers;
      const m = this.mine(p.userId);
      const zone = (f: Geofence) => classifyZone(haversineM(p.lat, p.lon, f.lat, f.lon), f.radius, p.acc, undefined);
      // A spent one-time pair entered again (an enter or dwell trigger) or left again (a leave
      // trigger): gated, the pair stays spent. Band and unusable points change nothing.
      const spentIn = this.spentIn.get(p.userId) ?? this.spentIn.set(p.userId, new Set()).get(p.userId)!;
      const spent = (f: Geofence, z: 'in' | 'out') => {
        if (f.triggerOn === 'enter' ? z === 'out' : z === 'in') return;
        const dwell = f.triggerOn === 'enter' && f.triggerAfterS > 0;
        out.effects.push({ type: 'SUPPRESSED', reason: 'one_time_spent', userId: p.userId, point: i, triggerId: f.triggerId, placeId: f.placeId, triggeredOn: f.triggerOn, delaySeconds: dwell ? f.triggerAfterS : 0, at: p.at });
      };
      // Active pairs first, then the spent pairs the user may leave, then new entries (and spent
      // pairs entered again), each in key order.
      const active = this.fences.filter((f) => m.has(f.key) && m.get(f.key)!.state !== 'firedOnce');
      for (const f of active) {
        const rec = m.get(f.key);
        if (rec && p.at >= rec.since) this.run(p.userId, f, { type: 'POINT', at: p.at, zone: zone(f) }, i, out, from);
      }
      for (const f of this.fences) {
        if (!spentIn.has(f.key)) continue;
        const rec = m.get(f.key);
        if (rec?.state !== 'firedOnce' || !layers.includes(f.layerId)) spentIn.delete(f.key);
        else if (p.at >= rec.since && zone(f) === 'out') {
          spentIn.delete(f.key);
          spent(f, 'out');
        }
      }
      for (const f of this.fences) {
        if (!layers.includes(f.layerId)) continue;
        const rec = m.get(f.key);
        if (rec?.state === 'firedOnce') {
          if (p.at >= rec.since && !spentIn.has(f.key) && zone(f) === 'in') {
            spentIn.add(f.key);
            spent(f, 'in');
          }
        } else if (rec === undefined) this.run(p.userId, f, { type: 'POINT', at: p.at, zone: zone(f) }, i, out, from);
      }
    }
    return out;
  }
  tick(now: number): ShardOutput {
    const out: ShardOutput = { effects: [], changes: [] };
    for (const u of this.users) this.due(u.userId, now, out);
    return out;
  }
}
