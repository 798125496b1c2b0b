// Triggers and layer subscriptions on the embedded store.
import type { Changes } from '../changes.js';
import type { SubscriptionDoc, TriggerDoc } from '../documents.js';
import { pageBounds, type PageRequest } from '../paging.js';
import { subscriptionId, type SubscriptionRepo, type TriggerRepo, type TriggerScope } from '../repos/structure.js';
import { uniqKey } from '../unique-keys.js';
import { settled } from '../write-watch.js';
import { DocTable, type SqliteAccess } from './doc-table.js';

const ids = (list: readonly string[]) => JSON.stringify(list);
// `?` twice: whether on the layer itself (1), on its places (0) or both (null).
const OF_PLACE = 'app_id = ? AND place_id = ?';
const OF_LAYER = 'app_id = ? AND layer_id = ? AND (? IS NULL OR on_layer = ?)';
const onLayer = (on: 'layer' | 'places' | undefined) => (on === undefined ? null : on === 'layer' ? 1 : 0);

export class SqliteTriggers implements TriggerRepo {
  private readonly t: DocTable<TriggerDoc>;
  private readonly byId;
  private readonly byUniq;
  private readonly ofPlace;
  private readonly ofLayer;
  private readonly pageOfPlace;
  private readonly pageOfLayer;
  private readonly countOfPlace;
  private readonly countOfLayer;
  private readonly ofPlaces;
  private readonly ofApp;
  private readonly everything;
  private readonly follow;
  private readonly delMany;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<TriggerDoc>(s, 'triggers'));
    this.byId = t.one<[string, string]>('SELECT doc FROM triggers WHERE _id = ? AND app_id = ?');
    this.byUniq = t.one<[string]>('SELECT doc FROM triggers WHERE uniq_key = ?');
    this.ofPlace = t.many<[string, string]>(`SELECT doc FROM triggers WHERE ${OF_PLACE} ORDER BY created_at, _id`);
    this.ofLayer = t.many<[string, string, number | null, number | null]>(`SELECT doc FROM triggers WHERE ${OF_LAYER} ORDER BY created_at, _id`);
    this.pageOfPlace = t.many<[string, string, number, number]>(`SELECT doc FROM triggers WHERE ${OF_PLACE} ORDER BY created_at, _id LIMIT ? OFFSET ?`);
    this.pageOfLayer = t.many<[string, string, number | null, number | null, number, number]>(`SELECT doc FROM triggers WHERE ${OF_LAYER} ORDER BY created_at, _id LIMIT ? OFFSET ?`);
    this.countOfPlace = t.value<number, [string, string]>(`SELECT count(*) FROM triggers WHERE ${OF_PLACE}`);
    this.countOfLayer = t.value<number, [string, string, number | null, number | null]>(`SELECT count(*) FROM triggers WHERE ${OF_LAYER}`);
    this.ofPlaces = t.many<[string, string]>('SELECT doc FROM triggers WHERE app_id = ? AND place_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, _id');
    this.ofApp = t.many<[string]>('SELECT doc FROM triggers WHERE app_id = ? ORDER BY created_at, _id');
    this.everything = t.many<[]>('SELECT doc FROM triggers');
    this.follow = t.write<[string, string, string]>("UPDATE triggers SET doc = json_set(doc, '$.layer_id', ?) WHERE app_id = ? AND place_id = ?");
    this.delMany = t.write<[string, string]>('DELETE FROM triggers WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?))');
    this.delForApp = t.write<[string]>('DELETE FROM triggers WHERE app_id = ?');
  }

  async get(appId: string, id: string) {
    return this.byId(id, appId);
  }

  async byKey(appId: string, key: string) {
    return this.byUniq(uniqKey(appId, key));
  }

  async list(appId: string, scope: TriggerScope) {
    if ('placeId' in scope) return this.ofPlace(appId, scope.placeId);
    const on = onLayer(scope.on);
    return this.ofLayer(appId, scope.layerId, on, on);
  }

  async page(appId: string, scope: TriggerScope, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    if ('placeId' in scope) return { items: this.pageOfPlace(appId, scope.placeId, limit, offset), total: this.countOfPlace(appId, scope.placeId) };
    const on = onLayer(scope.on);
    return { items: this.pageOfLayer(appId, scope.layerId, on, on, limit, offset), total: this.countOfLayer(appId, scope.layerId, on, on) };
  }

  async onPlaces(appId: string, placeIds: readonly string[]) {
    return placeIds.length === 0 ? [] : this.ofPlaces(appId, ids(placeIds));
  }

  async forApp(appId: string) {
    return this.ofApp(appId);
  }

  async all() {
    return this.everything();
  }

  insert(doc: TriggerDoc) {
    return this.t.insert(doc);
  }

  update(appId: string, id: string, changes: Changes<TriggerDoc>) {
    return settled(this.t.change(() => this.byId(id, appId), changes), this.changed);
  }

  async followPlace(appId: string, placeId: string, layerId: string) {
    await settled(this.follow(layerId, appId, placeId), this.changed);
  }

  removeMany(appId: string, list: readonly string[]) {
    return list.length === 0 ? Promise.resolve(0) : settled(this.delMany(appId, ids(list)), this.changed);
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}

