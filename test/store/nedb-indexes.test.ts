// The embedded engine's index use: lookups pick the most selective condition (selectiveLast), and
// updates that keep a document's indexed keys replace it in place in NeDB's indexes. Both must be
// invisible to callers: every query answers as before, also after updates, key changes, sparse
// fields coming and going, a reopen, and a failed update that must change nothing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { selectiveLast } from '../../src/store/nedb-query.js';
import type { PlaceDoc } from '../../src/store/documents.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, type EngineHarness } from './engines.js';

describe('selectiveLast', () => {
  const unique = new Set(['uniq_key']);
  it('moves a plain _id, or else a plain unique field, to the end; keeps every condition', () => {
    expect(Object.keys(selectiveLast({ _id: 'a', app_id: 'x' }, unique))).toEqual(['app_id', '_id']);
    expect(Object.keys(selectiveLast({ uniq_key: 'k', app_id: 'x' }, unique))).toEqual(['app_id', 'uniq_key']);
    expect(selectiveLast({ _id: 'a', app_id: 'x', n: { $gt: 1 } }, unique)).toEqual({ _id: 'a', app_id: 'x', n: { $gt: 1 } });
  });
  it('puts the application scope first, so another indexed field is used; with _id $in, as an equal $in', () => {
    expect(Object.keys(selectiveLast({ layer_id: 'L', app_id: 'x' }, unique))).toEqual(['app_id', 'layer_id']);
    expect(selectiveLast({ _id: { $in: ['a', 'b'] }, app_id: 'x' }, unique)).toEqual({ app_id: { $in: ['x'] }, _id: { $in: ['a', 'b'] } });
    expect(Object.keys(selectiveLast({ _id: { $in: ['a'] }, app_id: 'x' }, unique))).toEqual(['app_id', '_id']);
  });

  it('with _id $in, writes every other plain condition as an equal $in, so the ids are the candidates', () => {
    // NeDB takes candidates from a plain indexed value before any $in: here every pending row.
    expect(selectiveLast({ _id: { $in: ['a', 'b'] }, status: 'pending' }, unique)).toEqual({ status: { $in: ['pending'] }, _id: { $in: ['a', 'b'] } });
    expect(selectiveLast({ _id: { $in: ['a'] }, app_id: 'x', status: 'pending', n: { $gt: 1 } }, unique))
      .toEqual({ app_id: { $in: ['x'] }, status: { $in: ['pending'] }, n: { $gt: 1 }, _id: { $in: ['a'] } });
  });

  it('leaves filters alone when nothing needs to move', () => {
    const f1 = { app_id: 'x', _id: 'a' };
    const f2 = { app_id: 'x', layer_id: 'L', n: { $gt: 1 } };
    const f3 = { user_id: 'u', date: { $gt: 1 } };
    expect(selectiveLast(f1, unique)).toBe(f1);
    expect(selectiveLast(f2, unique)).toBe(f2);
    expect(selectiveLast(f3, unique)).toBe(f3);
  });
});

