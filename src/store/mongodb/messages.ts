// Stored messages, message/device payloads and the dwell clock's starts on MongoDB: the documents
// earlier releases stored, over the driver's typed collections.
import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import type { DeviceMessageDoc, MessageDoc } from '../documents.js';
import { isDuplicateKeyError, unique } from '../duplicate-key.js';
import { TYPED_INDEXES } from '../indexes.js';
import { pageBounds, type PageRequest } from '../paging.js';
import type { DeviceMessageRepo, MessageRepo, QueueCursor, ServiceStartRepo } from '../repos/messages.js';
import { typedCollection } from './typed.js';

const OLDEST_FIRST = { date: 1, _id: 1 } as const;

export class MongoMessages implements MessageRepo {
  private constructor(private readonly c: Collection<MessageDoc>) {}

  static async open(db: Db): Promise<MongoMessages> {
    return new MongoMessages(await typedCollection<MessageDoc>(db, 'messages', TYPED_INDEXES.messages));
  }

  async insert(doc: MessageDoc) {
    await unique(this.c.insertOne({ ...doc }));
  }

  async insertNew(docs: readonly MessageDoc[]) {
    const taken = new Set<string>();
    if (docs.length === 0) return taken;
    try {
      await this.c.insertMany(docs.map((d) => ({ ...d })), { ordered: false });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) {
        if (docs.length === 1 && isDuplicateKeyError(err)) return taken.add(docs[0]!._id);
        throw err;
      }
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      for (const e of errors) {
        if (e.code !== 11000) throw err;
        taken.add(docs[e.index]!._id);
      }
    }
    return taken;
  }

  get(appId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId });
  }

  async deliveredAt(appId: string, ids: readonly string[]) {
    if (ids.length === 0) return new Map<string, number | undefined>();
    const found = await this.c.find({ _id: { $in: [...ids] }, app_id: appId }, { projection: { _id: 1, delivered_at: 1 } }).toArray();
    return new Map(found.map((m) => [m._id, m.delivered_at]));
  }

  async page(appId: string, userId: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter = { user_id: userId, app_id: appId };
    const [items, total] = await Promise.all([this.c.find(filter, { sort: { date: -1, _id: -1 }, skip: offset, limit }).toArray(), this.c.countDocuments(filter)]);
    return { items, total };
  }

  queue(appId: string, userId: string, since: number, after: QueueCursor | undefined, max: number) {
    const queuedAtSince: Filter<MessageDoc> = { $or: [{ delivered_at: { $exists: false } }, { delivered_at: { $gte: since } }] };
    const pastCursor: Filter<MessageDoc>[] = after ? [{ $or: [{ date: { $gt: after.date } }, { date: after.date, _id: { $gt: after._id } }] }] : [];
    return this.c.find({ user_id: userId, app_id: appId, $and: [queuedAtSince, ...pastCursor] }, { sort: OLDEST_FIRST, limit: max }).toArray();
  }

  async undelivered(userIds: readonly string[], max: number) {
    if (userIds.length === 0) return [];
    return this.c.find({ user_id: { $in: [...userIds] }, delivered_at: { $exists: false } }, { sort: OLDEST_FIRST, limit: max }).toArray();
  }

  async markDelivered(appId: string, id: string, at: number) {
    const res = await this.c.updateOne({ _id: id, app_id: appId, delivered_at: { $exists: false } }, { $set: { delivered_at: at } });
    return res.matchedCount > 0;
  }

  async markPushed(appId: string, id: string, at: number) {
    await this.c.updateOne({ _id: id, app_id: appId }, { $set: { pushed_at: at } });
  }

  async firstByTrigger(appId: string, userId: string, triggerIds: readonly string[]) {
    const first = new Map<string, number>();
    if (triggerIds.length === 0) return first;
    const found = await this.c.find({ user_id: userId, app_id: appId, trigger_id: { $in: [...triggerIds] } }, { projection: { trigger_id: 1, date: 1 } }).toArray();
    for (const m of found) if (m.trigger_id) first.set(m.trigger_id, Math.min(m.date, first.get(m.trigger_id) ?? Infinity));
    return first;
  }

  async sentDates(appId: string) {
    return (await this.c.find({ app_id: appId, trigger_id: { $exists: false } }, { projection: { date: 1 } }).toArray()).map((m) => m.date);
  }

  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ user_id: userId, app_id: appId });
  }

  async removeDatedBefore(cutoff: number, max: number) {
    const ids = (await this.c.find({ date: { $lt: cutoff } }, { projection: { _id: 1 }, limit: max }).toArray()).map((d) => d._id);
    return ids.length === 0 ? 0 : (await this.c.deleteMany({ _id: { $in: ids } })).deletedCount;
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

export class MongoDeviceMessages implements DeviceMessageRepo {
  private constructor(private readonly c: Collection<DeviceMessageDoc>) {}

  static async open(db: Db): Promise<MongoDeviceMessages> {
    return new MongoDeviceMessages(await typedCollection<DeviceMessageDoc>(db, 'device_messages', TYPED_INDEXES.device_messages));
  }

  async insert(doc: DeviceMessageDoc) {
    await unique(this.c.insertOne({ ...doc }));
  }

  waiting(appId: string, userId: string, now: number) {
    return this.c.find({ user_id: userId, app_id: appId, expires_at: { $gt: now } }, { sort: OLDEST_FIRST }).toArray();
  }

  async waitingOf(userIds: readonly string[], now: number, max: number) {
    if (userIds.length === 0) return [];
    return this.c.find({ user_id: { $in: [...userIds] }, expires_at: { $gt: now } }, { sort: OLDEST_FIRST, limit: max }).toArray();
  }

  async take(appId: string, id: string) {
    return (await this.c.deleteOne({ _id: id, app_id: appId })).deletedCount > 0;
  }

  async removeExpiredOf(appId: string, userId: string, now: number) {
    await this.c.deleteMany({ user_id: userId, app_id: appId, expires_at: { $lte: now } });
  }

  async removeExpired(now: number, max: number) {
    const ids = (await this.c.find({ expires_at: { $lte: now } }, { projection: { _id: 1 }, limit: max }).toArray()).map((d) => d._id);
    return ids.length === 0 ? 0 : (await this.c.deleteMany({ _id: { $in: ids } })).deletedCount;
  }

  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ user_id: userId, app_id: appId });
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

/** One document, `dwell_clock`, as earlier releases stored it. */
interface StartsDoc {
  _id: string;
  starts: number[];
}

const STARTS_ID = 'dwell_clock';

export class MongoServiceStarts implements ServiceStartRepo {
  private readonly c: Collection<StartsDoc>;

  constructor(db: Db) {
    this.c = db.collection<StartsDoc>('service_starts');
  }

  async load() {
    return [...((await this.c.findOne({ _id: STARTS_ID }))?.starts ?? [])].sort((a, b) => a - b);
  }

  async save(starts: readonly number[]) {
    await this.c.updateOne({ _id: STARTS_ID }, { $set: { starts: [...starts] } }, { upsert: true });
  }
}
