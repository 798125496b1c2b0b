import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, unstorableField } from '../../src/schemas/field-names.js';

const nested = (levels: number): Record<string, unknown> => {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < levels; i++) at = (at.k = {}) as Record<string, unknown>;
  return root;
};

describe('unstorableField', () => {
  it('accepts ordinary hashes, arrays and scalars', () => {
    for (const v of [null, undefined, 3, 'a.b', '$x', [], {}, { battery: 80, 'a-b': 1, 'a b': 2, ä: 3, a$b: 4, x: [1, { y: 'z.$' }] }]) {
      expect(unstorableField(v, 'extra')).toBeUndefined();
    }
  });

  it.each([
    [{ $x: 1 }, '"$x"'],
    [{ $$date: 5 }, '"$$date"'],
    [{ 'a.b': 1 }, '"a.b"'],
    [{ ok: { 'c.d': 1 } }, '"c.d" in extra.ok'],
    [{ list: [{ fine: 1 }, { $bad: 1 }] }, '"$bad" in extra.list[1]'],
    [[{ deep: { '.': 1 } }], '"." in extra[0].deep'],
  ])('names the key that no store can hold: %j', (value, where) => {
    expect(unstorableField(value, 'extra')).toBe(`has a field name that starts with "$" or contains "." (${where})`);
  });

  it(`allows ${MAX_DEPTH} levels of nesting and refuses more, without recursion`, () => {
    expect(unstorableField(nested(MAX_DEPTH), 'extra')).toBeUndefined();
    expect(unstorableField(nested(MAX_DEPTH + 1), 'extra')).toBe(`nests deeper than ${MAX_DEPTH} levels`);
    // Far deeper than a recursive walk's stack would allow.
    expect(unstorableField(nested(200_000), 'extra')).toBe(`nests deeper than ${MAX_DEPTH} levels`);
  });
});
