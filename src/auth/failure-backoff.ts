// Failed credential checks per key (an account, whoever tries it) answered with a growing delay
// instead of a lock: the first `free` failures cost nothing, then each makes the key wait before
// its next try, `baseMs` doubling per failure up to `maxMs`. Nobody can shut the key's owner out
// for longer than `maxMs` by failing on purpose, yet a guesser with many addresses is held to one
// try per `maxMs` once the delay is at its cap. While the key waits between tries, only one try
// runs at a time: a try let through takes the turn until its outcome is known. A key is forgotten
// `forgetMs` after its last failure, or on success. Bounded memory, as FailureLimiter.
import type { LRUCache } from 'lru-cache';
import { boundedLru } from './bounded-lru.js';

interface Counter {
  failures: number;
  /** Clock ms of the last failure, or of the start of the try that holds the turn. */
  last: number;
}

export interface BackoffSettings {
  /** Failures before the first delay. */
  free: number;
  /** The first delay, ms; each further failure doubles it. */
  baseMs: number;
  maxMs: number;
  /** A key with no failure for this long starts over. */
  forgetMs: number;
}

export class FailureBackoff {
  private readonly counters: LRUCache<string, Counter>;

  constructor(
    private readonly settings: BackoffSettings,
    private readonly clock: () => number = () => performance.now(),
    maxKeys = 100_000,
  ) {
    this.counters = boundedLru(maxKeys);
  }

  /** The wait after `failures` failures, ms. */
  delayAfter(failures: number): number {
    const { free, baseMs, maxMs } = this.settings;
    if (failures < free) return 0;
    // Capped before doubling gets near Infinity.
    return Math.min(maxMs, baseMs * 2 ** Math.min(failures - free, 40));
  }

  /**
   * Seconds until `key` may be tried; 0 when it may be tried now. A 0 while the key is delayed
   * takes its turn: the next caller waits a full delay, unless this try succeeds (clear).
   */
  take(key: string): number {
    const c = this.counters.get(key);
    if (!c) return 0;
    const now = this.clock();
    if (now - c.last >= this.settings.forgetMs) {
      this.counters.delete(key);
      return 0;
    }
    const delay = this.delayAfter(c.failures);
    const left = c.last + delay - now;
    if (left > 0) return Math.ceil(left / 1000);
    if (delay > 0) c.last = now;
    return 0;
  }

  fail(key: string): void {
    const now = this.clock();
    const c = this.counters.get(key);
    if (c && now - c.last < this.settings.forgetMs) {
      c.failures++;
      c.last = now;
    } else {
      this.counters.set(key, { failures: 1, last: now });
    }
  }

  clear(key: string): void {
    this.counters.delete(key);
  }
}
