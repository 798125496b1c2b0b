// The long retry schedule of callbacks. It lives in the store (outbox.next_attempt_at), not in a
// timer, so it survives restarts and any node can carry it on. Short blips are handled inside one
// dispatch round by p-retry (callback-sender.ts); this file decides how a round leaves the row
// (roundEnd) and when the next round starts.
//
// Default: round k (1-based) that fails waits d_k = min(12 h, 10 s * 2^(k-1)) scaled by "equal
// jitter" (uniform in [d_k/2, d_k]), and after 16 failed rounds the callback is dead. The waits
// are 5-10 s, 10-20 s, 20-40 s, ... 11.4-22.8 h, then 6-12 h three times: the whole schedule spans
// between 23.4 h and 46.8 h (about 35 h on average). Equal jitter rather than full jitter (uniform
// in [0, d_k]) because it still spreads a thundering herd of retries after an outage, but keeps a
// guaranteed minimum span: with full jitter a receiver that is down for one night could exhaust
// every round in a few hours by bad luck. Full jitter remains available as an option.

import type { AttemptOutcome } from './callback-sender.js';

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** Rounds before a callback is declared dead. */
  maxRounds: number;
  jitter: 'equal' | 'full';
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 10_000, capMs: 12 * 3600_000, maxRounds: 16, jitter: 'equal' };

/** The un-jittered wait after failed round `round` (1-based). */
export function ceilingMs(round: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  // 2 ** 60 is still exact in a double; beyond that the cap applies anyway.
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(round - 1, 0), 60));
}

/** The jittered wait after failed round `round`. `random` is injectable for tests. */
export function backoffDelayMs(round: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = ceilingMs(round, policy);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(policy.jitter === 'full' ? ceiling * r : ceiling / 2 + (ceiling / 2) * r);
}

/**
 * When the next round may start: the backoff, or the receiver's Retry-After when that is later
 * (capped, so a receiver cannot park a callback for a year), or null when the rounds are used up.
 */
export function nextAttemptAt(
  now: number,
  roundsDone: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | null {
  if (roundsDone >= policy.maxRounds) return null;
  const delay = backoffDelayMs(roundsDone, policy, random);
  const honoured = retryAfterMs !== undefined ? Math.min(Math.max(retryAfterMs, 0), policy.capMs) : 0;
  return now + Math.max(delay, honoured);
}

/** How a round leaves its row: delivered, dead, or pending again until `nextAttemptAt`. */
export type RoundEnd =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: number; lastError: string }
  | { status: 'dead'; lastError: string };

/**
 * The row's state after round number `roundsDone` ended with `o`: a retry outcome is scheduled
 * for a later round, or ends the callback once the rounds are used up.
 */
export function roundEnd(
  o: AttemptOutcome,
  roundsDone: number,
  now: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): RoundEnd {
  if (o.kind === 'delivered') return { status: 'delivered' };
  if (o.kind === 'dead') return { status: 'dead', lastError: o.error };
  const next = nextAttemptAt(now, roundsDone, policy, o.retryAfterMs, random);
  if (next === null) return { status: 'dead', lastError: `gave up after ${roundsDone} rounds; last: ${o.error}` };
  return { status: 'pending', nextAttemptAt: next, lastError: o.error };
}

/** Shortest and longest time from the first failed round to giving up (for docs and tests). */
export function scheduleSpanMs(policy: BackoffPolicy = DEFAULT_BACKOFF): { minMs: number; maxMs: number } {
  let max = 0;
  for (let k = 1; k < policy.maxRounds; k++) max += ceilingMs(k, policy);
  return { minMs: policy.jitter === 'full' ? 0 : max / 2, maxMs: max };
}

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
