// Geonotes, share links, history batches, groups with their members and messages on MongoDB.
import type { Collection, Db, Filter } from 'mongodb';
import type { Changes } from '../changes.js';
import type { GeonoteDoc, GroupDoc, GroupMemberDoc, GroupMembership, GroupMessageDoc, LocationBatchDoc, ShareLinkDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import { pageBounds, type PageRequest } from '../paging.js';
import { memberId, type GeonoteRepo, type GroupMemberRepo, type GroupMessageRepo, type GroupRepo, type LocationBatchRepo, type ShareLinkRepo } from '../repos/social.js';
import { settled } from '../write-watch.js';
import { updateOf } from './docs.js';

export class MongoGeonotes implements GeonoteRepo {
  private readonly c: Collection<GeonoteDoc>;
  constructor(db: Db) {
    this.c = db.collection<GeonoteDoc>('geonotes');
  }
  async insert(doc: GeonoteDoc) {
    await unique(this.c.insertOne(doc));
  }
  forUser(appId: string, userId: string) {
    return this.c.find({ app_id: appId, user_id: userId }, { sort: { date_created: -1, _id: 1 } }).toArray();
  }
  async markTriggered(appId: string, id: string, at: number) {
    await this.c.updateOne({ _id: id, app_id: appId }, { $set: { date_triggered: at } });
  }
  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ app_id: appId, user_id: userId });
  }
  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

export class MongoShareLinks implements ShareLinkRepo {
  private readonly c: Collection<ShareLinkDoc>;
  constructor(db: Db) {
    this.c = db.collection<ShareLinkDoc>('share_links');
  }
  async insert(doc: ShareLinkDoc) {
    await unique(this.c.insertOne(doc));
  }
  get(appId: string, token: string) {
    return this.c.findOne({ _id: token, app_id: appId });
  }
  async byTokens(tokens: readonly string[]) {
    return tokens.length === 0 ? [] : this.c.find({ _id: { $in: [...tokens] } }).toArray();
  }
  async setStatus(appId: string, token: string, status: ShareLinkDoc['status']) {
    await this.c.updateOne({ _id: token, app_id: appId }, { $set: { status } });
  }
  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ app_id: appId, user_id: userId });
  }
  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

export class MongoLocationBatches implements LocationBatchRepo {
  private readonly c: Collection<LocationBatchDoc>;
  constructor(db: Db) {
    this.c = db.collection<LocationBatchDoc>('location_batches');
  }
  async insert(doc: LocationBatchDoc) {
    await unique(this.c.insertOne(doc));
  }
  get(appId: string, userId: string, id: string) {
    return this.c.findOne({ _id: id, app_id: appId, user_id: userId });
  }
  async markDeleted(appId: string, id: string, at: number) {
    await this.c.updateOne({ _id: id, app_id: appId }, { $set: { deleted_at: at } });
  }
  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ app_id: appId, user_id: userId });
  }
  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

export class MongoGroups implements GroupRepo {
  private readonly c: Collection<GroupDoc>;
  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<GroupDoc>('groups');
  }
  get(appId: string, token: string) {
    return this.c.findOne({ _id: token, app_id: appId });
  }
  byToken(token: string) {
    return this.c.findOne({ _id: token });
  }
  async page(appId: string, ownerId: string | undefined, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter: Filter<GroupDoc> = ownerId === undefined ? { app_id: appId } : { app_id: appId, owner_id: ownerId };
    const [items, total] = await Promise.all([
      this.c.find(filter, { sort: { date_created: 1, _id: 1 }, skip: offset, limit }).toArray(),
      this.c.countDocuments(filter),
    ]);
    return { items, total };
  }
  async many(appId: string, tokens: readonly string[]) {
    return tokens.length === 0 ? [] : this.c.find({ app_id: appId, _id: { $in: [...tokens] } }).toArray();
  }
  async insert(doc: GroupDoc) {
    await unique(this.c.insertOne(doc));
  }
  async update(appId: string, token: string, changes: Changes<GroupDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(appId, token);
    return settled(this.c.findOneAndUpdate({ _id: token, app_id: appId }, update, { returnDocument: 'after' }), this.changed);
  }
  async remove(appId: string, token: string) {
    return (await settled(this.c.deleteOne({ _id: token, app_id: appId }), this.changed)).deletedCount > 0;
  }
  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}

export class MongoGroupMembers implements GroupMemberRepo {
  private readonly c: Collection<GroupMemberDoc>;
  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<GroupMemberDoc>('group_members');
  }
  get(appId: string, groupToken: string, userId: string) {
    return this.c.findOne({ _id: memberId(groupToken, userId), app_id: appId });
  }
  async lastJoinedAt(appId: string, groupToken: string) {
    const last = await this.c.findOne({ app_id: appId, group_token: groupToken }, { sort: { date_joined: -1 }, projection: { date_joined: 1 } });
    return last?.date_joined;
  }
  ofGroup(appId: string, groupToken: string, max: number) {
    return this.c.find({ app_id: appId, group_token: groupToken }, { sort: { date_joined: 1, _id: 1 }, limit: max }).toArray();
  }
  async pageForUser(appId: string, userId: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter = { app_id: appId, user_id: userId };
    const [items, total] = await Promise.all([
      this.c.find(filter, { sort: { date_joined: 1, _id: 1 }, skip: offset, limit }).toArray(),
      this.c.countDocuments(filter),
    ]);
    return { items, total };
  }
  async publishingGroups(appId: string, userId: string) {
    const ms = await this.c.find({ app_id: appId, user_id: userId, membership: 'publishing' }, { sort: { date_joined: 1, _id: 1 }, projection: { group_token: 1 } }).toArray();
    return ms.map((m) => m.group_token);
  }
  async insert(doc: GroupMemberDoc) {
    await unique(this.c.insertOne(doc));
  }
  async setMembership(appId: string, groupToken: string, userId: string, membership: GroupMembership) {
    await settled(this.c.updateOne({ _id: memberId(groupToken, userId), app_id: appId }, { $set: { membership } }), this.changed);
  }
  async remove(appId: string, groupToken: string, userId: string) {
    return (await settled(this.c.deleteOne({ _id: memberId(groupToken, userId), app_id: appId }), this.changed)).deletedCount > 0;
  }
  async removeForGroup(appId: string, groupToken: string) {
    await settled(this.c.deleteMany({ app_id: appId, group_token: groupToken }), this.changed);
  }
  async removeForUser(appId: string, userId: string) {
    await settled(this.c.deleteMany({ app_id: appId, user_id: userId }), this.changed);
  }
  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}

export class MongoGroupMessages implements GroupMessageRepo {
  private readonly c: Collection<GroupMessageDoc>;
  constructor(db: Db) {
    this.c = db.collection<GroupMessageDoc>('group_messages');
  }
  async insert(doc: GroupMessageDoc) {
    await unique(this.c.insertOne(doc));
  }
  async page(appId: string, groupToken: string, page: PageRequest) {
    const { offset, limit } = pageBounds(page);
    const filter = { app_id: appId, group_token: groupToken };
    const [items, total] = await Promise.all([
      this.c.find(filter, { sort: { date: -1, _id: -1 }, skip: offset, limit }).toArray(),
      this.c.countDocuments(filter),
    ]);
    return { items, total };
  }
  async removeForGroup(appId: string, groupToken: string) {
    await this.c.deleteMany({ app_id: appId, group_token: groupToken });
  }
  async removeForUser(appId: string, userId: string) {
    await this.c.deleteMany({ app_id: appId, user_id: userId });
  }
  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}
