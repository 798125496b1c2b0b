// The engine's machine records (one per pair that is not outside) in the store: written with each
// result (persist.ts), read back to seed or rebuild shards. The engine itself stores nothing.
import type { RecordChange, RecordSeed } from '../../workers/protocol.js';
import type { MachinePoint, MachineRow } from '../store/documents.js';
import type { Store } from '../store/store.js';

export const pairId = (userId: string, triggerId: string, placeId: string) => `${userId}:${triggerId}:${placeId}`;

/** A record change as the row the store writes (`state` null: the pair is back outside). */
export function machineRow(c: RecordChange, appId: string, point: MachinePoint | null, now: number): MachineRow {
  const r = c.record;
  if (r === null) {
    return {
      user_id: c.userId, trigger_id: c.triggerId, place_id: c.placeId, app_id: appId, state: null, since: 0, entered_at: 0, deadline: null,
      last_point_at: null, transitions: '[]', point: null, updated_at: now,
    };
  }
  return {
    user_id: c.userId, trigger_id: c.triggerId, place_id: c.placeId, app_id: appId, state: r.state, since: r.since, entered_at: r.enteredAt,
    deadline: r.deadline ?? null, last_point_at: r.lastPointAt ?? null, transitions: JSON.stringify(r.history), point, updated_at: now,
  };
}

/** The machines as the engine's host reads them back: to seed shards, and on rule changes. */
export class MachineStates {
  constructor(private readonly store: Store) {}

  async seeds(filter: (userId: string) => boolean = () => true): Promise<RecordSeed[]> {
    const seeds = await this.store.machines.seeds();
    return seeds.filter((d) => filter(d.user_id)).map((d) => ({ userId: d.user_id, triggerId: d.trigger_id, placeId: d.place_id, record: d.record }));
  }

  removeTrigger(triggerId: string) {
    return this.store.machines.removeTrigger(triggerId);
  }

  removePlace(placeId: string) {
    return this.store.machines.removePlace(placeId);
  }

  removeUser(userId: string) {
    return this.store.machines.removeUser(userId);
  }

  /** Users with a machine of this geofence. */
  usersOf(triggerId: string, placeId: string) {
    return this.store.machines.usersOf(triggerId, placeId);
  }
}
