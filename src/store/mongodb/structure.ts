// Layers and places on MongoDB.
import type { Collection, Db, Filter } from 'mongodb';
import type { Changes } from '../changes.js';
import type { LayerDoc, PlaceDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import { pageBounds, type PageRequest } from '../paging.js';
import type { LayerRepo, PlaceNames, PlaceOrder, PlaceRepo } from '../repos/structure.js';
import { uniqKey, uniqPlaceKey } from '../unique-keys.js';
import { settled } from '../write-watch.js';
import { updateOf } from './docs.js';

const OLDEST_FIRST = { created_at: 1, _id: 1 } as const;

export class MongoLayers implements LayerRepo {
  private readonly c: Collection<LayerDoc>;

  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<LayerDoc>('layers');
  }

  get(appId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId });
  }

  byKey(appId: string, key: string) {
    return this.c.findOne({ uniq_key: uniqKey(appId, key) });
  }

  forApp(appId: string) {
    return this.c.find({ app_id: appId }, { sort: OLDEST_FIRST }).toArray();
  }

  async many(appId: string, ids: readonly string[]) {
    return ids.length === 0 ? [] : this.c.find({ app_id: appId, _id: { $in: [...ids] } }, { sort: OLDEST_FIRST }).toArray();
  }

  publicOr(appId: string, ids: readonly string[]) {
    return this.c.find({ app_id: appId, $or: [{ public: 1 }, { _id: { $in: [...ids] } }] }, { sort: OLDEST_FIRST }).toArray();
  }

  withCentre(appId: string) {
    return this.c.find({ app_id: appId, latitude: { $exists: true } }, { sort: OLDEST_FIRST }).toArray();
  }

  async longestRateLimitS() {
    const [top] = await this.c.find({ trigger_rate_limit: { $gt: 0 } }, { projection: { trigger_rate_limit: 1 }, sort: { trigger_rate_limit: -1 }, limit: 1 }).toArray();
    return top?.trigger_rate_limit ?? 0;
  }

  all() {
    return this.c.find({}).toArray();
  }

  async insert(doc: LayerDoc) {
    await unique(this.c.insertOne(doc));
  }

  async update(appId: string, id: string, changes: Changes<LayerDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(appId, id);
    return settled(unique(this.c.findOneAndUpdate({ _id: id, app_id: appId }, update, { returnDocument: 'after' })), this.changed);
  }

  async remove(appId: string, id: string) {
    return (await settled(this.c.deleteOne({ _id: id, app_id: appId }), this.changed)).deletedCount > 0;
  }

  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}

const PLACE_ORDERS = {
  visits: { visits: -1, created_at: -1, _id: 1 },
  name: { name: 1, _id: 1 },
  recent: { created_at: -1, _id: 1 },
} as const satisfies Record<PlaceOrder, unknown>;

export class MongoPlaces implements PlaceRepo {
  private readonly c: Collection<PlaceDoc>;

  constructor(db: Db) {
    this.c = db.collection<PlaceDoc>('places');
  }

  get(appId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId });
  }

  byKey(appId: string, layerId: string, key: string) {
    return this.c.findOne({ uniq_key: uniqPlaceKey(appId, layerId, key) });
  }

  onLayer(appId: string, layerId: string) {
    return this.c.find({ app_id: appId, layer_id: layerId }, { sort: OLDEST_FIRST }).toArray();
  }

  firstOnLayer(appId: string, layerId: string) {
    return this.c.findOne({ app_id: appId, layer_id: layerId }, { sort: OLDEST_FIRST });
  }

  async pageOnLayer(appId: string, layerId: string, names: PlaceNames, order: PlaceOrder, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter: Filter<PlaceDoc> = { app_id: appId, layer_id: layerId };
    if (names === 'named') filter.name = { $ne: '' };
    if (names === 'unnamed') filter.name = '';
    const [items, total] = await Promise.all([
      this.c.find(filter, { sort: PLACE_ORDERS[order], skip: offset, limit }).toArray(),
      this.c.countDocuments(filter),
    ]);
    return { items, total };
  }

  async many(appId: string, ids: readonly string[]) {
    return ids.length === 0 ? [] : this.c.find({ app_id: appId, _id: { $in: [...ids] } }, { sort: OLDEST_FIRST }).toArray();
  }

  forApp(appId: string) {
    return this.c.find({ app_id: appId }, { sort: OLDEST_FIRST }).toArray();
  }

  all() {
    return this.c.find({}).toArray();
  }

  async insert(doc: PlaceDoc) {
    await unique(this.c.insertOne(doc));
  }

  async update(appId: string, id: string, changes: Changes<PlaceDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(appId, id);
    return unique(this.c.findOneAndUpdate({ _id: id, app_id: appId }, update, { returnDocument: 'after' }));
  }

  async addVisits(appId: string, id: string, n: number) {
    await this.c.updateOne({ _id: id, app_id: appId }, { $inc: { visits: n } });
  }

  async removeMany(appId: string, ids: readonly string[]) {
    if (ids.length === 0) return 0;
    return (await this.c.deleteMany({ app_id: appId, _id: { $in: [...ids] } })).deletedCount;
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}
