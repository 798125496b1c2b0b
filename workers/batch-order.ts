// Ordering helpers of a shard's batch: points grouped per user in device-time order, and the
// one-visit-per-place-and-point rule.
import type { PointBatch, ShardEffect } from './protocol.js';

/** Whether `effects` (from index `from`) already hold this user's visit of the place at `at`. */
export function hasVisit(effects: ShardEffect[], from: number, userId: string, placeId: string, at: number): boolean {
  for (let k = from; k < effects.length; k++) {
    const e = effects[k]!;
    if (e.type === 'VISIT' && e.placeId === placeId && e.userId === userId && e.at === at) return true;
  }
  return false;
}

/**
 * Point indexes grouped by user (users in first-seen order) and sorted by device time within a
 * user, stable for equal times. Counting sort: linear, and the per-user sort runs only when that
 * user's points arrived out of order.
 */
export function groupByUser(b: PointBatch): Int32Array {
  const n = b.at.length;
  const nu = b.users.length;
  const start = new Int32Array(nu + 1);
  for (let i = 0; i < n; i++) start[b.user[i]! + 1]!++;
  for (let u = 0; u < nu; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, nu);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[b.user[i]!]!++] = i;
  for (let u = 0; u < nu; u++) {
    const s = start[u]!;
    const e = start[u + 1]!;
    let sorted = true;
    for (let k = s + 1; k < e && sorted; k++) if (b.at[order[k]!]! < b.at[order[k - 1]!]!) sorted = false;
    if (!sorted) {
      const part = Array.from(order.subarray(s, e)).sort((x, y) => b.at[x]! - b.at[y]! || x - y);
      order.set(part, s);
    }
  }
  return order;
}
