// The embedded engine's hash indexes (src/store/nedb-hash-index.ts): every index NeDB keeps is a
// map from key to documents. Queries must answer exactly as with NeDB's trees: documents moving
// between shared keys (an outbox row from 'delivering' to 'delivered'), `$in`, a range on an
// indexed field, numbers apart from strings, unique violations with their rollback, and all of it after a reopen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocCollection, StoreEngine } from '../../src/store/collection.js';
import { isDuplicateKeyError } from '../../src/store/duplicate-key.js';
import { openEmbeddedEngine } from '../../src/store/embedded-engine.js';

interface Row {
  _id: string;
  status: string;
  owner?: string;
  due?: number;
  n: number;
}

const SPECS = [{ fields: ['status', 'due'] }, { fields: ['owner'], unique: true, sparse: true }, { fields: ['due'], sparse: true }];

describe('hash indexes of the embedded engine', () => {
  let dir: string;
  let engine: StoreEngine;
  let col: DocCollection<Row>;

  const open = async () => {
    engine = await openEmbeddedEngine(dir, ['rows']);
    await engine.ensureIndexes('rows', SPECS);
    col = engine.collection<Row>('rows');
  };
  const ids = async (filter: Record<string, unknown>) => (await col.find(filter as never).toArray()).map((r) => r._id).sort();
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => `r${String(a + i).padStart(4, '0')}`);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hash-index-'));
    await open();
    await col.insertMany(range(0, 2000).map((_id, i) => ({ _id, status: 'delivering', due: i, n: 0 })));
  });
  afterEach(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('moves documents between shared keys, and every query by key, $in or range answers exactly', async () => {
    // Half of the rows leave the shared 'delivering' key, one by one, as outcomes do.
    await Promise.all(range(0, 1000).map((_id) => col.updateOne({ _id }, { $set: { status: 'delivered' }, $unset: { due: '' } })));
    expect(await ids({ status: 'delivering' })).toEqual(range(1000, 2000));
    expect(await ids({ status: 'delivered' })).toEqual(range(0, 1000));
    expect(await col.countDocuments({ status: { $in: ['delivering', 'delivered'] } } as never)).toBe(2000);
    // A range on an indexed field (sparse: the delivered rows lost theirs).
    expect(await ids({ due: { $gte: 1990 } })).toEqual(range(1990, 2000));
    expect(await ids({ due: { $lt: 1003 } })).toEqual(range(1000, 1003));
    expect(await ids({ status: 'delivering', due: { $lte: 1001 } })).toEqual(range(1000, 1002));
    await col.deleteMany({ status: 'delivered' });
    expect(await col.countDocuments({})).toBe(1000);
    expect(await ids({ status: 'delivered' })).toEqual([]);
  });

  it('lists a document under several $in values once (an array field is indexed under each element)', async () => {
    await col.insertMany([
      { _id: 'both', status: ['queued', 'held'] as never, n: 0 },
      { _id: 'one', status: 'held', n: 0 },
    ]);
    expect(await ids({ status: { $in: ['queued', 'held'] } })).toEqual(['both', 'one']);
    expect(await ids({ status: { $in: ['queued'] } })).toEqual(['both']);
    expect(await ids({ status: { $in: ['nothing', 'none'] } })).toEqual([]);
    // A value named twice still lists its documents once (as NeDB and MongoDB do).
    expect(await ids({ status: { $in: ['held', 'queued', 'held'] } })).toEqual(['both', 'one']);
    expect(await ids({ _id: { $in: ['one', 'one'] } })).toEqual(['one']);
    expect(await col.countDocuments({ status: { $in: ['held', 'delivering'] } } as never)).toBe(2002);
  });

  it('tells numbers from strings', async () => {
    await col.insertOne({ _id: 's5', status: 'x', due: '5' as never, n: 0 });
    expect(await ids({ due: 5 })).toEqual(['r0005']);
    expect(await ids({ due: '5' })).toEqual(['s5']);
  });

  it('refuses a taken unique key as a duplicate, and a batch with one stores none of it', async () => {
    await col.updateOne({ _id: 'r0001' }, { $set: { owner: 'alice' } });
    const clash = await col.insertOne({ _id: 'new1', status: 'x', owner: 'alice', n: 0 }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(clash)).toBe(true);
    const sameId = await col.insertOne({ _id: 'r0002', status: 'x', n: 0 }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(sameId)).toBe(true);
    await expect(col.insertMany([{ _id: 'b1', status: 'x', n: 0 }, { _id: 'b2', status: 'x', owner: 'alice', n: 0 }])).rejects.toThrow();
    expect(await col.findOne({ _id: 'b1' })).toBeNull();
    expect(await ids({ status: 'x' })).toEqual([]);
    // An update onto a taken key fails and leaves the row under its old keys.
    await expect(col.updateOne({ _id: 'r0003' }, { $set: { owner: 'alice', status: 'moved' } })).rejects.toThrow();
    expect(await ids({ status: 'moved' })).toEqual([]);
    expect((await col.findOne({ _id: 'r0003' }))?.status).toBe('delivering');
    expect(await ids({ owner: 'alice' })).toEqual(['r0001']);
  });

  it('stores its own copy of what is inserted or upserted (NeDB no longer copies it a second time to return it)', async () => {
    const doc: Row = { _id: 'mine', status: 'x', n: 1 };
    await col.insertOne(doc);
    const many: Row[] = [{ _id: 'm1', status: 'x', n: 1 }];
    await col.insertMany(many);
    doc.status = 'changed by the caller';
    many[0]!.n = 99;
    expect(await ids({ status: 'x' })).toEqual(['m1', 'mine']);
    expect((await col.findOne({ _id: 'm1' }))?.n).toBe(1);
    const filter = { _id: 'up' };
    const update = { $set: { status: 'y', n: 2 } };
    await col.updateOne(filter, update, { upsert: true });
    update.$set.status = 'changed';
    expect(await col.findOne({ _id: 'up' })).toEqual({ _id: 'up', status: 'y', n: 2 });
  });

  it('answers the same after a reopen, from the file', async () => {
    await Promise.all(range(0, 10).map((_id) => col.updateOne({ _id }, { $set: { status: 'delivered' } })));
    await col.deleteOne({ _id: 'r1999' });
    await engine.close();
    await open();
    expect(await ids({ status: 'delivered' })).toEqual(range(0, 10));
    expect(await col.countDocuments({ status: 'delivering' })).toBe(1989);
    expect(await col.findOne({ _id: 'r1999' })).toBeNull();
    const dup = await col.insertOne({ _id: 'r0000', status: 'x', n: 0 }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(dup)).toBe(true);
  });
});
