// Points on MongoDB: the history (`locations`, a document per point) and each user's last location
// (`last_locations`, `_id` = user id). `raw` and `client` are kept as the JSON text the shard made;
// documents an earlier release stored hold them as objects, and read the same.
import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import type { DateRange, LastPointSeed, LocationDoc, PointRow } from '../documents.js';
import { newId } from '../ids.js';
import { TYPED_INDEXES } from '../indexes.js';
import { newestPerUser, type LastLocations, type PointHistory } from '../locations.js';
import { ignoringRepeats, objectOf, typedCollection } from './typed.js';

/** A stored point as MongoDB holds it (earlier releases: objects for raw and client, no own_uuid). */
interface PointDocument {
  _id: string;
  app_id: string;
  user_id: string;
  uuid: string;
  own_uuid?: boolean;
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
  speed?: number;
  altitude?: number;
  heading?: number;
  vertical_accuracy?: number;
  raw: string | Record<string, unknown> | null;
  client?: string | Record<string, unknown>;
  received_at?: number;
}

function pointDocument(_id: string, p: PointRow): PointDocument {
  const d: PointDocument = {
    _id, app_id: p.app_id, user_id: p.user_id, uuid: p.uuid, own_uuid: p.own_uuid, date: p.date, latitude: p.latitude,
    longitude: p.longitude, horizontal_accuracy: p.horizontal_accuracy, raw: p.raw, received_at: p.received_at,
  };
  if (p.speed !== null) d.speed = p.speed;
  if (p.altitude !== null) d.altitude = p.altitude;
  if (p.heading !== null) d.heading = p.heading;
  if (p.vertical_accuracy !== null) d.vertical_accuracy = p.vertical_accuracy;
  if (p.client !== null) d.client = p.client;
  return d;
}

function locationDoc(d: PointDocument): LocationDoc {
  const doc: LocationDoc = {
    _id: d._id, app_id: d.app_id, user_id: d.user_id, uuid: d.uuid, date: d.date, latitude: d.latitude, longitude: d.longitude,
    horizontal_accuracy: d.horizontal_accuracy, raw: objectOf(d.raw), received_at: d.received_at ?? d.date,
  };
  if (d.speed !== undefined) doc.speed = d.speed;
  if (d.altitude !== undefined) doc.altitude = d.altitude;
  if (d.heading !== undefined) doc.heading = d.heading;
  if (d.vertical_accuracy !== undefined) doc.vertical_accuracy = d.vertical_accuracy;
  if (d.client !== undefined) doc.client = objectOf(d.client)!;
  return doc;
}

function dateRange(r: DateRange): Filter<PointDocument> {
  if (r.after === undefined && r.before === undefined) return {};
  const date: { $gt?: number; $lt?: number } = {};
  if (r.after !== undefined) date.$gt = r.after;
  if (r.before !== undefined) date.$lt = r.before;
  return { date };
}

export class MongoPointHistory implements PointHistory {
  private constructor(private readonly col: Collection<PointDocument>) {}

  static async open(db: Db): Promise<MongoPointHistory> {
    const col = db.collection<PointDocument>('locations');
    try {
      await col.createIndexes([...TYPED_INDEXES.locations]);
    } catch (err) {
      // A collection an earlier release wrote may hold repeats of a point: they go, then the index is made.
      if ((err as { code?: unknown }).code !== 11000) throw err;
      await dropRepeats(col);
      await col.createIndexes([...TYPED_INDEXES.locations]);
    }
    return new MongoPointHistory(col);
  }

  async add(points: readonly PointRow[]): Promise<void> {
    if (points.length === 0) return;
    await ignoringRepeats(() => this.col.insertMany(points.map((p) => pointDocument(newId(), p)), { ordered: false }));
  }

