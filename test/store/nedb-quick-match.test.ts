// The embedded store's direct query check (nedb-quick-match.ts) must say what NeDB's own match
// says whenever it decides, and leave to NeDB every query it cannot decide: checked on the shapes
// the store's callers use and on many random documents and queries.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { quickMatch } from '../../src/store/nedb-quick-match.js';

type Doc = Record<string, unknown>;
const nedb = createRequire(import.meta.url)('@seald-io/nedb/lib/model.js') as { match: (d: Doc, q: Doc) => boolean };

/** NeDB's verdict, or 'throws' for a query it refuses. */
function nedbSays(doc: Doc, query: Doc): boolean | 'throws' {
  try {
    return nedb.match(doc, query);
  } catch {
    return 'throws';
  }
}

const last = { _id: 'u1', app_id: 'a1', user_id: 'u1', date: 100, latitude: 45.5, raw: { battery: 80 } };
const outbox = { _id: 'e1', app_id: 'a1', status: 'pending', next_attempt_at: 50, lease_until: 0, tags: ['x', 'y'], at: new Date(5) };

describe('direct query check of the embedded store', () => {
  it('decides the store’s own query shapes as NeDB does', () => {
    const cases: Array<[Doc, Doc, boolean]> = [
      [last, { _id: 'u1', date: { $lt: 101 } }, true], // a newer last location replaces it
      [last, { _id: 'u1', date: { $lt: 100 } }, false], // an equal or older one does not
      [last, { _id: 'u1', app_id: 'a2' }, false], // another application's user
      [outbox, { status: 'pending', next_attempt_at: { $lte: 50 } }, true],
      [outbox, { _id: { $in: ['e0', 'e1'] } }, true],
      [outbox, { _id: { $in: ['e0'] } }, false],
      [outbox, { status: { $ne: 'delivered' }, lease_until: { $lt: 1 } }, true],
      [outbox, { missing: { $gt: 0 } }, false], // a missing field compares with nothing
      [outbox, { lease_until: { $gt: '0' } }, false], // a number and a string do not compare
      [outbox, { missing: null }, false],
      [outbox, {}, true],
      // The live stream's poll: a user's undelivered messages.
      [{ ...last, text: 'hi' }, { user_id: { $in: Array.from({ length: 40 }, (_, i) => `u${i}`) }, delivered_at: { $exists: false } }, true],
      [{ ...last, delivered_at: 7 }, { user_id: { $in: Array.from({ length: 40 }, (_, i) => `u${i}`) }, delivered_at: { $exists: false } }, false],
      [last, { user_id: { $in: Array.from({ length: 40 }, (_, i) => `v${i}`) } }, false],
      [{ ...last, n: NaN }, { n: { $in: [NaN, ...Array.from({ length: 40 }, (_, i) => i)] } }, false], // NaN equals nothing, in a long list too
      [outbox, { status: { $exists: true }, missing: { $exists: 0 } }, true],
      [outbox, { status: { $exists: '' } }, true], // '' asks for a value (NeDB's rule)
    ];
    for (const [doc, query, want] of cases) {
      expect(nedbSays(doc, query), JSON.stringify(query)).toBe(want);
      expect(quickMatch(doc, query), JSON.stringify(query)).toBe(want);
    }
  });

  it('leaves to NeDB what only NeDB can decide', () => {
    for (const query of [
      { tags: 'x' }, // an array value matches through its elements
      { 'raw.battery': 80 }, // a dotted field
      { $or: [{ _id: 'e1' }] },
      { at: { $lt: 9 } }, // a date
      { raw: { battery: 80 } }, // a sub-document compared whole
      { status: { $regex: /pend/ } },
      { _id: { $nin: ['e0'] } },
      { status: { $in: [{ a: 1 }] } },
      { status: { $lt: 5, plain: 1 } }, // a mix NeDB refuses
    ]) {
      expect(quickMatch({ ...outbox, ...last }, query as Doc), JSON.stringify(query)).toBeUndefined();
    }
  });

  it('agrees with NeDB on thousands of random documents and queries, and refuses nothing NeDB accepts', () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const values = [0, 1, 2, -1, 1.5, NaN, 'a', 'b', '1', '', true, false, null, undefined, [1, 'a'], [], { a: 1 }, new Date(1)];
    const fields = ['a', 'b', 'c'];
    // Long lists too (a set decides those), one of them holding a non-primitive.
    const long = [...Array.from({ length: 20 }, (_, i) => i - 1), 'a', '', null, true, NaN];
    const operand = () => pick([0, 1, 2, 'a', 'b', '1', '', true, null, NaN, [1, 'a', null], ['b'], new Date(1), { a: 1 }, long, [...long, { a: 1 }]]);
    let decided = 0;
    for (let i = 0; i < 20_000; i++) {
      const doc: Doc = {};
      for (const f of fields) {
        const v = pick(values);
        if (v !== undefined) doc[f] = v;
      }
      const query: Doc = {};
      const parts = 1 + Math.floor(rand() * 2);
      for (let p = 0; p < parts; p++) {
        const f = pick(fields);
        query[f] = rand() < 0.4
          ? operand()
          : Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 2) }, () => [pick(['$lt', '$lte', '$gt', '$gte', '$ne', '$in', '$nin', '$exists', '$bogus']), operand()]));
      }
      const quick = quickMatch(doc, query);
      if (quick === undefined) continue;
      decided++;
      expect(nedbSays(doc, query), `${JSON.stringify(doc)} ${JSON.stringify(query)}`).toBe(quick);
    }
    // The direct check decides most of these shapes (the rest go to NeDB).
    expect(decided).toBeGreaterThan(5_000);
  });
});
