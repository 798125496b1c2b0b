// Applications, tokens, authorization codes and API hit counters on the embedded store.
import type { ApplicationRepo, ApiHitRepo, AuthCodeRepo, TokenRepo } from '../repos/accounts.js';
import type { Changes } from '../changes.js';
import type { ApiHitsDoc, ApplicationDoc, AuthCodeDoc, TokenDoc } from '../documents.js';
import { DocTable, type SqliteAccess } from './doc-table.js';
import { settled } from '../write-watch.js';

export class SqliteApplications implements ApplicationRepo {
  private readonly t: DocTable<ApplicationDoc>;
  private readonly byId;
  private readonly byClient;
  private readonly everything;
  private readonly del;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<ApplicationDoc>(s, 'applications'));
    this.byId = t.one<[string]>('SELECT doc FROM applications WHERE _id = ?');
    this.byClient = t.one<[string]>('SELECT doc FROM applications WHERE client_id = ?');
    this.everything = t.many<[]>('SELECT doc FROM applications ORDER BY created_at, _id');
    this.del = t.write<[string]>('DELETE FROM applications WHERE _id = ?');
  }

  async get(id: string) {
    return this.byId(id);
  }

  async byClientId(clientId: string) {
    return this.byClient(clientId);
  }

  async all() {
    return this.everything();
  }

  insert(doc: ApplicationDoc) {
    return this.t.insert(doc);
  }

  update(id: string, changes: Changes<ApplicationDoc>) {
    return settled(this.t.change(() => this.byId(id), changes), this.changed);
  }

  async remove(id: string) {
    return (await settled(this.del(id), this.changed)) > 0;
  }
}

export class SqliteTokens implements TokenRepo {
  private readonly t: DocTable<TokenDoc>;
  private readonly byId;
  private readonly del;
  private readonly delMany;
  private readonly delAppTokens;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<TokenDoc>(s, 'tokens'));
    this.byId = t.one<[string]>('SELECT doc FROM tokens WHERE _id = ?');
    this.del = t.write<[string]>('DELETE FROM tokens WHERE _id = ?');
    this.delMany = t.write<[string]>('DELETE FROM tokens WHERE _id IN (SELECT value FROM json_each(?))');
    this.delAppTokens = t.write<[string]>("DELETE FROM tokens WHERE app_id = ? AND (kind = 'app' OR (kind = 'refresh' AND user_id IS NULL))");
    this.delForUser = t.write<[string]>('DELETE FROM tokens WHERE user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM tokens WHERE app_id = ?');
  }

  async get(hash: string) {
    return this.byId(hash);
  }

  insert(doc: TokenDoc) {
    return this.t.insert(doc);
  }

  async remove(hash: string) {
    return (await settled(this.del(hash), this.changed)) > 0;
  }

  async removeMany(hashes: readonly string[]) {
    if (hashes.length > 0) await settled(this.delMany(JSON.stringify(hashes)), this.changed);
  }

  async removeAppTokens(appId: string) {
    await settled(this.delAppTokens(appId), this.changed);
  }

  async removeForUser(userId: string) {
    await settled(this.delForUser(userId), this.changed);
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}

export class SqliteAuthCodes implements AuthCodeRepo {
  private readonly t: DocTable<AuthCodeDoc>;
  private readonly byId;
  private readonly unused;
  private readonly delExpired;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<AuthCodeDoc>(s, 'oauth_codes'));
    this.byId = t.one<[string]>('SELECT doc FROM oauth_codes WHERE _id = ?');
    // `used` is JSON false (0) until claimed.
    this.unused = t.one<[string]>('SELECT doc FROM oauth_codes WHERE _id = ? AND used = 0');
    this.delExpired = t.write<[number, number]>('DELETE FROM oauth_codes WHERE _id IN (SELECT _id FROM oauth_codes WHERE expires_at < ? LIMIT ?)');
    this.delForApp = t.write<[string]>('DELETE FROM oauth_codes WHERE app_id = ?');
  }

  async get(hash: string) {
    return this.byId(hash);
  }

  insert(doc: AuthCodeDoc) {
    return this.t.insert(doc);
  }

  async claim(hash: string, tokenIds: readonly string[]) {
    const claimed = await this.t.change(() => this.unused(hash), { set: { used: true, token_ids: [...tokenIds] } });
    return claimed !== null;
  }

  removeExpiredBefore(cutoff: number, max: number) {
    return this.delExpired(cutoff, max);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}

export class SqliteApiHits implements ApiHitRepo {
  private readonly t: DocTable<ApiHitsDoc>;
  private readonly ofApp;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<ApiHitsDoc>(s, 'api_hits'));
    this.ofApp = t.rows<Pick<ApiHitsDoc, 'day' | 'hits'>, [string]>("SELECT day, json_extract(doc, '$.hits') AS hits FROM api_hits WHERE app_id = ?");
    this.delForApp = t.write<[string]>('DELETE FROM api_hits WHERE app_id = ?');
  }

  save(docs: readonly ApiHitsDoc[]) {
    return this.t.upsertMany(docs);
  }

  async forApp(appId: string) {
    return this.ofApp(appId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}
