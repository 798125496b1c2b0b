// The long retry schedule: bounds per round, the total span (about a day or more), Retry-After.
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, ceilingMs, DEFAULT_BACKOFF, nextAttemptAt, parseRetryAfter, roundEnd, scheduleSpanMs } from '../../src/delivery/retry-schedule.js';

describe('backoff', () => {
  it('doubles from 10 s to a 12 h cap', () => {
    expect([1, 2, 3, 4].map((k) => ceilingMs(k))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(ceilingMs(13)).toBe(40_960_000);
    expect(ceilingMs(14)).toBe(12 * 3600_000);
    expect(ceilingMs(500)).toBe(12 * 3600_000);
  });

  it('equal jitter keeps every wait within [d/2, d]; full jitter within [0, d]', () => {
    for (let k = 1; k <= 16; k++) {
      const d = ceilingMs(k);
      for (const r of [0, 0.25, 0.999, 1]) {
        const equal = backoffDelayMs(k, DEFAULT_BACKOFF, () => r);
        expect(equal).toBeGreaterThanOrEqual(d / 2 - 1);
        expect(equal).toBeLessThanOrEqual(d);
        const full = backoffDelayMs(k, { ...DEFAULT_BACKOFF, jitter: 'full' }, () => r);
        expect(full).toBeGreaterThanOrEqual(0);
        expect(full).toBeLessThanOrEqual(d);
      }
    }
  });

  it('the default schedule spans between about 23 h and 47 h before giving up', () => {
    const { minMs, maxMs } = scheduleSpanMs();
    expect(minMs / 3600_000).toBeGreaterThan(23);
    expect(maxMs / 3600_000).toBeLessThan(47);
    // And a random walk through it lands in that window.
    let now = 0;
    for (let round = 1; ; round++) {
      const next = nextAttemptAt(now, round);
      if (next === null) {
        expect(round).toBe(DEFAULT_BACKOFF.maxRounds);
        break;
      }
      expect(next).toBeGreaterThan(now);
      now = next;
    }
    expect(now).toBeGreaterThanOrEqual(minMs - 16);
    expect(now).toBeLessThanOrEqual(maxMs);
  });

  it('a later Retry-After wins, capped at the schedule cap', () => {
    expect(nextAttemptAt(1_000, 1, DEFAULT_BACKOFF, 120_000, () => 0)).toBe(121_000);
    expect(nextAttemptAt(0, 1, DEFAULT_BACKOFF, 1, () => 1)).toBe(10_000);
    expect(nextAttemptAt(0, 1, DEFAULT_BACKOFF, 365 * 86400_000, () => 0)).toBe(12 * 3600_000);
  });

  it('parses Retry-After as seconds or an HTTP date, ignores garbage', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 31 Dec 2023 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('how a round leaves its row', () => {
  const policy = { ...DEFAULT_BACKOFF, maxRounds: 3 };

  it('delivered and dead outcomes end the callback; a retry waits for the next round until the rounds run out', () => {
    expect(roundEnd({ kind: 'delivered', status: 200, durationMs: 5 }, 1, 0, policy)).toEqual({ status: 'delivered' });
    expect(roundEnd({ kind: 'dead', status: 410, error: 'gone', durationMs: 5 }, 1, 0, policy)).toEqual({ status: 'dead', lastError: 'gone' });
    const retry = { kind: 'retry' as const, status: 503, error: 'HTTP 503', durationMs: 5 };
    expect(roundEnd(retry, 2, 1_000, policy, () => 1)).toEqual({ status: 'pending', nextAttemptAt: 1_000 + ceilingMs(2, policy), lastError: 'HTTP 503' });
    expect(roundEnd({ ...retry, retryAfterMs: 3_600_000 }, 1, 0, policy, () => 0)).toMatchObject({ status: 'pending', nextAttemptAt: 3_600_000 });
    expect(roundEnd(retry, 3, 0, policy)).toEqual({ status: 'dead', lastError: 'gave up after 3 rounds; last: HTTP 503' });
  });
});
