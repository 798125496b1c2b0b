// The engine's persisted machine records (src/engine/state-store.ts) on the real embedded store:
// a batch is written as each pair ended it, pairs back outside are removed, and the point that last
// moved a pair survives changes that carry none (dwell deadlines), also across a reopen.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordChange } from '../../workers/protocol.js';
import type { PairRecord } from '../../machines/types.js';
import { MachineStates, type LastPoint } from '../../src/engine/state-store.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, type EngineHarness } from '../store/engines.js';

const rec = (state: PairRecord['state'], over: Partial<PairRecord> = {}): PairRecord => ({ state, since: 1, enteredAt: 1, history: [], ...over });
const change = (userId: string, record: PairRecord | null, placeId = 'p1'): RecordChange => ({ userId, triggerId: 't1', placeId, record });
const pt = (date: number): LastPoint => ({ date, latitude: 45, longitude: -122, horizontal_accuracy: 5 });

describe('MachineStates.apply', () => {
  let h: EngineHarness;
  let store: Store;
  let states: MachineStates;
  const appOf = (u: string) => (u === 'ghost' ? undefined : 'app-1');
  const doc = async (u: string, placeId = 'p1') => {
    const m = (await store.machines.ofUser('app-1', u)).find((d) => d.place_id === placeId);
    return m ? { ...m, state: m.record.state, deadline: m.record.deadline } : null;
  };

  beforeEach(async () => {
    h = await embeddedHarness();
    store = await h.open();
    states = new MachineStates(store);
  });
  afterEach(() => h.destroy());

  it('writes each pair as the batch left it: entered and left again is nothing, moved twice is the last record', async () => {
    const points = new Map<RecordChange, LastPoint>();
    const a1 = change('a', rec('inside', { lastPointAt: 10 }));
    const a2 = change('a', null);
    const b1 = change('b', rec('inside', { lastPointAt: 10, deadline: 500 }));
    const b2 = change('b', rec('dwelling', { lastPointAt: 20 }));
    points.set(a1, pt(10)).set(b1, pt(10)).set(b2, pt(20));
    await states.apply(appOf, [a1, b1, a2, b2, change('ghost', rec('inside'))], (c) => points.get(c), 1_000);
    expect(await doc('a')).toBeNull();
    expect(await doc('ghost')).toBeNull();
    const b = await doc('b');
    expect(b).toMatchObject({ app_id: 'app-1', user_id: 'b', trigger_id: 't1', place_id: 'p1', state: 'dwelling', last_point: pt(20), updated_at: 1_000 });
    expect(b?.deadline).toBeUndefined();
    expect(await store.machines.seeds()).toHaveLength(1);
  });

  it('keeps the last point through changes without one, and a point of an earlier change in the same batch', async () => {
    await states.apply(appOf, [change('c', rec('inside', { lastPointAt: 5 }))], () => pt(5), 100);
    // A dwell deadline set by a tick: no point of its own.
    await states.apply(appOf, [change('c', rec('inside', { deadline: 900 }))], () => undefined, 200);
    expect(await doc('c')).toMatchObject({ state: 'inside', deadline: 900, last_point: pt(5), updated_at: 200 });
    // Inside the same batch: a point, then a change without one.
    const withPoint = change('c', rec('inside', { lastPointAt: 7 }));
    await states.apply(appOf, [withPoint, change('c', rec('dwelling'))], (c) => (c === withPoint ? pt(7) : undefined), 300);
    const c = await doc('c');
    expect(c).toMatchObject({ state: 'dwelling', last_point: pt(7), updated_at: 300 });
    expect(c?.deadline).toBeUndefined();
    // A new pair whose first change has no point is stored too.
    await states.apply(appOf, [change('d', rec('firedOnce'), 'p2')], () => undefined, 400);
    expect(await doc('d', 'p2')).toMatchObject({ state: 'firedOnce', updated_at: 400 });
    store = await h.reopen();
    states = new MachineStates(store);
    const seeds = await states.seeds();
    expect(seeds.map((s) => [s.userId, s.record.state]).sort()).toEqual([['c', 'dwelling'], ['d', 'firedOnce']]);
    expect((await doc('c'))?.last_point).toEqual(pt(7));
  });
});
