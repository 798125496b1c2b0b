// Persistence of the engine's results: machine records (one document per pair that is not
// outside), read back to seed or rebuild shards. The engine itself stores nothing.
import type { RecordChange, RecordSeed } from '../../workers/protocol.js';
import type { MachineStateDoc } from '../store/documents.js';
import { replaceOrInsert } from '../store/replace-or-insert.js';
import type { Store } from '../store/store.js';

export const pairId = (userId: string, triggerId: string, placeId: string) => `${userId}:${triggerId}:${placeId}`;

export type LastPoint = NonNullable<MachineStateDoc['last_point']>;

export class MachineStates {
  constructor(private readonly store: Store) {}

  private get col() {
    return this.store.collection<MachineStateDoc>('machine_states');
  }

  /**
   * Writes one batch of changes: the records whole, deletes for pairs back outside. A pair changed
   * twice in a batch is written once, as it ended. The whole batch takes a few store calls (one
   * bulk replace, one delete): a call per pair was a tenth of the main thread under load.
   */
  async apply(appOf: (userId: string) => string | undefined, changes: readonly RecordChange[], lastPoint: (c: RecordChange) => LastPoint | undefined, now: number) {
    const final = new Map<string, { c: RecordChange; lp?: LastPoint }>();
    for (const c of changes) {
      const _id = pairId(c.userId, c.triggerId, c.placeId);
      // The newest point that moved the pair, also when its last change in the batch has none.
      const lp = c.record === null ? undefined : (lastPoint(c) ?? final.get(_id)?.lp);
      final.set(_id, { c, lp });
    }
    const gone: string[] = [];
    const whole: MachineStateDoc[] = [];
    const keepPoint: MachineStateDoc[] = [];
    for (const [_id, { c, lp }] of final) {
      if (c.record === null) {
        gone.push(_id);
        continue;
      }
      const appId = appOf(c.userId);
      if (!appId) continue; // the user was deleted meanwhile
      const doc: MachineStateDoc = {
        _id, app_id: appId, user_id: c.userId, trigger_id: c.triggerId, place_id: c.placeId,
        state: c.record.state, record: c.record, updated_at: now,
        ...(c.record.deadline !== undefined ? { deadline: c.record.deadline } : {}),
      };
      // Added to the document, not spread into a copy (see src/delivery/outbox.ts on spreads in V8 11).
      if (lp) {
        doc.last_point = lp;
        whole.push(doc);
      } else keepPoint.push(doc);
    }
    await Promise.all([
      gone.length > 0 ? this.col.deleteMany({ _id: { $in: gone } }) : undefined,
      replaceOrInsert(this.col, whole),
      // Moved without a point of this batch (a dwell deadline): the stored last point stays.
      ...keepPoint.map(({ _id, ...set }) => {
        const update = set.deadline !== undefined ? { $set: set } : { $set: set, $unset: { deadline: '' } };
        return this.col.updateOne({ _id }, update as never, { upsert: true });
      }),
    ]);
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
