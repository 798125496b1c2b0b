// Applications, tokens, authorization codes and API hit counters on MongoDB.
import type { Collection, Db } from 'mongodb';
import type { Changes } from '../changes.js';
import type { ApiHitsDoc, ApplicationDoc, AuthCodeDoc, TokenDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import type { ApiHitRepo, ApplicationRepo, AuthCodeRepo, TokenRepo } from '../repos/accounts.js';
import { settled } from '../write-watch.js';
import { updateOf } from './docs.js';

export class MongoApplications implements ApplicationRepo {
  private readonly c: Collection<ApplicationDoc>;

  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<ApplicationDoc>('applications');
  }

  get(id: string) {
    return this.c.findOne({ _id: id });
  }

  byClientId(clientId: string) {
    return this.c.findOne({ client_id: clientId });
  }

  all() {
    return this.c.find({}, { sort: { created_at: 1, _id: 1 } }).toArray();
  }

  async insert(doc: ApplicationDoc) {
    await unique(this.c.insertOne(doc));
  }

  async update(id: string, changes: Changes<ApplicationDoc>) {
    const update = updateOf(changes);
    if (!update) return this.get(id);
    return settled(unique(this.c.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' })), this.changed);
  }

  async remove(id: string) {
    return (await settled(this.c.deleteOne({ _id: id }), this.changed)).deletedCount > 0;
  }
}

export class MongoTokens implements TokenRepo {
  private readonly c: Collection<TokenDoc>;

  constructor(db: Db, private readonly changed: () => void) {
    this.c = db.collection<TokenDoc>('tokens');
  }

  get(hash: string) {
    return this.c.findOne({ _id: hash });
  }

  async insert(doc: TokenDoc) {
    await unique(this.c.insertOne(doc));
  }

  async remove(hash: string) {
    return (await settled(this.c.deleteOne({ _id: hash }), this.changed)).deletedCount > 0;
  }

  async removeMany(hashes: readonly string[]) {
    if (hashes.length > 0) await settled(this.c.deleteMany({ _id: { $in: [...hashes] } }), this.changed);
  }

  async removeAppTokens(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId, $or: [{ kind: 'app' }, { kind: 'refresh', user_id: { $exists: false } }] }), this.changed);
  }

  async removeForUser(userId: string) {
    await settled(this.c.deleteMany({ user_id: userId }), this.changed);
  }

  async removeForApp(appId: string) {
    await settled(this.c.deleteMany({ app_id: appId }), this.changed);
  }
}

export class MongoAuthCodes implements AuthCodeRepo {
  private readonly c: Collection<AuthCodeDoc>;

  constructor(db: Db) {
    this.c = db.collection<AuthCodeDoc>('oauth_codes');
  }

  get(hash: string) {
    return this.c.findOne({ _id: hash });
  }

  async insert(doc: AuthCodeDoc) {
    await unique(this.c.insertOne(doc));
  }

  async claim(hash: string, tokenIds: readonly string[]) {
    const res = await this.c.updateOne({ _id: hash, used: false }, { $set: { used: true, token_ids: [...tokenIds] } });
    return res.matchedCount > 0;
  }

  async removeExpiredBefore(cutoff: number, max: number) {
    const ids = (await this.c.find({ expires_at: { $lt: cutoff } }, { projection: { _id: 1 }, limit: max }).toArray()).map((d) => d._id);
    if (ids.length === 0) return 0;
    return (await this.c.deleteMany({ _id: { $in: ids } })).deletedCount;
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}

export class MongoApiHits implements ApiHitRepo {
  private readonly c: Collection<ApiHitsDoc>;

  constructor(db: Db) {
    this.c = db.collection<ApiHitsDoc>('api_hits');
  }

  async save(docs: readonly ApiHitsDoc[]) {
    if (docs.length === 0) return;
    // Each document is only ever written by its own process: a whole replacement, inserted the first time.
    await this.c.bulkWrite(docs.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })), { ordered: false });
  }

  forApp(appId: string) {
    return this.c.find({ app_id: appId }, { projection: { _id: 0, day: 1, hits: 1 } }).toArray() as Promise<Array<Pick<ApiHitsDoc, 'day' | 'hits'>>>;
  }

  async removeForApp(appId: string) {
    await this.c.deleteMany({ app_id: appId });
  }
}
