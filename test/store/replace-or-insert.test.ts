// replaceOrInsert (src/store/replace-or-insert.ts) on the real embedded store: stored documents are
// replaced where the filter matches, missing ones inserted in one go, and a document that clashes
// with one another writer stored does not keep the others of the batch out.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlaceDoc } from '../../src/store/documents.js';
import { replaceOrInsert } from '../../src/store/replace-or-insert.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, type EngineHarness } from './engines.js';

const place = (id: string, over: Partial<PlaceDoc> = {}): PlaceDoc => ({
  _id: id, app_id: 'app-1', layer_id: 'L', name: id, description: '', latitude: 45, longitude: -122, radius: 100, extra: {}, created_at: 1, ...over,
});

describe('replaceOrInsert', () => {
  let h: EngineHarness;
  let store: Store;
  beforeEach(async () => {
    h = await embeddedHarness();
    store = await h.open();
  });
  afterEach(() => h.destroy());

  it('replaces what the filter matches, keeps what it does not, inserts the rest', async () => {
    const col = store.places.col;
    await col.insertMany([place('a', { created_at: 5 }), place('b', { created_at: 50 })]);
    await replaceOrInsert(col, [place('a', { created_at: 10, name: 'a2' }), place('b', { created_at: 10, name: 'older' }), place('c'), place('d')], (d) => ({ _id: d._id, created_at: { $lt: d.created_at } }));
    const byId = Object.fromEntries((await col.find({ app_id: 'app-1' }).toArray()).map((d) => [d._id, d.name]));
    expect(byId).toEqual({ a: 'a2', b: 'b', c: 'c', d: 'd' });
  });

  it('a new document that clashes with a stored one is left out; the others of the batch are inserted', async () => {
    const col = store.places.col;
    await col.insertOne(place('x', { uniq_key: 'app-1:L:k' }));
    await replaceOrInsert(col, [place('n1'), place('n2', { uniq_key: 'app-1:L:k' }), place('n3')]);
    expect((await col.find({ app_id: 'app-1' }).toArray()).map((d) => d._id).sort()).toEqual(['n1', 'n3', 'x']);
  });
});
