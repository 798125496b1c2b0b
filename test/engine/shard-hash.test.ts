import { describe, expect, it } from 'vitest';
import { fnv1a32, shardOf } from '../../src/engine/shard-hash.js';

describe('shard hash', () => {
  it('is FNV-1a 32-bit (reference vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('is stable and spreads users evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i++) counts[shardOf(`user${i}`, 4)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(600);
    expect(shardOf('abc', 7)).toBe(fnv1a32('abc') % 7);
    expect(shardOf('abc', 1)).toBe(0);
  });
});
