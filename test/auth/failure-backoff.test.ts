// The growing delay per key (auth/failure-backoff.ts): free failures, then a delay that doubles
// per failure up to its cap, one try per turn while delayed, forgotten after a quiet spell or on
// clearing.
import { describe, expect, it } from 'vitest';
import { FailureBackoff } from '../../src/auth/failure-backoff.js';

const settings = { free: 3, baseMs: 1000, maxMs: 8000, forgetMs: 60_000 };

describe('FailureBackoff', () => {
  it('lets the free failures through, then doubles the wait per failure up to the cap', () => {
    let now = 0;
    const b = new FailureBackoff(settings, () => now);
    for (let i = 0; i < 3; i++) {
      expect(b.take('k')).toBe(0);
      b.fail('k');
    }
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const wait = b.take('k');
      waits.push(wait);
      now += wait * 1000;
      expect(b.take('k')).toBe(0);
      b.fail('k');
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8]);
    expect(b.take('other')).toBe(0);
  });

  it('while delayed, a try let through holds the turn until its outcome', () => {
    let now = 0;
    const b = new FailureBackoff(settings, () => now);
    for (let i = 0; i < 3; i++) b.fail('k');
    now += 1000;
    expect(b.take('k')).toBe(0);
    // Another try at the same moment waits a whole delay.
    expect(b.take('k')).toBe(1);
    b.clear('k');
    expect(b.take('k')).toBe(0);
  });

  it('forgets a key after a quiet spell', () => {
    let now = 0;
    const b = new FailureBackoff(settings, () => now);
    for (let i = 0; i < 6; i++) b.fail('k');
    expect(b.take('k')).toBe(8);
    now += 60_000;
    expect(b.take('k')).toBe(0);
    b.fail('k');
    expect(b.take('k')).toBe(0);
  });
});
