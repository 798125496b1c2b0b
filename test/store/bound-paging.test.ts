// Offsets and limits are parameters of prepared statements, never part of a statement's text: a
// client paging through 2,000 different offsets makes the embedded store prepare nothing new (it
// once made a statement per offset, and kept each one).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/store/ids.js';
import type { SqliteEngine } from '../../src/store/sqlite/engine.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, type EngineHarness } from './engines.js';
import { userDoc } from './docs.js';

describe('paging on the embedded store', () => {
  let h: EngineHarness;
  let store: Store;
  const A = newId();
  beforeAll(async () => {
    h = await embeddedHarness();
    store = await h.open();
    for (let i = 0; i < 5; i++) await store.users.insert(userDoc(A, `u${i}`, { created_at: i }));
    for (let i = 0; i < 5; i++) await store.messages.insert({ _id: newId(), app_id: A, user_id: 'u', text: 't', url: '', date: i });
  });
  afterAll(async () => {
    await h?.destroy();
  });

  it('prepares no statement for 2,000 different offsets and limits', async () => {
    // One page first: anything prepared on first use is prepared by then.
    await store.users.page(A, { offset: 0, limit: 1 });
    await store.messages.page(A, 'u', { offset: 0, limit: 1 });
    await store.places.pageOnLayer(A, 'L', 'named', 'visits', { offset: 0, limit: 1 });
    const prepare = vi.spyOn((store.engine as SqliteEngine).db, 'prepare');
    try {
      for (let offset = 1; offset <= 2_000; offset++) {
        const users = await store.users.page(A, { offset, limit: offset % 7 + 1 });
        expect(users.total).toBe(5);
        await store.messages.page(A, 'u', { offset, limit: offset % 5 + 1 });
        await store.places.pageOnLayer(A, 'L', 'named', 'visits', { offset, limit: 3 });
      }
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
    }
    expect((await store.users.page(A, { offset: 3, limit: 1 })).items.map((u) => u.created_at)).toEqual([3]);
    expect((await store.messages.page(A, 'u', { offset: 3, limit: 1 })).items.map((m) => m.date)).toEqual([1]);
  });
});
