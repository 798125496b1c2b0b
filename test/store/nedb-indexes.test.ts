// The embedded engine's index use: lookups pick the most selective condition (selectiveLast).
import { describe, expect, it } from 'vitest';
import { selectiveLast } from '../../src/store/nedb-query.js';

describe('selectiveLast', () => {
  const unique = new Set(['uniq_key']);
  it('moves a plain _id, or else a plain unique field, to the end; keeps every condition', () => {
    expect(Object.keys(selectiveLast({ _id: 'a', app_id: 'x' }, unique))).toEqual(['app_id', '_id']);
    expect(Object.keys(selectiveLast({ uniq_key: 'k', app_id: 'x' }, unique))).toEqual(['app_id', 'uniq_key']);
    expect(selectiveLast({ _id: 'a', app_id: 'x', n: { $gt: 1 } }, unique)).toEqual({ _id: 'a', app_id: 'x', n: { $gt: 1 } });
  });
  it('leaves filters alone when there is nothing better or it is already last', () => {
    const f1 = { app_id: 'x', _id: 'a' };
    const f2 = { _id: { $in: ['a', 'b'] }, app_id: 'x' };
    expect(selectiveLast(f1, unique)).toBe(f1);
    expect(selectiveLast(f2, unique)).toBe(f2);
  });
});
