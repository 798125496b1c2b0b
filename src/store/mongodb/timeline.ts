// The decision timeline on MongoDB: a document per entry, as earlier releases stored it. Ids are
// the time, this process's tag and a counter: unique without a read, sortable by time.
import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { PairKey, TimelineDoc, TimelineFilter, TimelineRow } from '../documents.js';
import { timeKey } from '../ids.js';
import { TYPED_INDEXES } from '../indexes.js';
import type { Timeline } from '../timeline.js';
import { typedCollection } from './typed.js';

/** An entry as stored (earlier releases: no `received_at`). */
type EntryDocument = Omit<TimelineDoc, 'received_at'> & { received_at?: number };

export class MongoTimeline implements Timeline {
  private readonly tag = randomBytes(4).toString('hex');
  private seq = 0;

  private constructor(private readonly col: Collection<EntryDocument>) {}

  static async open(db: Db): Promise<MongoTimeline> {
    return new MongoTimeline(await typedCollection<EntryDocument>(db, 'trigger_timeline', TYPED_INDEXES.trigger_timeline));
  }

  async add(rows: readonly TimelineRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.col.insertMany(rows.map((r) => {
      const d: EntryDocument = {
        _id: `${timeKey(r.at)}-${this.tag}-${(this.seq++).toString(36).padStart(8, '0')}`,
        app_id: r.app_id, user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, layer_id: r.layer_id,
        kind: r.kind, event: r.event, from: r.from, to: r.to, gate: r.gate, note: r.note,
        point: r.point_date === null ? null : { date: r.point_date, latitude: r.latitude!, longitude: r.longitude!, horizontal_accuracy: r.horizontal_accuracy },
        zone: r.zone, distance_m: r.distance_m, firing_id: r.firing_id, at: r.at, received_at: r.received_at,
      };
      if (r.boundary !== undefined) d.boundary = r.boundary;
      if (r.detail !== undefined) d.detail = r.detail;
      return d;
    }));
  }

  /** A page of the entries `filter` selects within `f`'s time range, newest first, and their count. */
  private async pageOf(filter: Filter<EntryDocument>, f: TimelineFilter, page: { offset: number; limit: number }) {
    if (f.after !== undefined || f.before !== undefined) {
      const at: { $gt?: number; $lt?: number } = {};
      if (f.after !== undefined) at.$gt = f.after;
      if (f.before !== undefined) at.$lt = f.before;
      filter.at = at;
    }
    const [docs, total] = await Promise.all([
      this.col.find(filter).sort({ at: -1, _id: -1 }).skip(page.offset).limit(page.limit).toArray(),
      this.col.countDocuments(filter),
    ]);
    return { entries: docs.map(entryDoc), total };
  }

  async ofUser(appId: string, userId: string, f: TimelineFilter, page: { offset: number; limit: number }) {
    const filter: Filter<EntryDocument> = { user_id: userId, app_id: appId };
    if (f.trigger_id !== undefined) filter.trigger_id = f.trigger_id;
    if (f.place_id !== undefined) filter.place_id = f.place_id;
    return this.pageOf(filter, f, page);
  }

  async ofTrigger(appId: string, triggerId: string, f: TimelineFilter, page: { offset: number; limit: number }) {
    const filter: Filter<EntryDocument> = { trigger_id: triggerId, app_id: appId };
    if (f.place_id !== undefined) filter.place_id = f.place_id;
    return this.pageOf(filter, f, page);
  }

  async hasTrigger(appId: string, triggerId: string): Promise<boolean> {
    return (await this.col.findOne({ trigger_id: triggerId, app_id: appId }, { projection: { _id: 1 } })) !== null;
  }

  async ofUserTrigger(appId: string, userId: string, triggerId: string, max: number): Promise<TimelineDoc[]> {
    return (await this.col.find({ user_id: userId, trigger_id: triggerId, app_id: appId }).sort({ at: -1, _id: -1 }).limit(max).toArray()).map(entryDoc);
  }

  async trimPair(pair: PairKey, keep: number): Promise<void> {
    const old = await this.col
      .find({ user_id: pair.user_id, trigger_id: pair.trigger_id, place_id: pair.place_id }, { projection: { _id: 1 } })
      .sort({ at: -1, _id: -1 })
      .skip(keep)
      .toArray();
    if (old.length > 0) await this.col.deleteMany({ _id: { $in: old.map((d) => d._id) } });
  }

  async removeUser(userId: string): Promise<void> {
    await this.col.deleteMany({ user_id: userId });
  }

  async removeForApp(appId: string): Promise<void> {
    await this.col.deleteMany({ app_id: appId });
  }

  async removeDatedBefore(cutoff: number, max: number): Promise<number> {
    // Ids start with the entry's time: the primary key finds the old ones.
    const ids = (await this.col.find({ _id: { $lt: timeKey(cutoff) } }, { projection: { _id: 1 } }).limit(max).toArray()).map((d) => d._id);
    if (ids.length === 0) return 0;
    return (await this.col.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
}

const entryDoc = (d: EntryDocument): TimelineDoc => ({ ...d, received_at: d.received_at ?? d.at });
