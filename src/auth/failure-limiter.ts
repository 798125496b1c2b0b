// Failed credential checks counted per key (an account, a client, a source address) in a fixed
// window that opens at the key's first failure: once `limit` have failed, the key is refused until
// the window closes. Only failures count, so a user who types the password right is never slowed.
// The counters live in a bounded LRU: a flood of distinct keys evicts the oldest counters rather
// than growing memory without end.
import type { LRUCache } from 'lru-cache';
import { boundedLru } from './bounded-lru.js';

interface Counter {
  failures: number;
  /** Clock ms at which the window closes. */
  until: number;
}

export class FailureLimiter {
  private readonly counters: LRUCache<string, Counter>;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: () => number = () => performance.now(),
    maxKeys = 100_000,
  ) {
    this.counters = boundedLru(maxKeys);
  }

  /** Seconds until `key` may be tried again; 0 when it may be tried now. */
  retryAfter(key: string): number {
    const c = this.counters.peek(key);
    if (!c) return 0;
    const left = c.until - this.clock();
    if (left <= 0) {
      this.counters.delete(key);
      return 0;
    }
    return c.failures >= this.limit ? Math.ceil(left / 1000) : 0;
  }

  fail(key: string): void {
    const now = this.clock();
    const c = this.counters.get(key);
    if (c && c.until > now) c.failures++;
    else this.counters.set(key, { failures: 1, until: now + this.windowMs });
  }

  clear(key: string): void {
    this.counters.delete(key);
  }
}
