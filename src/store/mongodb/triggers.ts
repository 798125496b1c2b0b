// Triggers and layer subscriptions on MongoDB.
import type { Collection, Db, Filter } from 'mongodb';
import type { Changes } from '../changes.js';
import type { SubscriptionDoc, TriggerDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import { pageBounds, type PageRequest } from '../paging.js';
import { subscriptionId, type SubscriptionRepo, type TriggerRepo, type TriggerScope } from '../repos/structure.js';
import { uniqKey } from '../unique-keys.js';
import { settled } from '../write-watch.js';
import { updateOf } from './docs.js';

const OLDEST_FIRST = { created_at: 1, _id: 1 } as const;

function scoped(appId: string, scope: TriggerScope): Filter<TriggerDoc> {
  if ('placeId' in scope) return { app_id: appId, place_id: scope.placeId };
  const filter: Filter<TriggerDoc> = { app_id: appId, layer_id: scope.layerId };
  if (scope.on !== undefined) filter.on_layer = scope.on === 'layer';
  return filter;
}

export class MongoTriggers implements TriggerRepo {
  private readonly c: Collection<TriggerDoc>;

  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<TriggerDoc>('triggers');
  }

  get(appId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId });
  }

  byKey(appId: string, key: string) {
    return this.c.findOne({ uniq_key: uniqKey(appId, key) });
  }

  list(appId: string, scope: TriggerScope) {
    return this.c.find(scoped(appId, scope), { sort: OLDEST_FIRST }).toArray();
  }

  async page(appId: string, scope: TriggerScope, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter = scoped(appId, scope);
    const [items, total] = await Promise.all([this.c.find(filter, { sort: OLDEST_FIRST, skip: offset, limit }).toArray(), this.c.countDocuments(filter)]);
    return { items, total };
  }

  async onPlaces(appId: string, placeIds: readonly string[]) {
    return placeIds.length === 0 ? [] : this.c.find({ app_id: appId, place_id: { $in: [...placeIds] } }, { sort: OLDEST_FIRST }).toArray();
  }

  forApp(appId: string) {
    return this.c.find({ app_id: appId }, { sort: OLDEST_FIRST }).toArray();
  }

  all() {
    return this.c.find({}).toArray();
  }

  async insert(doc: TriggerDoc) {
    await unique(this.c.insertOne(doc));
  }

  async update(appId: string, id: string, changes: Changes<TriggerDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(appId, id);
    return settled(unique(this.c.findOneAndUpdate({ _id: id, app_id: appId }, update, { returnDocument: 'after' })), this.changed);
  }

  async followPlace(appId: string, placeId: string, layerId: string) {
    await settled(this.c.updateMany({ app_id: appId, place_id: placeId }, { $set: { layer_id: layerId } }), this.changed);
  }

  async removeMany(appId: string, ids: readonly string[]) {
    if (ids.length === 0) return 0;
    return (await settled(this.c.deleteMany({ app_id: appId, _id: { $in: [...ids] } }), this.changed)).deletedCount;
  }

  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}

const SUBSCRIBED_FIRST = { date_subscribed: 1, _id: 1 } as const;

export class MongoSubscriptions implements SubscriptionRepo {
  private readonly c: Collection<SubscriptionDoc>;

  constructor(db: Db) {
    this.c = db.collection<SubscriptionDoc>('subscriptions');
  }

  get(appId: string, layerId: string, userId: string) {
    return this.c.findOne({ _id: subscriptionId(layerId, userId), app_id: appId });
  }

  forUser(appId: string, userId: string) {
    return this.c.find({ app_id: appId, user_id: userId }, { sort: SUBSCRIBED_FIRST }).toArray();
  }

  forLayer(appId: string, layerId: string) {
    return this.c.find({ app_id: appId, layer_id: layerId }, { sort: SUBSCRIBED_FIRST }).toArray();
  }

  all() {
    return this.c.find({}).toArray();
  }

  async add(doc: SubscriptionDoc) {
    // Inserted only when absent: a subscription made meanwhile keeps its date.
    const { _id, ...fields } = doc;
    await this.c.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
    return (await this.get(doc.app_id, doc.layer_id, doc.user_id)) ?? doc;
  }

  async setSettings(appId: string, layerId: string, userId: string, settings: Record<string, unknown>) {
    await this.c.updateOne({ _id: subscriptionId(layerId, userId), app_id: appId }, { $set: { settings } });
  }

  async remove(appId: string, layerId: string, userId: string) {
    return (await this.c.deleteOne({ _id: subscriptionId(layerId, userId), app_id: appId })).deletedCount > 0;
  }

  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ app_id: appId, user_id: userId });
  }

  async removeForLayer(appId: string, layerId: string) {
    await this.c.deleteMany({ app_id: appId, layer_id: layerId });
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}
