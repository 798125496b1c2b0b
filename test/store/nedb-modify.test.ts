// The embedded store's updates: the direct path for plain $set / $unset / $inc (nedb-modify.ts)
// must make exactly the document NeDB's own modify makes (values and key order), leave the stored
// version untouched, and hand every other update to NeDB.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { modify, modifyDirect } from '../../src/store/nedb-modify.js';

type Doc = Record<string, unknown>;
const nedb = createRequire(import.meta.url)('@seald-io/nedb/lib/model.js') as { modify: (d: Doc, u: Doc) => Doc };

const deepFreeze = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
};

const outboxRow = () => ({
  _id: 'ev1', app_id: 'a1', url: 'http://127.0.0.1/cb', payload: '{"x":1}', status: 'delivering', attempts: 0,
  lease_until: 100, lease_owner: 'o:1', last_error: 'timeout', created_at: 1, updated_at: 1,
});
const historyRow = () => ({
  _id: 'ev1', app_id: 'a1', type: 'callback', date: 5, location: { latitude: 1, longitude: 2 },
  delivery: { status: 'pending', attempts: 0, updated_at: 5 },
});

// Shapes the store sees: the dispatcher's outcome writes, the engine's visit counts, and others.
const CASES: Array<[name: string, doc: () => Doc, update: Doc]> = [
  ['delivered outbox row', outboxRow, { $set: { status: 'delivered', delivered_at: 9, lease_until: 0, attempts: 1, updated_at: 9 }, $unset: { last_error: '', payload: '' } }],
  ['retried outbox row', outboxRow, { $set: { status: 'pending', lease_until: 0, last_error: 'HTTP 503', next_attempt_at: 20, attempts: 1, last_status: 503, updated_at: 9 } }],
  ['history outcome (dotted)', historyRow, { $set: { 'delivery.status': 'dead', 'delivery.attempts': 3, 'delivery.updated_at': 9, 'delivery.last_error': 'gone' } }],
  ['dotted path into a missing object', historyRow, { $set: { 'meta.a.b': 1, 'meta.a.c': 'x', 'meta.d': null } }],
  ['dotted path through an existing object', historyRow, { $set: { 'location.latitude': 3, 'location.extra.k': true } }],
  ['$inc of an existing and a new field', () => ({ _id: 'p1', visits: 4, name: 'n' }), { $inc: { visits: 2, other: 1 } }],
  ['$unset of an absent field', outboxRow, { $unset: { nothing: '' } }],
  ['new fields after the old ones, in the order given', outboxRow, { $inc: { z: 1 }, $set: { a: 'new', status: 'x' } }],
  ['$set and $unset of different fields, $unset first', outboxRow, { $unset: { payload: '' }, $set: { status: 'delivered' } }],
];

// Shapes left to NeDB: objects or dates as values, arrays on the way, a field under two modifiers,
// other modifiers, replacement documents.
const NEDB_ONLY: Array<[name: string, doc: () => Doc, update: Doc]> = [
  ['an object value', outboxRow, { $set: { extra: { a: 1 } } }],
  ['a date value', outboxRow, { $set: { at: new Date(5) } }],
  ['a path through an array', () => ({ _id: 'x', list: [{ a: 1 }] }), { $set: { 'list.0.a': 2 } }],
  ['a path through a value', historyRow, { $set: { 'date.x': 1 } }],
  ['one field under two modifiers', outboxRow, { $set: { status: 'a' }, $unset: { status: '' } }],
  ['a field and a path of it', historyRow, { $set: { delivery: 'x', 'delivery.status': 'y' } }],
  ['$push', () => ({ _id: 'x', list: [1] }), { $push: { list: 2 } }],
  ['$inc of a string', outboxRow, { $inc: { status: 1 } }],
  ['a dotted $unset', historyRow, { $unset: { 'delivery.status': '' } }],
  ['a replacement document', outboxRow, { status: 'x' }],
];

describe('embedded store updates (nedb-modify)', () => {
  it.each(CASES)('%s: the direct path makes NeDB\'s document, key order included', (_name, doc, update) => {
    const stored = deepFreeze(doc());
    const direct = modifyDirect(stored, update);
    expect(direct).toBeDefined();
    const expected = nedb.modify(doc(), update);
    expect(JSON.stringify(direct)).toBe(JSON.stringify(expected));
    expect(direct).toEqual(expected);
    // The stored version is unchanged (it is frozen: any write to it would have thrown).
    expect(stored).toEqual(doc());
  });

  it.each(NEDB_ONLY)('%s: left to NeDB, with NeDB\'s result or error', (_name, doc, update) => {
    expect(modifyDirect(deepFreeze(doc()), update)).toBeUndefined();
    let expected: Doc | Error;
    try {
      expected = nedb.modify(doc(), update);
    } catch (err) {
      expected = err as Error;
    }
    if (expected instanceof Error) expect(() => modify(doc(), update)).toThrow(expected.message);
    else expect(JSON.stringify(modify(doc(), update))).toBe(JSON.stringify(expected));
  });

  it('rejects what NeDB rejects, through NeDB', () => {
    expect(() => modify(outboxRow(), { $set: { _id: 'other' } })).toThrow(/_id/);
    expect(() => modify(outboxRow(), { $set: { $bad: 1 } })).toThrow(/\$/);
    expect(() => modify(outboxRow(), { $set: { 'a.$b': 1 } })).toThrow(/\$/);
    expect(() => modify(outboxRow(), { $nope: { a: 1 } })).toThrow(/Unknown modifier/);
  });

  it('shares unchanged nested values with the stored version and copies the changed ones', () => {
    const stored = deepFreeze(historyRow());
    const next = modify(stored, { $set: { 'delivery.status': 'delivered' } });
    expect(next.location).toBe(stored.location);
    expect(next.delivery).not.toBe(stored.delivery);
    expect(stored.delivery).toEqual({ status: 'pending', attempts: 0, updated_at: 5 });
  });
});
