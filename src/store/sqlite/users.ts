// Users on the embedded store. Usernames, emails and keys are unique through their `uniq_*`
// fields (`${app_id}:${value}`, the username and email lowercased), each a unique index.
import type { Changes } from '../changes.js';
import type { UserDoc } from '../documents.js';
import type { PageRequest } from '../paging.js';
import { pageBounds } from '../paging.js';
import type { DeviceKind, UserRepo } from '../repos/accounts.js';
import { settled } from '../write-watch.js';
import { DocTable, type SqliteAccess } from './doc-table.js';
import { uniqEmail, uniqKey, uniqUsername } from '../unique-keys.js';

/** The devices with `token` in `kind`'s list only. */
export function withDevice(devices: UserDoc['devices'], kind: DeviceKind, token: string): UserDoc['devices'] {
  const out = { ...devices };
  for (const k of Object.keys(out) as DeviceKind[]) if (k !== kind) out[k] = (out[k] ?? []).filter((t) => t !== token);
  const list = out[kind] ?? [];
  out[kind] = list.includes(token) ? list : [...list, token];
  return out;
}

export class SqliteUsers implements UserRepo {
  private readonly t: DocTable<UserDoc>;
  private readonly byId;
  private readonly byUniqUsername;
  private readonly byUniqEmail;
  private readonly byUniqKey;
  private readonly pageOf;
  private readonly countOf;
  private readonly manyOf;
  private readonly idsOf;
  private readonly ofApp;
  private readonly everyone;
  private readonly del;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<UserDoc>(s, 'users'));
    this.byId = t.one<[string, string]>('SELECT doc FROM users WHERE _id = ? AND app_id = ?');
    this.byUniqUsername = t.one<[string]>('SELECT doc FROM users WHERE uniq_username = ?');
    this.byUniqEmail = t.one<[string]>('SELECT doc FROM users WHERE uniq_email = ?');
    this.byUniqKey = t.one<[string]>('SELECT doc FROM users WHERE uniq_key = ?');
    this.pageOf = t.many<[string, number, number]>('SELECT doc FROM users WHERE app_id = ? ORDER BY created_at, _id LIMIT ? OFFSET ?');
    this.countOf = t.value<number, [string]>('SELECT count(*) FROM users WHERE app_id = ?');
    this.manyOf = t.many<[string, string]>('SELECT doc FROM users WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?)) ORDER BY _id');
    this.idsOf = t.values<string, [string]>('SELECT _id FROM users WHERE app_id = ? ORDER BY _id');
    this.ofApp = t.many<[string]>('SELECT doc FROM users WHERE app_id = ? ORDER BY created_at, _id');
    this.everyone = t.many<[]>('SELECT doc FROM users');
    this.del = t.write<[string, string]>('DELETE FROM users WHERE _id = ? AND app_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM users WHERE app_id = ?');
  }

  async get(appId: string, id: string) {
    return this.byId(id, appId);
  }

  async byUsername(appId: string, username: string) {
    return this.byUniqUsername(uniqUsername(appId, username));
  }

  async byEmail(appId: string, email: string) {
    return this.byUniqEmail(uniqEmail(appId, email));
  }

  async byKey(appId: string, key: string) {
    return this.byUniqKey(uniqKey(appId, key));
  }

  async page(appId: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    return { items: this.pageOf(appId, limit, offset), total: this.countOf(appId) };
  }

  async many(appId: string, ids: readonly string[]) {
    return ids.length === 0 ? [] : this.manyOf(appId, JSON.stringify(ids));
  }

  async ids(appId: string) {
    return this.idsOf(appId);
  }

  async forApp(appId: string) {
    return this.ofApp(appId);
  }

  async all() {
    return this.everyone();
  }

  insert(doc: UserDoc) {
    return this.t.insert(doc);
  }

  update(appId: string, id: string, changes: Changes<UserDoc>) {
    return settled(this.t.change(() => this.byId(id, appId), changes), this.changed);
  }

  async addDevice(appId: string, id: string, kind: DeviceKind, token: string) {
    await settled(this.t.change(() => this.byId(id, appId), (u) => ({ ...u, devices: withDevice(u.devices, kind, token) })), this.changed);
  }

  async removeDevice(appId: string, id: string, kind: DeviceKind, token: string) {
    await settled(this.t.change(() => this.byId(id, appId), (u) => ({ ...u, devices: { ...u.devices, [kind]: (u.devices[kind] ?? []).filter((t) => t !== token) } })), this.changed);
  }

  async remove(appId: string, id: string) {
    return (await settled(this.del(id, appId), this.changed)) > 0;
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}
