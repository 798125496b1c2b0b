// Failure counting per key (auth/failure-limiter.ts): refused after `limit` failures until the
// window that opened at the first failure closes; keys are independent; clearing forgets a key.
import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../src/auth/failure-limiter.js';

describe('FailureLimiter', () => {
  it('refuses a key after its limit of failures until the window closes, and only that key', () => {
    let now = 0;
    const limits = new FailureLimiter(3, 60_000, () => now);
    limits.fail('alice');
    now = 10_000;
    limits.fail('alice');
    expect(limits.retryAfter('alice')).toBe(0);
    limits.fail('alice');
    expect(limits.retryAfter('alice')).toBe(50);
    expect(limits.retryAfter('bob')).toBe(0);
    now = 59_500;
    expect(limits.retryAfter('alice')).toBe(1);
    now = 60_000;
    expect(limits.retryAfter('alice')).toBe(0);
    // A new window: one failure is not a refusal.
    limits.fail('alice');
    expect(limits.retryAfter('alice')).toBe(0);
  });

  it('forgets a cleared key', () => {
    const limits = new FailureLimiter(1, 60_000, () => 0);
    limits.fail('alice');
    expect(limits.retryAfter('alice')).toBe(60);
    limits.clear('alice');
    expect(limits.retryAfter('alice')).toBe(0);
  });

  it('keeps at most its number of keys, forgetting the least recently failed', () => {
    const limits = new FailureLimiter(1, 60_000, () => 0, 2);
    limits.fail('alice');
    limits.fail('bob');
    limits.fail('carol');
    expect(limits.retryAfter('alice')).toBe(0);
    expect(limits.retryAfter('bob')).toBe(60);
    expect(limits.retryAfter('carol')).toBe(60);
  });
});
