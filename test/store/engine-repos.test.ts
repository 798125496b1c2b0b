// The contract of the engine's typed repositories (points, last locations, machines, the decision
// timeline): what the engine, the services and retention rely on, checked against the embedded
// engine always and against MongoDB whenever MONGODB_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineRow, PointRow, TimelineRow } from '../../src/store/documents.js';
import { newId } from '../../src/store/ids.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const T = Date.UTC(2026, 4, 4, 12);

function point(appId: string, userId: string, at: number, over: Partial<PointRow> = {}): PointRow {
  return {
    app_id: appId, user_id: userId, uuid: newId(), own_uuid: false, date: at, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10,
    speed: null, altitude: null, heading: null, vertical_accuracy: null, raw: null, client: null, received_at: at + 5, ...over,
  };
}

function machine(appId: string, userId: string, placeId: string, over: Partial<MachineRow> = {}): MachineRow {
  return {
    app_id: appId, user_id: userId, trigger_id: 't1', place_id: placeId, state: 'inside', since: T, entered_at: T, deadline: null, last_point_at: T,
    transitions: JSON.stringify([{ from: 'outside', to: 'inside', at: T, reason: 'enter', outcome: 'fired' }]),
    point: { date: T, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 }, updated_at: T, ...over,
  };
}

function entry(appId: string, userId: string, at: number, over: Partial<TimelineRow> = {}): TimelineRow {
  return {
    app_id: appId, user_id: userId, trigger_id: 't1', place_id: 'p1', layer_id: 'L', kind: 'point', event: null, from: 'outside', to: 'outside',
    gate: null, note: 'band', point_date: at, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 8, zone: 'band', distance_m: 104.2,
    firing_id: null, at, received_at: at + 3, ...over,
  };
}

