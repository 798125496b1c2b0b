// What a shard shows of itself: one user's pairs (the inspector), counts (stats), every record.
import { getHeapStatistics } from 'node:v8';
import type { InspectFilter, RecordSeed, ShardStats, UserView } from './protocol.js';
import { splitKey, type UserSlot } from './user-slot.js';

export function inspectUser(u: UserSlot, filter: InspectFilter): UserView {
  const pairs = [];
  for (const [key, record] of u.pairs ?? []) {
    const [triggerId, placeId] = splitKey(key);
    if (filter.triggerId !== undefined && filter.triggerId !== triggerId) continue;
    if (filter.placeId !== undefined && filter.placeId !== placeId) continue;
    pairs.push({ triggerId, placeId, record });
  }
  return { userId: u.id, layers: u.layers.slice(), timezone: u.tz, lastAt: Number.isFinite(u.clock) ? u.clock : null, pairs };
}

export function shardStats(
  users: ReadonlyMap<string, UserSlot>,
  fences: number,
  counters: { points: number; oldPoints: number; machineRuns: number; indexQueries: number },
): ShardStats {
  const byState = { inside: 0, dwelling: 0, firedOnce: 0 };
  let records = 0;
  let pendingDeadlines = 0;
  for (const u of users.values()) {
    for (const r of u.pairs?.values() ?? []) {
      records++;
      byState[r.state]++;
      if (r.deadline !== undefined) pendingDeadlines++;
    }
  }
  return { users: users.size, fences, records, byState, pendingDeadlines, ...counters, heapUsed: getHeapStatistics().used_heap_size };
}

export function* allRecords(users: Iterable<UserSlot>): IterableIterator<RecordSeed> {
  for (const u of users) {
    for (const [key, record] of u.pairs ?? []) {
      const [triggerId, placeId] = splitKey(key);
      yield { userId: u.id, triggerId, placeId, record };
    }
  }
}
