// The machines of the pairs that are not outside, one per (user, trigger, place): written by the
// engine's host with each batch's changes, read back to seed or rebuild shards, and by the machine
// inspector (trigger/state) and layer/users. Implemented on SQLite (sqlite/machine-states.ts) and
// MongoDB (mongodb/machine-states.ts).
import type { MachineRow, MachineStateDoc, PairKey, Presence } from './documents.js';

/** A pair's record as the shards are seeded with it. */
export interface MachineSeed extends PairKey {
  record: MachineStateDoc['record'];
}

export interface MachineStates {
  /**
   * Writes a batch of changes in their order, each a record whole or a pair back outside. A pair
   * changed twice is written as it ended; a record without a point keeps the stored point.
   */
  apply(changes: readonly MachineRow[]): Promise<void>;
  /** A trigger's machines (one user's, one place's, when given), the last moved first, at most `max`. */
  ofTrigger(appId: string, triggerId: string, only: { user_id?: string; place_id?: string }, max: number): Promise<MachineStateDoc[]>;
  /** One user's machines, the last moved first. */
  ofUser(appId: string, userId: string): Promise<MachineStateDoc[]>;
  /** Users inside (`inside` or `dwelling`) these places, one entry per machine. */
  insideOf(appId: string, placeIds: readonly string[]): Promise<Presence[]>;
  /** Users with a machine of this geofence. */
  usersOf(triggerId: string, placeId: string): Promise<Array<{ user_id: string; app_id: string }>>;
  /** Every record (engine seeding). */
  seeds(): Promise<MachineSeed[]>;
  removeTrigger(triggerId: string): Promise<void>;
  removePlace(placeId: string): Promise<void>;
  removeUser(userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

/** The last change of each pair, in the order of each pair's last change. */
export function lastChangePerPair(changes: readonly MachineRow[]): MachineRow[] {
  if (changes.length <= 1) return changes as MachineRow[];
  const last = new Map<string, MachineRow>();
  for (const c of changes) {
    const key = `${c.user_id}\u0000${c.trigger_id}\u0000${c.place_id}`;
    // A later record without a point keeps the point an earlier change of the batch brought.
    const before = last.get(key);
    last.delete(key);
    last.set(key, c.state !== null && c.point === null && before?.point ? { ...c, point: before.point } : c);
  }
  return [...last.values()];
}
