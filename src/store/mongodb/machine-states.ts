// Machines on MongoDB: a document per pair that is not outside, `_id` = `user:trigger:place`, the
// record as a subdocument (the layout of earlier releases, read as it is).
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import type { MachinePoint, MachineRow, MachineStateDoc, Presence } from '../documents.js';
import { TYPED_INDEXES } from '../indexes.js';
import { lastChangePerPair, type MachineSeed, type MachineStates } from '../machine-states.js';
import { typedCollection } from './typed.js';

interface MachineDocument {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  state: MachineStateDoc['record']['state'];
  deadline?: number;
  record: MachineStateDoc['record'];
  last_point?: MachinePoint;
  updated_at: number;
}

const pairId = (c: { user_id: string; trigger_id: string; place_id: string }) => `${c.user_id}:${c.trigger_id}:${c.place_id}`;

function machineDoc(d: MachineDocument): MachineStateDoc {
  const doc: MachineStateDoc = { app_id: d.app_id, user_id: d.user_id, trigger_id: d.trigger_id, place_id: d.place_id, record: d.record, updated_at: d.updated_at };
  if (d.last_point) doc.last_point = d.last_point;
  return doc;
}

export class MongoMachineStates implements MachineStates {
  private constructor(private readonly col: Collection<MachineDocument>) {}

  static async open(db: Db): Promise<MongoMachineStates> {
    return new MongoMachineStates(await typedCollection<MachineDocument>(db, 'machine_states', TYPED_INDEXES.machine_states));
  }

  async apply(changes: readonly MachineRow[]): Promise<void> {
    if (changes.length === 0) return;
    const ops: AnyBulkWriteOperation<MachineDocument>[] = lastChangePerPair(changes).map((c) => {
      const _id = pairId(c);
      if (c.state === null) return { deleteOne: { filter: { _id } } };
      const record: MachineStateDoc['record'] = { state: c.state, since: c.since, enteredAt: c.entered_at, history: JSON.parse(c.transitions) };
      if (c.deadline !== null) record.deadline = c.deadline;
      if (c.last_point_at !== null) record.lastPointAt = c.last_point_at;
      const set: Partial<MachineDocument> = {
        app_id: c.app_id, user_id: c.user_id, trigger_id: c.trigger_id, place_id: c.place_id, state: c.state, record, updated_at: c.updated_at,
      };
      if (c.deadline !== null) set.deadline = c.deadline;
      // Without a point (a dwell deadline, a rule change) the stored last point stays.
      if (c.point !== null) set.last_point = c.point;
      return { updateOne: { filter: { _id }, update: c.deadline === null ? { $set: set, $unset: { deadline: '' } } : { $set: set }, upsert: true } };
    });
    await this.col.bulkWrite(ops, { ordered: true });
  }

  async ofTrigger(appId: string, triggerId: string, only: { user_id?: string; place_id?: string }, max: number): Promise<MachineStateDoc[]> {
    const filter: Partial<MachineDocument> = { app_id: appId, trigger_id: triggerId };
    if (only.user_id !== undefined) filter.user_id = only.user_id;
    if (only.place_id !== undefined) filter.place_id = only.place_id;
    return (await this.col.find(filter).sort({ updated_at: -1 }).limit(max).toArray()).map(machineDoc);
  }

  async ofUser(appId: string, userId: string): Promise<MachineStateDoc[]> {
    return (await this.col.find({ app_id: appId, user_id: userId }).sort({ updated_at: -1 }).toArray()).map(machineDoc);
  }

  async insideOf(appId: string, placeIds: readonly string[]): Promise<Presence[]> {
    if (placeIds.length === 0) return [];
    const docs = await this.col.find({ app_id: appId, place_id: { $in: [...placeIds] }, state: { $in: ['inside', 'dwelling'] } }).toArray();
    return docs.map((d) => ({ user_id: d.user_id, place_id: d.place_id, entered_at: d.record.enteredAt }));
  }

  async usersOf(triggerId: string, placeId: string): Promise<Array<{ user_id: string; app_id: string }>> {
    const docs = await this.col.find({ trigger_id: triggerId, place_id: placeId }, { projection: { user_id: 1, app_id: 1 } }).toArray();
    return docs.map((d) => ({ user_id: d.user_id, app_id: d.app_id }));
  }

  async seeds(): Promise<MachineSeed[]> {
    const docs = await this.col.find({}, { projection: { user_id: 1, trigger_id: 1, place_id: 1, record: 1 } }).toArray();
    return docs.map((d) => ({ user_id: d.user_id, trigger_id: d.trigger_id, place_id: d.place_id, record: d.record }));
  }

  async removeTrigger(triggerId: string): Promise<void> {
    await this.col.deleteMany({ trigger_id: triggerId });
  }

  async removePlace(placeId: string): Promise<void> {
    await this.col.deleteMany({ place_id: placeId });
  }

  async removeUser(userId: string): Promise<void> {
    await this.col.deleteMany({ user_id: userId });
  }

  async removeForApp(appId: string): Promise<void> {
    await this.col.deleteMany({ app_id: appId });
  }
}
