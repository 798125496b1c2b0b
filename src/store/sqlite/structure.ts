// Layers and places on the embedded store.
import type { Changes } from '../changes.js';
import type { LayerDoc, PlaceDoc } from '../documents.js';
import { pageBounds, type PageRequest } from '../paging.js';
import type { LayerRepo, PlaceNames, PlaceOrder, PlaceRepo } from '../repos/structure.js';
import { uniqKey, uniqPlaceKey } from '../unique-keys.js';
import { settled } from '../write-watch.js';
import { DocTable, type SqliteAccess } from './doc-table.js';

const ids = (list: readonly string[]) => JSON.stringify(list);

export class SqliteLayers implements LayerRepo {
  private readonly t: DocTable<LayerDoc>;
  private readonly byId;
  private readonly byUniq;
  private readonly ofApp;
  private readonly manyOf;
  private readonly publicOrOf;
  private readonly centred;
  private readonly longest;
  private readonly everything;
  private readonly del;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<LayerDoc>(s, 'layers'));
    this.byId = t.one<[string, string]>('SELECT doc FROM layers WHERE _id = ? AND app_id = ?');
    this.byUniq = t.one<[string]>('SELECT doc FROM layers WHERE uniq_key = ?');
    this.ofApp = t.many<[string]>('SELECT doc FROM layers WHERE app_id = ? ORDER BY created_at, _id');
    this.manyOf = t.many<[string, string]>('SELECT doc FROM layers WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?)) ORDER BY created_at, _id');
    this.publicOrOf = t.many<[string, string]>('SELECT doc FROM layers WHERE app_id = ? AND (public = 1 OR _id IN (SELECT value FROM json_each(?))) ORDER BY created_at, _id');
    this.centred = t.many<[string]>('SELECT doc FROM layers WHERE app_id = ? AND latitude IS NOT NULL ORDER BY created_at, _id');
    this.longest = t.value<number | null, []>('SELECT max(trigger_rate_limit) FROM layers WHERE trigger_rate_limit > 0');
    this.everything = t.many<[]>('SELECT doc FROM layers');
    this.del = t.write<[string, string]>('DELETE FROM layers WHERE _id = ? AND app_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM layers WHERE app_id = ?');
  }

  async get(appId: string, id: string) {
    return this.byId(id, appId);
  }

  async byKey(appId: string, key: string) {
    return this.byUniq(uniqKey(appId, key));
  }

  async forApp(appId: string) {
    return this.ofApp(appId);
  }

  async many(appId: string, list: readonly string[]) {
    return list.length === 0 ? [] : this.manyOf(appId, ids(list));
  }

  async publicOr(appId: string, list: readonly string[]) {
    return this.publicOrOf(appId, ids(list));
  }

  async withCentre(appId: string) {
    return this.centred(appId);
  }

  async longestRateLimitS() {
    return this.longest() ?? 0;
  }

  async all() {
    return this.everything();
  }

  insert(doc: LayerDoc) {
    return this.t.insert(doc);
  }

  update(appId: string, id: string, changes: Changes<LayerDoc>) {
    return settled(this.t.change(() => this.byId(id, appId), changes), this.changed);
  }

  async remove(appId: string, id: string) {
    return (await settled(this.del(id, appId), this.changed)) > 0;
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}

/** ORDER BY of place/list's orders: a place never visited comes after the visited ones. */
const PLACE_ORDERS: Record<PlaceOrder, string> = {
  visits: 'visits DESC, created_at DESC, _id',
  name: 'name, _id',
  recent: 'created_at DESC, _id',
};

// `?` twice: the choice of names (all, named, unnamed).
const ON_LAYER = "app_id = ? AND layer_id = ? AND (? = 'all' OR (? = 'named') = (name != ''))";

export class SqlitePlaces implements PlaceRepo {
  private readonly t: DocTable<PlaceDoc>;
  private readonly byId;
  private readonly byUniq;
  private readonly ofLayer;
  private readonly firstOf;
  private readonly pageOf: Record<PlaceOrder, (app: string, layer: string, names: string, names2: string, limit: number, offset: number) => PlaceDoc[]>;
  private readonly countOf;
  private readonly manyOf;
  private readonly ofApp;
  private readonly everything;
  private readonly visit;
  private readonly delMany;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<PlaceDoc>(s, 'places'));
    this.byId = t.one<[string, string]>('SELECT doc FROM places WHERE _id = ? AND app_id = ?');
    this.byUniq = t.one<[string]>('SELECT doc FROM places WHERE uniq_key = ?');
    this.ofLayer = t.many<[string, string]>('SELECT doc FROM places WHERE app_id = ? AND layer_id = ? ORDER BY created_at, _id');
    this.firstOf = t.one<[string, string]>('SELECT doc FROM places WHERE app_id = ? AND layer_id = ? ORDER BY created_at, _id LIMIT 1');
    const page = (order: PlaceOrder) => t.many<[string, string, string, string, number, number]>(`SELECT doc FROM places WHERE ${ON_LAYER} ORDER BY ${PLACE_ORDERS[order]} LIMIT ? OFFSET ?`);
    this.pageOf = { visits: page('visits'), name: page('name'), recent: page('recent') };
    this.countOf = t.value<number, [string, string, string, string]>(`SELECT count(*) FROM places WHERE ${ON_LAYER}`);
    this.manyOf = t.many<[string, string]>('SELECT doc FROM places WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?)) ORDER BY created_at, _id');
    this.ofApp = t.many<[string]>('SELECT doc FROM places WHERE app_id = ? ORDER BY created_at, _id');
    this.everything = t.many<[]>('SELECT doc FROM places');
    this.visit = t.write<[number, string, string]>("UPDATE places SET doc = json_set(doc, '$.visits', coalesce(visits, 0) + ?) WHERE _id = ? AND app_id = ?");
    this.delMany = t.write<[string, string]>('DELETE FROM places WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?))');
    this.delForApp = t.write<[string]>('DELETE FROM places WHERE app_id = ?');
  }

  async get(appId: string, id: string) {
    return this.byId(id, appId);
  }

  async byKey(appId: string, layerId: string, key: string) {
    return this.byUniq(uniqPlaceKey(appId, layerId, key));
  }

  async onLayer(appId: string, layerId: string) {
    return this.ofLayer(appId, layerId);
  }

  async firstOnLayer(appId: string, layerId: string) {
    return this.firstOf(appId, layerId);
  }

  async pageOnLayer(appId: string, layerId: string, names: PlaceNames, order: PlaceOrder, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    return { items: this.pageOf[order](appId, layerId, names, names, limit, offset), total: this.countOf(appId, layerId, names, names) };
  }

  async many(appId: string, list: readonly string[]) {
    return list.length === 0 ? [] : this.manyOf(appId, ids(list));
  }

  async forApp(appId: string) {
    return this.ofApp(appId);
  }

  async all() {
    return this.everything();
  }

  insert(doc: PlaceDoc) {
    return this.t.insert(doc);
  }

  update(appId: string, id: string, changes: Changes<PlaceDoc>) {
    return this.t.change(() => this.byId(id, appId), changes);
  }

  async addVisits(appId: string, id: string, n: number) {
    await this.visit(n, id, appId);
  }

  removeMany(appId: string, list: readonly string[]) {
    return list.length === 0 ? Promise.resolve(0) : this.delMany(appId, ids(list));
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}
