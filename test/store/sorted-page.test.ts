// A sorted page of a long list on the embedded store (location/history's newest points, a message
// queue's next page, trigger/history) is exactly the page of the whole sorted list: the store keeps
// only the best `skip + limit` documents as it reads the matches instead of sorting them all, and
// that must not change which documents come back or in what order (ties in match order, missing
// fields, nulls, mixed types and dotted paths included).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocCollection } from '../../src/store/collection.js';
import { embeddedHarness, type EngineHarness } from './engines.js';

interface Row {
  _id: string;
  app_id: string;
  n?: number | string | null;
  m?: number;
  sub?: { k?: number };
}

describe('sorted pages on the embedded store', () => {
  let h: EngineHarness;
  let rows: DocCollection<Row>;

  beforeAll(async () => {
    h = await embeddedHarness();
    rows = (await h.open()).collection<Row>('device_messages');
  });
  afterAll(async () => {
    await h?.destroy();
  });

  // NaN too: it compares equal to every number, so only the whole sort's own answer is right.
  const value = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('a', 'b', null, undefined, NaN));
  const row = fc.record({ n: value, m: fc.integer({ min: 0, max: 3 }), k: fc.option(fc.integer({ min: 0, max: 4 })) });
  const sortSpec = fc.constantFrom<Record<string, 1 | -1>[]>(
    { n: 1 }, { n: -1 }, { m: -1 }, { m: 1, n: -1 }, { 'sub.k': -1 }, { 'sub.k': 1, m: -1 }, { n: -1, _id: 1 },
  );

  it('gives the page of the whole sorted list, whatever the sort, skip and limit', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 0, maxLength: 120 }), sortSpec, fc.nat(12), fc.integer({ min: 1, max: 15 }), async (docs, sort, skip, limit) => {
        const app = `app${run++}`;
        await rows.insertMany(docs.map((d, i) => ({
          _id: `${app}-${String(i).padStart(3, '0')}`, app_id: app, m: d.m,
          ...(d.n === undefined ? {} : { n: d.n }), ...(d.k === null ? {} : { sub: { k: d.k } }),
        })));
        const whole = (await rows.find({ app_id: app }, { sort }).toArray()).map((r) => r._id);
        const page = (await rows.find({ app_id: app }, { sort, skip, limit }).toArray()).map((r) => r._id);
        expect(page).toEqual(whole.slice(skip, skip + limit));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the whole sort\'s page when a sort value is NaN (equal to every number: no consistent order)', async () => {
    await rows.insertMany([5, NaN, 3, NaN, NaN, 4, NaN, 1].map((m, i) => ({ _id: `nan-${i}`, app_id: 'nan', m })));
    const whole = (await rows.find({ app_id: 'nan' }, { sort: { m: 1 } }).toArray()).map((r) => r._id);
    for (const limit of [1, 2]) {
      const page = (await rows.find({ app_id: 'nan' }, { sort: { m: 1 }, limit }).toArray()).map((r) => r._id);
      expect(page).toEqual(whole.slice(0, limit));
    }
  });

  it('gives the newest points of a long history, and the ones before a date', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const docs = Array.from({ length: 5000 }, (_, i) => ({ _id: `h${String(i).padStart(5, '0')}`, app_id: 'hist', m: t0 + (i % 2500) * 1000 }));
    await rows.insertMany(docs);
    const newest = (await rows.find({ app_id: 'hist' }, { sort: { m: -1 }, limit: 4 }).toArray()).map((r) => r._id);
    // Two points share each time: the first stored of them comes first, as in the whole sorted list.
    expect(newest).toEqual(['h02499', 'h04999', 'h02498', 'h04998']);
    const before = (await rows.find({ app_id: 'hist', m: { $lt: t0 + 10_000 } }, { sort: { m: -1 }, limit: 3 }).toArray()).map((r) => r._id);
    expect(before).toEqual(['h00009', 'h02509', 'h00008']);
  });
});
