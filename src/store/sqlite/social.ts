// Geonotes, share links and history batches on the embedded store.
import type { GeonoteDoc, LocationBatchDoc, ShareLinkDoc } from '../documents.js';
import type { GeonoteRepo, LocationBatchRepo, ShareLinkRepo } from '../repos/social.js';
import { DocTable, type SqliteAccess } from './doc-table.js';

export class SqliteGeonotes implements GeonoteRepo {
  private readonly t: DocTable<GeonoteDoc>;
  private readonly ofUser;
  private readonly byId;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<GeonoteDoc>(s, 'geonotes'));
    this.ofUser = t.many<[string, string]>('SELECT doc FROM geonotes WHERE app_id = ? AND user_id = ? ORDER BY date_created DESC, _id');
    this.byId = t.one<[string, string]>('SELECT doc FROM geonotes WHERE _id = ? AND app_id = ?');
    this.delForUser = t.write<[string, string]>('DELETE FROM geonotes WHERE app_id = ? AND user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM geonotes WHERE app_id = ?');
  }

  insert(doc: GeonoteDoc) {
    return this.t.insert(doc);
  }

  async forUser(appId: string, userId: string) {
    return this.ofUser(appId, userId);
  }

  async markTriggered(appId: string, id: string, at: number) {
    await this.t.change(() => this.byId(id, appId), { set: { date_triggered: at } });
  }

  async removeForUser(appId: string, userId: string) {
    await this.delForUser(appId, userId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}

export class SqliteShareLinks implements ShareLinkRepo {
  private readonly t: DocTable<ShareLinkDoc>;
  private readonly byId;
  private readonly ofTokens;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<ShareLinkDoc>(s, 'share_links'));
    this.byId = t.one<[string, string]>('SELECT doc FROM share_links WHERE _id = ? AND app_id = ?');
    this.ofTokens = t.many<[string]>('SELECT doc FROM share_links WHERE _id IN (SELECT value FROM json_each(?))');
    this.delForUser = t.write<[string, string]>('DELETE FROM share_links WHERE app_id = ? AND user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM share_links WHERE app_id = ?');
  }

  insert(doc: ShareLinkDoc) {
    return this.t.insert(doc);
  }

  async get(appId: string, token: string) {
    return this.byId(token, appId);
  }

  async byTokens(tokens: readonly string[]) {
    return tokens.length === 0 ? [] : this.ofTokens(JSON.stringify(tokens));
  }

  async setStatus(appId: string, token: string, status: ShareLinkDoc['status']) {
    await this.t.change(() => this.byId(token, appId), { set: { status } });
  }

  async removeForUser(appId: string, userId: string) {
    await this.delForUser(appId, userId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}

export class SqliteLocationBatches implements LocationBatchRepo {
  private readonly t: DocTable<LocationBatchDoc>;
  private readonly byId;
  private readonly ofUser;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<LocationBatchDoc>(s, 'location_batches'));
    this.byId = t.one<[string, string]>('SELECT doc FROM location_batches WHERE _id = ? AND app_id = ?');
    this.ofUser = t.one<[string, string, string]>('SELECT doc FROM location_batches WHERE _id = ? AND app_id = ? AND user_id = ?');
    this.delForUser = t.write<[string, string]>('DELETE FROM location_batches WHERE app_id = ? AND user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM location_batches WHERE app_id = ?');
  }

  insert(doc: LocationBatchDoc) {
    return this.t.insert(doc);
  }

  async get(appId: string, userId: string, id: string) {
    return this.ofUser(id, appId, userId);
  }

  async markDeleted(appId: string, id: string, at: number) {
    await this.t.change(() => this.byId(id, appId), { set: { deleted_at: at } });
  }

  async removeForUser(appId: string, userId: string) {
    await this.delForUser(appId, userId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}