  async newest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]> {
    const docs = await this.col.find({ user_id: userId, app_id: appId, ...dateRange(range) }).sort({ date: -1, _id: -1 }).limit(count).toArray();
    return docs.map(locationDoc);
  }

  async oldest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]> {
    const docs = await this.col.find({ user_id: userId, app_id: appId, ...dateRange(range) }).sort({ date: 1, _id: 1 }).limit(count).toArray();
    return docs.map(locationDoc);
  }

  async remove(appId: string, userId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.col.deleteMany({ _id: { $in: [...ids] }, user_id: userId, app_id: appId })).deletedCount;
  }

  async removeUser(appId: string, userId: string): Promise<void> {
    await this.col.deleteMany({ user_id: userId, app_id: appId });
  }

  async removeForApp(appId: string): Promise<void> {
    await this.col.deleteMany({ app_id: appId });
  }

  async removeDatedBefore(cutoff: number, max: number): Promise<number> {
    const ids = (await this.col.find({ date: { $lt: cutoff } }, { projection: { _id: 1 } }).limit(max).toArray()).map((d) => d._id);
    if (ids.length === 0) return 0;
    return (await this.col.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
}

/** Keeps the first stored of each set of repeats (same user, time, position and accuracy). */
async function dropRepeats(col: Collection<PointDocument>): Promise<void> {
  const groups = col.aggregate<{ ids: string[] }>([
    { $sort: { _id: 1 } },
    { $group: { _id: { u: '$user_id', d: '$date', la: '$latitude', lo: '$longitude', a: '$horizontal_accuracy' }, ids: { $push: '$_id' }, n: { $sum: 1 } } },
    { $match: { n: { $gt: 1 } } },
    { $project: { _id: 0, ids: 1 } },
  ], { allowDiskUse: true });
  for await (const g of groups) await col.deleteMany({ _id: { $in: g.ids.slice(1) } });
}

/** A user's last point: `_id` is the user id. */
type LastDocument = PointDocument;

export class MongoLastLocations implements LastLocations {
  private constructor(private readonly col: Collection<LastDocument>) {}

  static async open(db: Db): Promise<MongoLastLocations> {
    return new MongoLastLocations(await typedCollection<LastDocument>(db, 'last_locations', TYPED_INDEXES.last_locations));
  }

  async save(points: readonly PointRow[]): Promise<void> {
    if (points.length === 0) return;
    // Replaces a stored point that is older, or as old from elsewhere; a user without one gets it
    // by the upsert. Where the stored one stays, the upsert meets its `_id`: a duplicate, ignored.
    const ops: AnyBulkWriteOperation<LastDocument>[] = newestPerUser(points).map((p) => {
      const { _id, ...set } = pointDocument(p.user_id, p);
      const unset = unsetAbsent(p);
      return {
        updateOne: {
          filter: {
            _id,
            $or: [
              { date: { $lt: p.date } },
              { date: p.date, $or: [{ latitude: { $ne: p.latitude } }, { longitude: { $ne: p.longitude } }, { horizontal_accuracy: { $ne: p.horizontal_accuracy } }] },
            ],
          },
          update: Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set },
          upsert: true,
        },
      };
    });
    await ignoringRepeats(() => this.col.bulkWrite(ops, { ordered: false }));
  }

  async of(appId: string, userId: string): Promise<LocationDoc | null> {
    const d = await this.col.findOne({ _id: userId, app_id: appId });
    return d === null ? null : locationDoc(d);
  }

  async ofUsers(appId: string, userIds: readonly string[]): Promise<LocationDoc[]> {
    if (userIds.length === 0) return [];
    return (await this.col.find({ _id: { $in: [...new Set(userIds)] }, app_id: appId }).toArray()).map(locationDoc);
  }

  async ofApp(appId: string, max: number): Promise<LocationDoc[]> {
    return (await this.col.find({ app_id: appId }).sort({ _id: 1 }).limit(max).toArray()).map(locationDoc);
  }

  async seeds(): Promise<LastPointSeed[]> {
    const docs = await this.col.find({}, { projection: { date: 1, latitude: 1, longitude: 1, horizontal_accuracy: 1 } }).toArray();
    return docs.map((d) => ({ user_id: d._id, date: d.date, latitude: d.latitude, longitude: d.longitude, horizontal_accuracy: d.horizontal_accuracy }));
  }

  async removeUser(appId: string, userId: string): Promise<void> {
    await this.col.deleteMany({ _id: userId, app_id: appId });
  }

  async removeForApp(appId: string): Promise<void> {
    await this.col.deleteMany({ app_id: appId });
  }
}

/** The optional fields a point lacks: a replaced last location must not keep the older point's. */
function unsetAbsent(p: PointRow): Partial<Record<'speed' | 'altitude' | 'heading' | 'vertical_accuracy' | 'client', ''>> {
  const unset: Partial<Record<'speed' | 'altitude' | 'heading' | 'vertical_accuracy' | 'client', ''>> = {};
  if (p.speed === null) unset.speed = '';
  if (p.altitude === null) unset.altitude = '';
  if (p.heading === null) unset.heading = '';
  if (p.vertical_accuracy === null) unset.vertical_accuracy = '';
  if (p.client === null) unset.client = '';
  return unset;
}
