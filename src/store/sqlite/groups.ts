// Groups, their members and their messages on the embedded store.
import type { Changes } from '../changes.js';
import type { GroupDoc, GroupMemberDoc, GroupMembership, GroupMessageDoc } from '../documents.js';
import { pageBounds, type PageRequest } from '../paging.js';
import { memberId, type GroupMemberRepo, type GroupMessageRepo, type GroupRepo } from '../repos/social.js';
import { settled } from '../write-watch.js';
import { DocTable, type SqliteAccess } from './doc-table.js';

export class SqliteGroups implements GroupRepo {
  private readonly t: DocTable<GroupDoc>;
  private readonly byId;
  private readonly byTokenOnly;
  private readonly pageOf;
  private readonly countOf;
  private readonly manyOf;
  private readonly del;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<GroupDoc>(s, 'groups'));
    this.byId = t.one<[string, string]>('SELECT doc FROM groups WHERE _id = ? AND app_id = ?');
    this.byTokenOnly = t.one<[string]>('SELECT doc FROM groups WHERE _id = ?');
    // `?` twice: every group (null), or one owner's.
    this.pageOf = t.many<[string, string | null, string | null, number, number]>(
      'SELECT doc FROM groups WHERE app_id = ? AND (? IS NULL OR owner_id = ?) ORDER BY date_created, _id LIMIT ? OFFSET ?',
    );
    this.countOf = t.value<number, [string, string | null, string | null]>('SELECT count(*) FROM groups WHERE app_id = ? AND (? IS NULL OR owner_id = ?)');
    this.manyOf = t.many<[string, string]>('SELECT doc FROM groups WHERE app_id = ? AND _id IN (SELECT value FROM json_each(?))');
    this.del = t.write<[string, string]>('DELETE FROM groups WHERE _id = ? AND app_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM groups WHERE app_id = ?');
  }

  async get(appId: string, token: string) {
    return this.byId(token, appId);
  }

  async byToken(token: string) {
    return this.byTokenOnly(token);
  }

  async page(appId: string, ownerId: string | undefined, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const owner = ownerId ?? null;
    return { items: this.pageOf(appId, owner, owner, limit, offset), total: this.countOf(appId, owner, owner) };
  }

  async many(appId: string, tokens: readonly string[]) {
    return tokens.length === 0 ? [] : this.manyOf(appId, JSON.stringify(tokens));
  }

  insert(doc: GroupDoc) {
    return this.t.insert(doc);
  }

  update(appId: string, token: string, changes: Changes<GroupDoc>) {
    return settled(this.t.change(() => this.byId(token, appId), changes), this.changed);
  }

  async remove(appId: string, token: string) {
    return (await settled(this.del(token, appId), this.changed)) > 0;
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}

