// replaceOrInsert (src/store/replace-or-insert.ts) on the real embedded store: stored documents are
// replaced where the filter matches, a stored one the filter does not match stays, and missing
// ones are inserted in one go.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocCollection } from '../../src/store/collection.js';
import { replaceOrInsert } from '../../src/store/replace-or-insert.js';
import { embeddedHarness, type EngineHarness } from './engines.js';

interface Row {
  _id: string;
  app_id: string;
  name: string;
  date: number;
}

const row = (id: string, over: Partial<Row> = {}): Row => ({ _id: id, app_id: 'app-1', name: id, date: 1, ...over });

describe('replaceOrInsert', () => {
  let h: EngineHarness;
  let col: DocCollection<Row>;
  beforeEach(async () => {
    h = await embeddedHarness();
    col = (await h.open()).collection<Row>('last_locations');
  });
  afterEach(() => h.destroy());

  it('replaces what the filter matches, keeps what it does not, inserts the rest', async () => {
    await col.insertMany([row('a', { date: 5 }), row('b', { date: 50 })]);
    await replaceOrInsert(col, [row('a', { date: 10, name: 'a2' }), row('b', { date: 10, name: 'older' }), row('c'), row('d')], (d) => ({ _id: d._id, date: { $lt: d.date } }));
    const byId = Object.fromEntries((await col.find({ app_id: 'app-1' }).toArray()).map((d) => [d._id, d.name]));
    expect(byId).toEqual({ a: 'a2', b: 'b', c: 'c', d: 'd' });
  });
});