function contract(makeHarness: () => Promise<EngineHarness>) {
  let h: EngineHarness;
  let store: Store;
  // Fresh ids per run: a MongoDB database may be shared by the suites of one run.
  const A = `appA_${newId()}`;
  const B = `appB_${newId()}`;
  const u = () => `u_${newId()}`;

  beforeAll(async () => {
    h = await makeHarness();
    store = await h.open();
  });
  afterAll(async () => {
    await h?.destroy();
  });

  describe('location history', () => {
    it('reads a user\'s newest points first, the oldest in time order, within a range, each field as stored', async () => {
      const user = u();
      const full = point(A, user, T + 2000, {
        speed: 3.5, altitude: 20, heading: 90, vertical_accuracy: 4, raw: '{"battery":80,"nested":{"a":[1,2]}}', client: '{"name":"sdk"}', own_uuid: true,
      });
      await store.locations.add([point(A, user, T), point(A, user, T + 1000, { latitude: 45.6 }), full, point(A, u(), T + 1500)]);
      const newest = await store.locations.newest(A, user, {}, 10);
      expect(newest.map((p) => p.date)).toEqual([T + 2000, T + 1000, T]);
      expect(newest[0]).toEqual({
        _id: expect.any(String), app_id: A, user_id: user, uuid: full.uuid, date: T + 2000, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10,
        speed: 3.5, altitude: 20, heading: 90, vertical_accuracy: 4, raw: { battery: 80, nested: { a: [1, 2] } }, client: { name: 'sdk' }, received_at: T + 2005,
      });
      expect(newest[2]).toEqual({
        _id: expect.any(String), app_id: A, user_id: user, uuid: expect.any(String), date: T, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10, raw: null, received_at: T + 5,
      });
      expect((await store.locations.newest(A, user, {}, 2)).map((p) => p.date)).toEqual([T + 2000, T + 1000]);
      expect((await store.locations.oldest(A, user, {}, 2)).map((p) => p.date)).toEqual([T, T + 1000]);
      // Both bounds exclusive.
      expect((await store.locations.newest(A, user, { after: T, before: T + 2000 }, 10)).map((p) => p.date)).toEqual([T + 1000]);
      expect((await store.locations.oldest(A, user, { after: T }, 10)).map((p) => p.date)).toEqual([T + 1000, T + 2000]);
      // Another application's view of the user: nothing.
      expect(await store.locations.newest(B, user, {}, 10)).toEqual([]);
    });

    it('drops a repeat of a stored point: the same time and position, or the same uuid the phone sent', async () => {
      const user = u();
      const p = point(A, user, T, { own_uuid: true });
      await store.locations.add([p, point(A, user, T + 1000)]);
      // A batch sent again after a timeout (new server-made uuids), a uuid sent again with other
      // values, and in one call a point and its repeat.
      await store.locations.add([{ ...p, uuid: newId(), own_uuid: false }, point(A, user, T + 1000)]);
      await store.locations.add([point(A, user, T + 5000, { uuid: p.uuid, own_uuid: true, latitude: 10 })]);
      const twice = point(A, user, T + 9000);
      await store.locations.add([twice, { ...twice, uuid: newId() }]);
      expect((await store.locations.newest(A, user, {}, 10)).map((d) => d.date)).toEqual([T + 9000, T + 1000, T]);
      // Another position, accuracy or user at the same time is a point of its own; so is a uuid the service made.
      await store.locations.add([point(A, user, T, { latitude: 45.51 }), point(A, user, T, { horizontal_accuracy: 11 }), point(A, u(), T, { uuid: p.uuid, own_uuid: true })]);
      await store.locations.add([point(A, user, T + 7000, { uuid: twice.uuid })]);
      expect(await store.locations.newest(A, user, {}, 10)).toHaveLength(6);
    });

    it('removes the points named, the user\'s, the application\'s; never another user\'s', async () => {
      const [x, y] = [u(), u()];
      await store.locations.add([point(A, x, T), point(A, x, T + 1), point(A, x, T + 2), point(A, y, T)]);
      const ids = (await store.locations.newest(A, x, {}, 10)).map((d) => d._id);
      expect(await store.locations.remove(B, x, ids)).toBe(0);
      const ofY = (await store.locations.newest(A, y, {}, 10)).map((d) => d._id);
      expect(await store.locations.remove(A, x, [ids[0]!, ofY[0]!, 'nope', '123456789'])).toBe(1);
      expect((await store.locations.newest(A, x, {}, 10)).map((d) => d._id)).toEqual(ids.slice(1));
      await store.locations.removeUser(A, x);
      expect(await store.locations.newest(A, x, {}, 10)).toEqual([]);
      expect(await store.locations.newest(A, y, {}, 10)).toHaveLength(1);
      const z = u();
      await store.locations.add([point(B, z, T)]);
      await store.locations.removeForApp(A);
      expect(await store.locations.newest(A, y, {}, 10)).toEqual([]);
      expect(await store.locations.newest(B, z, {}, 10)).toHaveLength(1);
    });

    it('retention removes what is dated before the cutoff, at most about as many as asked per call', async () => {
      const user = u();
      const DAY = 86_400_000;
      await store.locations.add(Array.from({ length: 30 }, (_, i) => point(B, user, T - (40 - i) * DAY)));
      await store.locations.add([point(B, user, T), point(B, user, T + 1)]);
      let removed = 0;
      for (let i = 0; i < 20; i++) {
        const n = await store.locations.removeDatedBefore(T - 5 * DAY, 8);
        expect(n).toBeLessThanOrEqual(16);
        removed += n;
        if (n === 0) break;
      }
      expect(removed).toBe(30);
      expect((await store.locations.newest(B, user, {}, 100)).map((d) => d.date)).toEqual([T + 1, T]);
    });
  });

  describe('last locations', () => {
    const dates = async (appId: string, userId: string) => (await store.lastLocations.of(appId, userId))?.date;

    it('keeps the newest point of each user, whatever order batches come in', async () => {
      const [x, y] = [u(), u()];
      await store.lastLocations.save([point(A, x, T + 1000), point(A, y, T), point(A, x, T + 500)]);
      expect(await dates(A, x)).toBe(T + 1000);
      await store.lastLocations.save([point(A, x, T + 200)]);
      expect(await dates(A, x)).toBe(T + 1000);
      await store.lastLocations.save([point(A, x, T + 3000), point(A, y, T + 10)]);
      expect(await dates(A, x)).toBe(T + 3000);
      expect(await dates(A, y)).toBe(T + 10);
      expect(await store.lastLocations.of(B, x)).toBeNull();
    });

    it('as old: the same point sent again stays as it was, one from elsewhere replaces it, optional fields with it', async () => {
      const x = u();
      const first = point(A, x, T, { speed: 4, client: '{"a":1}', raw: '{"r":1}' });
      await store.lastLocations.save([first]);
      await store.lastLocations.save([{ ...first, uuid: newId(), received_at: T + 99 }]);
      expect(await store.lastLocations.of(A, x)).toMatchObject({ uuid: first.uuid, received_at: first.received_at, speed: 4 });
      const moved = point(A, x, T, { latitude: 45.7 });
      await store.lastLocations.save([moved]);
      const last = await store.lastLocations.of(A, x);
      expect(last).toEqual({
        _id: x, app_id: A, user_id: x, uuid: moved.uuid, date: T, latitude: 45.7, longitude: -122.6, horizontal_accuracy: 10, raw: null, received_at: T + 5,
      });
      // Of several points of one time in a batch, the later one.
      const a = point(A, x, T + 50, { latitude: 1 });
      await store.lastLocations.save([a, { ...a, latitude: 2, uuid: newId() }]);
      expect((await store.lastLocations.of(A, x))?.latitude).toBe(2);
    });

    it('reads several users, an application\'s users by id, the seeds; removes a user\'s and an application\'s', async () => {
      const app = `app_${newId()}`;
      const [x, y, z] = [`a${newId()}`, `b${newId()}`, `c${newId()}`].sort();
      await store.lastLocations.save([point(app, x!, T), point(app, y!, T + 1), point(app, z!, T + 2, { horizontal_accuracy: 33 }), point(B, `o${newId()}`, T)]);
      expect((await store.lastLocations.ofUsers(app, [z!, x!, 'nobody', z!])).map((d) => d.user_id).sort()).toEqual([x, z].sort());
      expect((await store.lastLocations.ofApp(app, 10)).map((d) => d.user_id)).toEqual([x, y, z]);
      expect((await store.lastLocations.ofApp(app, 2)).map((d) => d.user_id)).toEqual([x, y]);
      expect((await store.lastLocations.seeds()).find((s) => s.user_id === z)).toEqual({ user_id: z, date: T + 2, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 33 });
      await store.lastLocations.removeUser(B, x!);
      await store.lastLocations.removeUser(app, y!);
      expect((await store.lastLocations.ofApp(app, 10)).map((d) => d.user_id)).toEqual([x, z]);
      await store.lastLocations.removeForApp(app);
      expect(await store.lastLocations.ofApp(app, 10)).toEqual([]);
    });
  });

  describe('machines', () => {
    it('writes each pair as a batch left it, keeps the stored point through changes without one, reads the record back whole', async () => {
      const [x, y] = [u(), u()];
      await store.machines.apply([
        machine(A, x, 'p1'),
        machine(A, y, 'p1'),
        machine(A, y, 'p1', { state: null }),
        machine(A, x, 'p2', { deadline: T + 30_000 }),
      ]);
      // A tick moves p2 without a point: its deadline goes, its point stays.
      await store.machines.apply([machine(A, x, 'p2', { state: 'dwelling', since: T + 30_000, point: null, updated_at: T + 30_000 })]);
      const mine = await store.machines.ofUser(A, x);
      expect(mine.map((m) => m.place_id)).toEqual(['p2', 'p1']);
      expect(mine[0]).toEqual({
        app_id: A, user_id: x, trigger_id: 't1', place_id: 'p2', updated_at: T + 30_000,
        record: { state: 'dwelling', since: T + 30_000, enteredAt: T, lastPointAt: T, history: [{ from: 'outside', to: 'inside', at: T, reason: 'enter', outcome: 'fired' }] },
        last_point: { date: T, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 },
      });
      expect(await store.machines.ofUser(A, y)).toEqual([]);
      expect(await store.machines.ofUser(B, x)).toEqual([]);
      const seed = (await store.machines.seeds()).find((s) => s.user_id === x && s.place_id === 'p1');
      expect(seed?.record).toEqual({ state: 'inside', since: T, enteredAt: T, lastPointAt: T, history: [{ from: 'outside', to: 'inside', at: T, reason: 'enter', outcome: 'fired' }] });
    });

    it('in one batch: the last change of a pair, with the newest point that moved it', async () => {
      const x = u();
      const p = { date: T + 5, latitude: 1, longitude: 2, horizontal_accuracy: 3 };
      await store.machines.apply([machine(A, x, 'p1', { point: p }), machine(A, x, 'p1', { state: 'dwelling', point: null, deadline: T + 9 })]);
      const [m] = await store.machines.ofUser(A, x);
      expect(m).toMatchObject({ record: { state: 'dwelling', deadline: T + 9 }, last_point: p });
    });

    it('finds a trigger\'s machines (by user, by place, the last moved first, at most as many as asked), who is inside, who has one', async () => {
      const app = `app_${newId()}`;
      const [x, y] = [u(), u()];
      await store.machines.apply([
        machine(app, x, 'p1', { updated_at: 1 }),
        machine(app, y, 'p1', { updated_at: 3, state: 'firedOnce' }),
        machine(app, x, 'p2', { updated_at: 2, state: 'dwelling', entered_at: T - 5 }),
        machine(app, y, 'p3', { updated_at: 4, trigger_id: 't2' }),
      ]);
      const pairs = (ms: Array<{ user_id: string; place_id: string }>) => ms.map((m) => `${m.user_id === x ? 'x' : 'y'}:${m.place_id}`);
      expect(pairs(await store.machines.ofTrigger(app, 't1', {}, 10))).toEqual(['y:p1', 'x:p2', 'x:p1']);
      expect(pairs(await store.machines.ofTrigger(app, 't1', {}, 2))).toEqual(['y:p1', 'x:p2']);
      expect(pairs(await store.machines.ofTrigger(app, 't1', { user_id: x }, 10))).toEqual(['x:p2', 'x:p1']);
      expect(pairs(await store.machines.ofTrigger(app, 't1', { place_id: 'p1' }, 10))).toEqual(['y:p1', 'x:p1']);
      expect(pairs(await store.machines.ofTrigger(app, 't1', { user_id: y, place_id: 'p1' }, 10))).toEqual(['y:p1']);
      expect(await store.machines.ofTrigger(B, 't1', {}, 10)).toEqual([]);
      const inside = await store.machines.insideOf(app, ['p1', 'p2', 'p3', 'p1']);
      expect(inside.map((p) => [p.user_id === x ? 'x' : 'y', p.place_id, p.entered_at]).sort()).toEqual([['x', 'p1', T], ['x', 'p2', T - 5], ['y', 'p3', T]]);
      expect(await store.machines.insideOf(B, ['p1'])).toEqual([]);
      const withOne = (await store.machines.usersOf('t1', 'p1')).filter((m) => m.app_id === app);
      expect(withOne.map((m) => m.user_id).sort()).toEqual([x, y].sort());
    });

    it('removes a trigger\'s, a place\'s, a user\'s, an application\'s machines', async () => {
      const app = `app_${newId()}`;
      const [x, y] = [u(), u()];
      const trig = `t_${newId()}`;
      const place = `p_${newId()}`;
      await store.machines.apply([
        machine(app, x, 'p1', { trigger_id: trig }), machine(app, x, place), machine(app, y, 'p1'), machine(app, y, 'p2'), machine(B, u(), 'p9'),
      ]);
      const left = async () => (await Promise.all([x, y].map((id) => store.machines.ofUser(app, id)))).flat().map((m) => `${m.user_id === x ? 'x' : 'y'}:${m.trigger_id === trig ? 'T' : 't'}:${m.place_id === place ? 'P' : m.place_id}`).sort();
      await store.machines.removeTrigger(trig);
      expect(await left()).toEqual(['x:t:P', 'y:t:p1', 'y:t:p2']);
      await store.machines.removePlace(place);
      expect(await left()).toEqual(['y:t:p1', 'y:t:p2']);
      await store.machines.removeUser(y);
      expect(await left()).toEqual([]);
      await store.machines.apply([machine(app, x, 'p1')]);
      await store.machines.removeForApp(app);
      expect(await left()).toEqual([]);
      expect(await store.machines.insideOf(B, ['p9'])).toHaveLength(1);
    });
  });

  describe('timeline', () => {
    const page = { offset: 0, limit: 100 };

    it('lists a user\'s entries newest first (ties: the later written first), with ids that sort by time, each field as stored', async () => {
      const user = u();
      const fired = entry(A, user, T + 10, {
        kind: 'fired', event: 'enter', from: 'outside', to: 'inside', note: null, zone: 'in', distance_m: 12.3, firing_id: 'f1',
      });
      const tick = entry(A, user, T + 20, { kind: 'fired', event: 'dwell', from: 'inside', to: 'dwelling', note: null, point_date: null, latitude: null, longitude: null, horizontal_accuracy: null, zone: null, distance_m: null });
      await store.timeline.add([entry(A, user, T), fired, entry(A, user, T + 10, { note: 'unusable_accuracy', horizontal_accuracy: null }), tick]);
      // A stale point's entry, written after the others, dated before them.
      await store.timeline.add([entry(A, user, T - 5, { note: 'stale_point' })]);
      const { entries, total } = await store.timeline.ofUser(A, user, {}, page);
      expect(total).toBe(5);
      expect(entries.map((e) => [e.at, e.note ?? e.event])).toEqual([[T + 20, 'dwell'], [T + 10, 'unusable_accuracy'], [T + 10, 'enter'], [T, 'band'], [T - 5, 'stale_point']]);
      const ids = entries.map((e) => e._id);
      expect([...ids].sort().reverse()).toEqual(ids);
      expect(new Set(ids).size).toBe(5);
      expect(entries[2]).toEqual({
        _id: expect.any(String), app_id: A, user_id: user, trigger_id: 't1', place_id: 'p1', layer_id: 'L', kind: 'fired', event: 'enter', from: 'outside',
        to: 'inside', gate: null, note: null, point: { date: T + 10, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 8 }, zone: 'in',
        distance_m: 12.3, firing_id: 'f1', at: T + 10, received_at: T + 13,
      });
      expect(entries[0]).toMatchObject({ point: null, zone: null, distance_m: null });
      expect(entries[1]!.point).toEqual({ date: T + 10, latitude: 45.5, longitude: -122.6, horizontal_accuracy: null });
      expect(await store.timeline.ofUser(B, user, {}, page)).toEqual({ entries: [], total: 0 });
    });

    it('keeps a shaped place\'s boundary measure with its entry, and none for a circle', async () => {
      const user = u();
      const boundary = { shape: 'corridor' as const, outside_m: -3.5, margin_m: 20 };
      await store.timeline.add([entry(A, user, T, { boundary }), entry(A, user, T + 1)]);
      const { entries } = await store.timeline.ofUser(A, user, {}, page);
      expect(entries[1]!.boundary).toEqual(boundary);
      expect(entries[0]).not.toHaveProperty('boundary');
    });

    it('filters by trigger, place and time, and pages', async () => {
      const user = u();
      const rows: TimelineRow[] = [];
      for (let i = 0; i < 12; i++) rows.push(entry(A, user, T + i * 1000, { trigger_id: i % 2 === 0 ? 'tA' : 'tB', place_id: i % 3 === 0 ? 'pA' : 'pB', distance_m: i }));
      await store.timeline.add(rows);
      const list = async (f: object, p = page) => {
        const r = await store.timeline.ofUser(A, user, f, p);
        return { n: r.entries.map((e) => e.distance_m), total: r.total };
      };
      expect(await list({ trigger_id: 'tA' })).toEqual({ n: [10, 8, 6, 4, 2, 0], total: 6 });
      expect(await list({ place_id: 'pA' })).toEqual({ n: [9, 6, 3, 0], total: 4 });
      expect(await list({ trigger_id: 'tA', place_id: 'pA' })).toEqual({ n: [6, 0], total: 2 });
      expect(await list({ after: T + 3000, before: T + 7000 })).toEqual({ n: [6, 5, 4], total: 3 });
      expect(await list({}, { offset: 2, limit: 3 })).toEqual({ n: [9, 8, 7], total: 12 });
      expect(await list({ trigger_id: 'tB' }, { offset: 5, limit: 3 })).toEqual({ n: [1], total: 6 });
      expect(await list({}, { offset: 50, limit: 3 })).toEqual({ n: [], total: 12 });
    });

    it('gives a user\'s newest entries of one trigger, keeps a pair to its newest entries, removes a user\'s and an application\'s', async () => {
      const [x, y] = [u(), u()];
      await store.timeline.add([
        ...Array.from({ length: 6 }, (_, i) => entry(A, x, T + i, { distance_m: i })),
        entry(A, x, T + 100, { place_id: 'p2', distance_m: 100 }),
        entry(A, x, T + 200, { trigger_id: 't2', distance_m: 200 }),
        entry(A, y, T, { distance_m: 7 }),
      ]);
      expect((await store.timeline.ofUserTrigger(A, x, 't1', 3)).map((e) => e.distance_m)).toEqual([100, 5, 4]);
      expect(await store.timeline.ofUserTrigger(B, x, 't1', 3)).toEqual([]);
      await store.timeline.trimPair({ user_id: x, trigger_id: 't1', place_id: 'p1' }, 2);
      expect((await store.timeline.ofUser(A, x, {}, page)).entries.map((e) => e.distance_m)).toEqual([200, 100, 5, 4]);
      await store.timeline.removeUser(x);
      expect((await store.timeline.ofUser(A, x, {}, page)).total).toBe(0);
      expect((await store.timeline.ofUser(A, y, {}, page)).total).toBe(1);
      const z = u();
      await store.timeline.add([entry(B, z, T)]);
      await store.timeline.removeForApp(A);
      expect((await store.timeline.ofUser(A, y, {}, page)).total).toBe(0);
      expect((await store.timeline.ofUser(B, z, {}, page)).total).toBe(1);
    });

    it('retention removes what is dated before the cutoff', async () => {
      const user = u();
      const DAY = 86_400_000;
      await store.timeline.add(Array.from({ length: 25 }, (_, i) => entry(B, user, T - (40 - i) * DAY)));
      await store.timeline.add([entry(B, user, T)]);
      let removed = 0;
      for (let i = 0; i < 20; i++) {
        const n = await store.timeline.removeDatedBefore(T - 5 * DAY, 10);
        removed += n;
        if (n === 0) break;
      }
      expect(removed).toBe(25);
      expect((await store.timeline.ofUser(B, user, {}, page)).entries.map((e) => e.at)).toEqual([T]);
    });
  });
}

describe('engine repositories: embedded (SQLite)', () => {
  contract(() => embeddedHarness());
});

describe.skipIf(!process.env.MONGODB_URL)('engine repositories: MongoDB', () => {
  contract(() => mongoHarness(process.env.MONGODB_URL!));
});
