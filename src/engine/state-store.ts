// Persistence of the engine's results: machine records (one document per pair that is not
// outside), read back to seed or rebuild shards. The engine itself stores nothing.
import type { RecordChange, RecordSeed } from '../../workers/protocol.js';
import type { MachineStateDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';

export const pairId = (userId: string, triggerId: string, placeId: string) => `${userId}:${triggerId}:${placeId}`;

export type LastPoint = NonNullable<MachineStateDoc['last_point']>;

export class MachineStates {
  constructor(private readonly store: Store) {}

  private get col() {
    return this.store.collection<MachineStateDoc>('machine_states');
  }

  /** Writes one batch of changes: upserts for records, deletes for pairs back outside. */
  async apply(appOf: (userId: string) => string | undefined, changes: readonly RecordChange[], lastPoint: (c: RecordChange) => LastPoint | undefined, now: number) {
    await Promise.all(
      changes.map(async (c) => {
        const _id = pairId(c.userId, c.triggerId, c.placeId);
        if (c.record === null) {
          await this.col.deleteOne({ _id });
          return;
        }
        const appId = appOf(c.userId);
        if (!appId) return; // the user was deleted meanwhile
        const set: Partial<MachineStateDoc> = {
          app_id: appId, user_id: c.userId, trigger_id: c.triggerId, place_id: c.placeId,
          state: c.record.state, record: c.record, updated_at: now,
        };
        const lp = lastPoint(c);
        if (lp) set.last_point = lp;
        const update = c.record.deadline !== undefined ? { $set: { ...set, deadline: c.record.deadline } } : { $set: set, $unset: { deadline: '' } };
        await this.col.updateOne({ _id }, update as never, { upsert: true });
      }),
    );
  }

  async seeds(filter: (userId: string) => boolean = () => true): Promise<RecordSeed[]> {
    const docs = await this.col.find({}).toArray();
    return docs
      .filter((d) => filter(d.user_id))
      .map((d) => ({ userId: d.user_id, triggerId: d.trigger_id, placeId: d.place_id, record: d.record }));
  }

  removeWhere(filter: Partial<Pick<MachineStateDoc, 'user_id' | 'trigger_id' | 'place_id' | 'app_id'>>) {
    return this.col.deleteMany(filter);
  }

  find(filter: Partial<Pick<MachineStateDoc, 'user_id' | 'trigger_id' | 'place_id' | 'app_id'>> & { state?: { $in: string[] } }) {
    return this.col.find(filter as never, { sort: { updated_at: -1 } }).toArray();
  }
}