export class SqliteGroupMembers implements GroupMemberRepo {
  private readonly t: DocTable<GroupMemberDoc>;
  private readonly byId;
  private readonly lastJoined;
  private readonly ofGroupStmt;
  private readonly pageOfUser;
  private readonly countOfUser;
  private readonly publishing;
  private readonly del;
  private readonly delForGroup;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess, private readonly changed: () => void) {
    const t = (this.t = new DocTable<GroupMemberDoc>(s, 'group_members'));
    this.byId = t.one<[string, string]>('SELECT doc FROM group_members WHERE _id = ? AND app_id = ?');
    this.lastJoined = t.value<number | null, [string, string]>('SELECT max(date_joined) FROM group_members WHERE app_id = ? AND group_token = ?');
    this.ofGroupStmt = t.many<[string, string, number]>('SELECT doc FROM group_members WHERE app_id = ? AND group_token = ? ORDER BY date_joined, _id LIMIT ?');
    this.pageOfUser = t.many<[string, string, number, number]>('SELECT doc FROM group_members WHERE app_id = ? AND user_id = ? ORDER BY date_joined, _id LIMIT ? OFFSET ?');
    this.countOfUser = t.value<number, [string, string]>('SELECT count(*) FROM group_members WHERE app_id = ? AND user_id = ?');
    this.publishing = t.values<string, [string, string]>("SELECT group_token FROM group_members WHERE app_id = ? AND user_id = ? AND membership = 'publishing' ORDER BY date_joined, _id");
    this.del = t.write<[string, string]>('DELETE FROM group_members WHERE _id = ? AND app_id = ?');
    this.delForGroup = t.write<[string, string]>('DELETE FROM group_members WHERE app_id = ? AND group_token = ?');
    this.delForUser = t.write<[string, string]>('DELETE FROM group_members WHERE app_id = ? AND user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM group_members WHERE app_id = ?');
  }

  async get(appId: string, groupToken: string, userId: string) {
    return this.byId(memberId(groupToken, userId), appId);
  }

  async lastJoinedAt(appId: string, groupToken: string) {
    return this.lastJoined(appId, groupToken) ?? undefined;
  }

  async ofGroup(appId: string, groupToken: string, max: number) {
    return this.ofGroupStmt(appId, groupToken, max);
  }

  async pageForUser(appId: string, userId: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    return { items: this.pageOfUser(appId, userId, limit, offset), total: this.countOfUser(appId, userId) };
  }

  async publishingGroups(appId: string, userId: string) {
    return this.publishing(appId, userId);
  }

  insert(doc: GroupMemberDoc) {
    return this.t.insert(doc);
  }

  async setMembership(appId: string, groupToken: string, userId: string, membership: GroupMembership) {
    await settled(this.t.change(() => this.byId(memberId(groupToken, userId), appId), { set: { membership } }), this.changed);
  }

  async remove(appId: string, groupToken: string, userId: string) {
    return (await settled(this.del(memberId(groupToken, userId), appId), this.changed)) > 0;
  }

  async removeForGroup(appId: string, groupToken: string) {
    await settled(this.delForGroup(appId, groupToken), this.changed);
  }

  async removeForUser(appId: string, userId: string) {
    await settled(this.delForUser(appId, userId), this.changed);
  }

  async removeForApp(appId: string) {
    await settled(this.delForApp(appId), this.changed);
  }
}

export class SqliteGroupMessages implements GroupMessageRepo {
  private readonly t: DocTable<GroupMessageDoc>;
  private readonly pageOf;
  private readonly countOf;
  private readonly delForGroup;
  private readonly delForUser;
  private readonly delForApp;

  constructor(s: SqliteAccess) {
    const t = (this.t = new DocTable<GroupMessageDoc>(s, 'group_messages'));
    this.pageOf = t.many<[string, string, number, number]>('SELECT doc FROM group_messages WHERE app_id = ? AND group_token = ? ORDER BY date DESC, _id DESC LIMIT ? OFFSET ?');
    this.countOf = t.value<number, [string, string]>('SELECT count(*) FROM group_messages WHERE app_id = ? AND group_token = ?');
    this.delForGroup = t.write<[string, string]>('DELETE FROM group_messages WHERE app_id = ? AND group_token = ?');
    this.delForUser = t.write<[string, string]>('DELETE FROM group_messages WHERE app_id = ? AND user_id = ?');
    this.delForApp = t.write<[string]>('DELETE FROM group_messages WHERE app_id = ?');
  }

  insert(doc: GroupMessageDoc) {
    return this.t.insert(doc);
  }

  async page(appId: string, groupToken: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    return { items: this.pageOf(appId, groupToken, limit, offset), total: this.countOf(appId, groupToken) };
  }

  async removeForGroup(appId: string, groupToken: string) {
    await this.delForGroup(appId, groupToken);
  }

  async removeForUser(appId: string, userId: string) {
    await this.delForUser(appId, userId);
  }

  async removeForApp(appId: string) {
    await this.delForApp(appId);
  }
}