export class SqliteSubscriptions implements SubscriptionRepo {
  private readonly t: DocTable<SubscriptionDoc>;
  private readonly byId;
  private readonly ofUser;
  private readonly ofLayer;
  private readonly everything;
  private readonly addOne;
  private readonly del;
  private readonly delForUser;
  private readonly delForLayer;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<SubscriptionDoc>(s, 'subscriptions'));
    this.byId = t.one<[string, string]>('SELECT doc FROM subscriptions WHERE _id = ? AND app_id = ?');
    this.ofUser = t.many<[string, string]>('SELECT doc FROM subscriptions WHERE app_id = ? AND user_id = ? ORDER BY date_subscribed, rowid');
    this.ofLayer = t.many<[string, string]>('SELECT doc FROM subscriptions WHERE app_id = ? AND layer_id = ? ORDER BY date_subscribed, rowid');
    this.everything = t.many<[]>('SELECT doc FROM subscriptions');
    this.addOne = t.write<[string, string]>('INSERT INTO subscriptions (_id, doc) VALUES (?, ?) ON CONFLICT (_id) DO NOTHING');
    this.del = t.write<[string, string]>('DELETE FROM subscriptions WHERE _id = ? AND app_id = ?');
    this.delForUser = t.write<[string, string]>('DELETE FROM subscriptions WHERE app_id = ? AND user_id = ?');
    this.delForLayer = t.write<[string, string]>('DELETE FROM subscriptions WHERE app_id = ? AND layer_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM subscriptions WHERE app_id = ?');
  }

  async get(appId: string, layerId: string, userId: string) {
    return this.byId(subscriptionId(layerId, userId), appId);
  }

  async forUser(appId: string, userId: string) {
    return this.ofUser(appId, userId);
  }

  async forLayer(appId: string, layerId: string) {
    return this.ofLayer(appId, layerId);
  }

  async all() {
    return this.everything();
  }

  async add(doc: SubscriptionDoc) {
    await this.addOne(doc._id, JSON.stringify(doc));
    return (await this.get(doc.app_id, doc.layer_id, doc.user_id)) ?? doc;
  }

  async setSettings(appId: string, layerId: string, userId: string, settings: Record<string, unknown>) {
    await this.t.change(() => this.byId(subscriptionId(layerId, userId), appId), { set: { settings } });
  }

  async remove(appId: string, layerId: string, userId: string) {
    return (await this.del(subscriptionId(layerId, userId), appId)) > 0;
  }

  async removeForUser(appId: string, userId: string) {
    await this.delForUser(appId, userId);
  }

  async removeForLayer(appId: string, layerId: string) {
    await this.delForLayer(appId, layerId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}
