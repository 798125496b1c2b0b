// Users on MongoDB.
import type { Collection, Db } from 'mongodb';
import type { Changes } from '../changes.js';
import type { UserDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import { pageBounds, type PageRequest } from '../paging.js';
import type { DeviceKind, UserRepo } from '../repos/accounts.js';
import { uniqEmail, uniqKey, uniqUsername } from '../unique-keys.js';
import { settled } from '../write-watch.js';
import { updateOf } from './docs.js';

const DEVICE_KINDS: readonly DeviceKind[] = ['apns_dev', 'apns_live', 'c2dm', 'gcm'];

export class MongoUsers implements UserRepo {
  private readonly c: Collection<UserDoc>;

  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<UserDoc>('users');
  }

  get(appId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId });
  }

  byUsername(appId: string, username: string) {
    return this.c.findOne({ uniq_username: uniqUsername(appId, username) });
  }

  byEmail(appId: string, email: string) {
    return this.c.findOne({ uniq_email: uniqEmail(appId, email) });
  }

  byKey(appId: string, key: string) {
    return this.c.findOne({ uniq_key: uniqKey(appId, key) });
  }

  async page(appId: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const [items, total] = await Promise.all([
      this.c.find({ app_id: appId }, { sort: { created_at: 1, _id: 1 }, skip: offset, limit }).toArray(),
      this.c.countDocuments({ app_id: appId }),
    ]);
    return { items, total };
  }

  async many(appId: string, ids: readonly string[]) {
    return ids.length === 0 ? [] : this.c.find({ app_id: appId, _id: { $in: [...ids] } }, { sort: { _id: 1 } }).toArray();
  }

  async ids(appId: string) {
    return (await this.c.find({ app_id: appId }, { projection: { _id: 1 }, sort: { _id: 1 } }).toArray()).map((u) => u._id);
  }

  forApp(appId: string) {
    return this.c.find({ app_id: appId }, { sort: { created_at: 1, _id: 1 } }).toArray();
  }

  all() {
    return this.c.find({}).toArray();
  }

  async insert(doc: UserDoc) {
    await unique(this.c.insertOne(doc));
  }

  async update(appId: string, id: string, changes: Changes<UserDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(appId, id);
    return settled(unique(this.c.findOneAndUpdate({ _id: id, app_id: appId }, update, { returnDocument: 'after' })), this.changed);
  }

  async addDevice(appId: string, id: string, kind: DeviceKind, token: string) {
    // Two atomic updates, not the lists written back whole: phones register several tokens at once.
    // MongoDB refuses $pull and $addToSet on one path in one update, hence two.
    const others = DEVICE_KINDS.filter((k) => k !== kind);
    await settled((async () => {
      await this.c.updateOne({ _id: id, app_id: appId }, { $pull: Object.fromEntries(others.map((k) => [`devices.${k}`, token])) });
      await this.c.updateOne({ _id: id, app_id: appId }, { $addToSet: { [`devices.${kind}`]: token } });
    })(), this.changed);
  }

  async removeDevice(appId: string, id: string, kind: DeviceKind, token: string) {
    await settled(this.c.updateOne({ _id: id, app_id: appId }, { $pull: { [`devices.${kind}`]: token } }), this.changed);
  }

  async remove(appId: string, id: string) {
    return (await settled(this.c.deleteOne({ _id: id, app_id: appId }), this.changed)).deletedCount > 0;
  }

  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}