describe('embedded indexes under updates', () => {
  let h: EngineHarness;
  let store: Store;
  const A = 'app-1';
  const place = (i: number, over: Partial<PlaceDoc> = {}): PlaceDoc => ({
    _id: `p${i}`, app_id: A, layer_id: i % 2 ? 'L1' : 'L2', name: `p${i}`, description: '', latitude: 45, longitude: -122,
    radius: 100, extra: {}, created_at: i, ...over,
  });

  beforeEach(async () => {
    h = await embeddedHarness();
    store = await h.open();
    await store.places.col.insertMany(Array.from({ length: 200 }, (_, i) => place(i, i < 3 ? { uniq_key: `${A}:L:k${i}` } : {})));
  });
  afterEach(() => h.destroy());

  const names = (docs: PlaceDoc[]) => docs.map((d) => d.name).sort();

  it('finds the updated document under an unchanged key, once, and not its old version', async () => {
    for (let round = 1; round <= 3; round++) await store.places.col.updateOne({ _id: 'p7', app_id: A }, { $inc: { visits: 1 } });
    const inLayer = await store.places.list(A, { layer_id: 'L1' });
    expect(inLayer.filter((d) => d._id === 'p7').map((d) => d.visits)).toEqual([3]);
    expect(inLayer).toHaveLength(100);
    expect(await store.places.count(A)).toBe(200);
    expect((await store.places.get(A, 'p7'))?.visits).toBe(3);
  });

  it('an update keeping every key, then one changing a key, then a delete: each index follows the same document', async () => {
    await store.places.col.updateOne({ _id: 'p9', app_id: A }, { $set: { name: 'kept keys' }, $unset: { description: '' } });
    const read = await store.places.get(A, 'p9');
    expect(read).toMatchObject({ name: 'kept keys', layer_id: 'L1' });
    expect(read).not.toHaveProperty('description');
    // What a read handed out is a copy: changing it changes nothing stored.
    read!.name = 'mutated by a caller';
    expect((await store.places.get(A, 'p9'))?.name).toBe('kept keys');
    await store.places.col.updateOne({ _id: 'p9', app_id: A }, { $set: { layer_id: 'L2' } });
    expect(names(await store.places.list(A, { layer_id: 'L2' }))).toContain('kept keys');
    expect(names(await store.places.list(A, { layer_id: 'L1' }))).not.toContain('kept keys');
    await store.places.col.deleteOne({ _id: 'p9', app_id: A });
    expect(await store.places.get(A, 'p9')).toBeNull();
    expect(await store.places.list(A, { layer_id: 'L2' })).toHaveLength(100);
    expect(await store.places.count(A)).toBe(199);
  });

  it('moves a document whose key changed, and sparse fields that come and go', async () => {
    await store.places.col.updateOne({ _id: 'p7', app_id: A }, { $set: { layer_id: 'L2', uniq_key: `${A}:L:new` } });
    expect(names(await store.places.list(A, { layer_id: 'L2' }))).toContain('p7');
    expect(names(await store.places.list(A, { layer_id: 'L1' }))).not.toContain('p7');
    expect((await store.places.findOne(A, { uniq_key: `${A}:L:new` }))?._id).toBe('p7');
    await store.places.col.updateOne({ _id: 'p1', app_id: A }, { $unset: { uniq_key: '' } });
    expect(await store.places.findOne(A, { uniq_key: `${A}:L:k1` })).toBeNull();
  });

  it('a failed update (unique key taken) changes nothing, in any index', async () => {
    await expect(store.places.col.updateMany({ app_id: A, layer_id: 'L1' }, { $set: { uniq_key: `${A}:L:k0`, name: 'clash' } })).rejects.toThrow();
    const all = await store.places.list(A);
    expect(all.filter((d) => d.name === 'clash')).toEqual([]);
    expect(await store.places.list(A, { layer_id: 'L1' })).toHaveLength(100);
    expect((await store.places.findOne(A, { uniq_key: `${A}:L:k0` }))?._id).toBe('p0');
    // And updates still work on the documents NeDB had to put back.
    await store.places.col.updateOne({ _id: 'p1', app_id: A }, { $set: { name: 'after' } });
    expect((await store.places.list(A, { layer_id: 'L1' })).filter((d) => d.name === 'after').map((d) => d._id)).toEqual(['p1']);
  });

  it('a failed update that kept some documents’ unique key puts those back too', async () => {
    // p0 keeps its key (replaced in place), p5 would take it: the update fails as a whole.
    await expect(store.places.col.updateMany({ _id: { $in: ['p0', 'p5'] } }, { $set: { uniq_key: `${A}:L:k0`, name: 'clash' } })).rejects.toThrow();
    expect((await store.places.findOne(A, { uniq_key: `${A}:L:k0` }))?.name).toBe('p0');
    await store.places.col.updateOne({ _id: 'p0', app_id: A }, { $set: { name: 'renamed' } });
    expect((await store.places.findOne(A, { uniq_key: `${A}:L:k0` }))?.name).toBe('renamed');
    expect((await store.places.list(A, { layer_id: 'L2' })).filter((d) => d._id === 'p0').map((d) => d.name)).toEqual(['renamed']);
  });

  it('answers scoped queries by layer, by id list and by unique key exactly, whichever index serves them', async () => {
    await store.places.col.insertOne(place(900, { app_id: 'app-2', layer_id: 'L1' }));
    expect(await store.places.list(A, { layer_id: 'L1' })).toHaveLength(100);
    expect(names(await store.places.list(A, { _id: { $in: ['p1', 'p2', 'p900'] } }))).toEqual(['p1', 'p2']);
    expect(await store.places.findOne('app-2', { uniq_key: `${A}:L:k0` })).toBeNull();
    expect(await store.places.get('app-2', 'p1')).toBeNull();
  });

  it('keeps every update across a reopen', async () => {
    await store.places.col.updateOne({ _id: 'p7', app_id: A }, { $inc: { visits: 2 } });
    store = await h.reopen();
    expect((await store.places.list(A, { layer_id: 'L1' })).find((d) => d._id === 'p7')?.visits).toBe(2);
  });
});

describe('compound indexes on the embedded engine', () => {
  // NeDB uses an index only for equality on all of its fields; queries give a compound index's
  // first field, so that field is what the embedded engine indexes (and maintains on each write).
  it('indexes the first field of a compound index, and drops the compound index an older data file declares', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-compound-'));
    try {
      const file = path.join(dataDir, 'trigger_history.db');
      // What an earlier version wrote: the compound index, and one row.
      const row = { _id: 'evt_old', app_id: 'app-1', user_id: 'u1', place_id: 'p1', date: 5 };
      await writeFile(file, `${JSON.stringify({ $$indexCreated: { fieldName: 'app_id,date', unique: false, sparse: false } })}\n${JSON.stringify(row)}\n`);
      let store = await openStore({ kind: 'embedded', dataDir });
      const col = store.collection<typeof row>('trigger_history');
      await col.insertMany([{ ...row, _id: 'evt_2', date: 9 }, { ...row, _id: 'evt_3', app_id: 'app-2', date: 7 }]);
      const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toContainEqual({ $$indexRemoved: 'app_id,date' });
      expect(lines).toContainEqual({ $$indexCreated: { fieldName: 'app_id', unique: false, sparse: false } });
      // The date index is MongoDB's alone (retention's range sweeps): a hash index could not serve it.
      const declared = new Set<string>();
      for (const l of lines) {
        if ('$$indexCreated' in l) declared.add((l.$$indexCreated as { fieldName: string }).fieldName);
        if ('$$indexRemoved' in l) declared.delete(l.$$indexRemoved as string);
      }
      expect([...declared].sort()).toEqual(['app_id', 'place_id', 'user_id']);
      const byApp = async () => (await col.find({ app_id: 'app-1' }, { sort: { date: -1 } }).toArray()).map((d) => d._id);
      expect(await byApp()).toEqual(['evt_2', 'evt_old']);
      await store.close();
      store = await openStore({ kind: 'embedded', dataDir });
      expect((await store.collection<typeof row>('trigger_history').find({ app_id: 'app-1' }, { sort: { date: -1 } }).toArray()).map((d) => d._id)).toEqual(['evt_2', 'evt_old']);
      await store.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
