// Firings and their delivery on MongoDB: a thin repository over the official driver. A firing is
// one document (`_id` = event id) in `firings`, an attempt one in `delivery_attempts`
// (`_id` = event id and attempt number). Leases are conditional updates, so several nodes share
// the outbox without sending a callback twice at once.
import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import type {
  AttemptRecord, AttemptRepo, DueHead, DuePosition, FiringRecord, FiringRepo, HistoryQuery, LeasedCallback, NewFiring, OutboxFigures, RecentFiring, RoundEnd,
} from '../firings.js';
import { TYPED_INDEXES } from '../indexes.js';
import { moveOldDelivery } from './firings-migrate.js';
import { typedCollection } from './typed.js';

/** `seq`: the order of storing among firings of the same millisecond (due order's second key). */
export type FiringDoc = Omit<FiringRecord, 'event_id'> & { _id: string; seq: number };
export type AttemptDoc = AttemptRecord & { _id: string };

/** Documents changed per write by the deletes and cancellations that reach many. */
const CHUNK = 500;

const LEASED_FIELDS = {
  _id: 1, app_id: 1, trigger_id: 1, user_id: 1, url: 1, payload: 1, attempts: 1, rounds: 1, last_status: 1, next_attempt_at: 1, created_at: 1, redelivery_by: 1,
} as const;

/** Opens the collections (indexes: TYPED_INDEXES), an older release's delivery collections moved in first. */
export async function openMongoFirings(db: Db): Promise<{ firings: MongoFirings; attempts: MongoAttempts }> {
  await moveOldDelivery(db);
  const [firings, attempts] = await Promise.all([
    typedCollection<FiringDoc>(db, 'firings', TYPED_INDEXES.firings),
    typedCollection<AttemptDoc>(db, 'delivery_attempts', TYPED_INDEXES.delivery_attempts),
  ]);
  return { firings: new MongoFirings(firings, attempts), attempts: new MongoAttempts(attempts) };
}

function toRecord(d: FiringDoc): FiringRecord {
  const { _id, seq: _seq, ...rest } = d;
  const f: FiringRecord = { event_id: _id, ...rest };
  if (f.payload !== undefined && typeof f.payload !== 'string') f.payload = JSON.stringify(f.payload);
  return f;
}

function toLeased(d: Pick<FiringDoc, keyof typeof LEASED_FIELDS>, owner: string): LeasedCallback {
  const c: LeasedCallback = {
    event_id: d._id, app_id: d.app_id, trigger_id: d.trigger_id, user_id: d.user_id, url: d.url ?? '', attempts: d.attempts, rounds: d.rounds,
    lease_owner: owner, lease_until: d.next_attempt_at ?? 0, created_at: d.created_at,
  };
  // An older release's object payload is sent as its JSON text.
  if (d.payload !== undefined) c.payload = typeof d.payload === 'string' ? d.payload : JSON.stringify(d.payload);
  if (d.last_status !== undefined) c.last_status = d.last_status;
  if (d.redelivery_by !== undefined) c.redelivery_by = d.redelivery_by;
  return c;
}

const attemptDoc = (a: AttemptRecord): AttemptDoc => ({ _id: `${a.event_id}:${a.attempt}`, ...a });

function historyFilter(q: HistoryQuery): Filter<FiringDoc> {
  const f: Filter<FiringDoc> = { app_id: q.app_id, unlisted: { $exists: false } };
  if (q.user_id !== undefined) f.user_id = q.user_id;
  if (q.layer_id !== undefined) f.layer_id = q.layer_id;
  if (q.place_id !== undefined) f.place_id = q.place_id;
  if (q.trigger_id !== undefined) f.trigger_id = q.trigger_id;
  if (!q.gated) f.gate = { $exists: false };
  return f;
}

export class MongoFirings implements FiringRepo {
  constructor(private readonly col: Collection<FiringDoc>, private readonly log: Collection<AttemptDoc>) {}

  async insert(rows: readonly NewFiring[]): Promise<Set<string>> {
    const existing = new Set<string>();
    if (rows.length === 0) return existing;
    const docs: FiringDoc[] = rows.map(({ event_id, ...r }, i) => ({
      _id: event_id, ...r, attempts: 0, rounds: 0, updated_at: r.created_at, seq: r.created_at * 4096 + Math.min(i, 4095),
    }));
    try {
      await this.col.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      for (const e of errors) {
        if (e.code !== 11000) throw err;
        existing.add(docs[e.index]!._id);
      }
    }
    return existing;
  }

  async get(eventId: string): Promise<FiringRecord | null> {
    const d = await this.col.findOne({ _id: eventId });
    return d ? toRecord(d) : null;
  }

  async dueHeads(now: number, limit: number, after?: DuePosition): Promise<DueHead[]> {
    const filter: Filter<FiringDoc> = after
      ? { $or: [{ next_attempt_at: { $gt: after.at, $lte: now } }, { next_attempt_at: after.at, seq: { $gt: after.seq } }] }
      : { next_attempt_at: { $lte: now } };
    const docs = await this.col.find(filter, { sort: { next_attempt_at: 1, seq: 1 }, limit, projection: { _id: 1, next_attempt_at: 1, seq: 1, url: 1, app_id: 1 } }).toArray();
    return docs.map((d) => ({ event_id: d._id, next_attempt_at: d.next_attempt_at ?? 0, seq: d.seq, url: d.url ?? '', app_id: d.app_id }));
  }

  async leaseDue(ids: readonly string[], owner: string, until: number, now: number): Promise<LeasedCallback[]> {
    if (ids.length === 0) return [];
    const res = await this.col.updateMany(
      { _id: { $in: [...ids] }, next_attempt_at: { $lte: now } },
      { $set: { status: 'delivering', next_attempt_at: until, lease_owner: owner, updated_at: now }, $inc: { rounds: 1 } },
    );
    if (res.matchedCount === 0) return [];
    // The owner is new for every lease: exactly the ones this call won.
    const won = await this.col.find({ _id: { $in: [...ids] }, lease_owner: owner }, { projection: LEASED_FIELDS }).toArray();
    const byId = new Map(won.map((d) => [d._id, d]));
    return ids.flatMap((id) => {
      const d = byId.get(id);
      return d ? [toLeased(d, owner)] : [];
    });
  }

  async leaseOne(eventId: string, owner: string, until: number, now: number, expected?: LeasedCallback): Promise<LeasedCallback | null> {
    const set = { status: 'delivering' as const, next_attempt_at: until, lease_owner: owner, updated_at: now };
    const d = expected
      ? await this.col.findOneAndUpdate({ _id: eventId, lease_owner: expected.lease_owner, status: 'delivering' }, { $set: set }, { returnDocument: 'after', projection: LEASED_FIELDS })
      : await this.col.findOneAndUpdate(
        { _id: eventId, $or: [{ status: 'pending' }, { status: 'delivering', next_attempt_at: { $lte: now } }] },
        { $set: set, $inc: { rounds: 1 } },
        { returnDocument: 'after', projection: LEASED_FIELDS },
      );
    return d ? toLeased(d, owner) : null;
  }

  async release(list: readonly LeasedCallback[], now: number): Promise<void> {
    if (list.length === 0) return;
    await this.col.bulkWrite(list.map((c) => ({
      updateOne: {
        filter: { _id: c.event_id, lease_owner: c.lease_owner },
        update: { $set: { status: 'pending' as const, next_attempt_at: now, updated_at: now }, $unset: { lease_owner: '' as const }, $inc: { rounds: -1 } },
      },
    })), { ordered: false });
  }

  async handBack(c: LeasedCallback, now: number, last?: AttemptRecord): Promise<void> {
    const res = await this.col.updateOne(
      { _id: c.event_id, lease_owner: c.lease_owner },
      { $set: { status: 'pending', next_attempt_at: now, attempts: c.attempts, updated_at: now, ...(c.last_status !== undefined ? { last_status: c.last_status } : {}) }, $unset: { lease_owner: '' } },
    );
    if (res.matchedCount > 0 && last) await this.logAttempt(last);
  }

  async attempted(c: LeasedCallback, a: AttemptRecord): Promise<boolean> {
    const res = await this.col.updateOne(
      { _id: c.event_id, lease_owner: c.lease_owner },
      {
        $set: {
          attempts: a.attempt, updated_at: a.at,
          ...(c.last_status !== undefined ? { last_status: c.last_status } : {}), ...(a.error !== undefined ? { last_error: a.error } : {}),
        },
      },
    );
    if (res.matchedCount === 0) return false;
    await this.logAttempt(a);
    return true;
  }

  async finish(c: LeasedCallback, end: RoundEnd, now: number, last?: AttemptRecord): Promise<boolean> {
    const common = { attempts: c.attempts, updated_at: now, ...(c.last_status !== undefined ? { last_status: c.last_status } : {}) };
    const filter = { _id: c.event_id, lease_owner: c.lease_owner };
    let res;
    if (end.status === 'delivered') {
      res = await this.col.updateOne(filter, {
        $set: { ...common, status: 'delivered', delivered_at: end.at, last_duration_ms: end.durationMs },
        $unset: { next_attempt_at: '', lease_owner: '', last_error: '' },
      });
    } else if (end.status === 'pending') {
      res = await this.col.updateOne(filter, { $set: { ...common, status: 'pending', next_attempt_at: end.nextAttemptAt, last_error: end.lastError }, $unset: { lease_owner: '' } });
    } else {
      res = await this.col.updateOne(filter, {
        $set: { ...common, status: 'dead', last_error: end.lastError },
        $unset: end.dropPayload ? { next_attempt_at: '', lease_owner: '', payload: '' } : { next_attempt_at: '', lease_owner: '' },
      });
    }
    if (res.matchedCount === 0) return false;
    if (last) await this.logAttempt(last);
    return true;
  }

  async dueAgain(urls: readonly string[], now: number): Promise<number> {
    if (urls.length === 0) return 0;
    const res = await this.col.updateMany({ status: 'pending', url: { $in: [...urls] }, next_attempt_at: { $gt: now } }, { $set: { next_attempt_at: now, updated_at: now } });
    return res.modifiedCount;
  }

  async orphansDue(ownerPrefix: string, now: number): Promise<number> {
    const res = await this.col.updateMany(
      { status: 'delivering', next_attempt_at: { $gt: now }, lease_owner: { $not: new RegExp(`^${ownerPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) } },
      { $set: { next_attempt_at: now } },
    );
    return res.modifiedCount;
  }

  async releaseHold(eventId: string, heldUntil: number, now: number): Promise<void> {
    await this.col.updateOne({ _id: eventId, status: 'pending', next_attempt_at: heldUntil }, { $set: { next_attempt_at: now, updated_at: now } });
  }

  async cancelWaiting(appId: string, scope: { user_id: string } | { trigger_id: string }, reason: string, now: number): Promise<number> {
    const filter: Filter<FiringDoc> = 'user_id' in scope
      ? { app_id: appId, user_id: scope.user_id, status: 'pending' }
      : { app_id: appId, trigger_id: scope.trigger_id, status: 'pending' };
    const ids = (await this.col.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    let total = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const res = await this.col.updateMany(
        { _id: { $in: ids.slice(i, i + CHUNK) }, status: 'pending' },
        { $set: { status: 'dead', last_error: reason, updated_at: now }, $unset: { next_attempt_at: '', payload: '' } },
      );
      total += res.modifiedCount;
    }
    return total;
  }

  async followUrl(appId: string, triggerId: string, url: string, now: number): Promise<void> {
    await this.col.updateMany({ app_id: appId, trigger_id: triggerId, status: 'pending' }, { $set: { url, next_attempt_at: now, updated_at: now } });
    await this.col.updateMany({ app_id: appId, trigger_id: triggerId, status: 'delivering' }, { $set: { url } });
  }

  async forgetUser(appId: string, userId: string): Promise<void> {
    const ids = (await this.col.find({ app_id: appId, user_id: userId, status: { $ne: 'delivering' } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await this.log.deleteMany({ event_id: { $in: chunk } });
      await this.col.deleteMany({ _id: { $in: chunk }, status: { $ne: 'delivering' } });
    }
    await this.col.updateMany({ app_id: appId, user_id: userId, status: 'delivering' }, { $set: { unlisted: true }, $unset: { payload: '' } });
  }

  async removeForApp(appId: string): Promise<void> {
    await this.log.deleteMany({ app_id: appId });
    await this.col.deleteMany({ app_id: appId });
  }

  async history(q: HistoryQuery, offset: number, limit: number): Promise<FiringRecord[]> {
    const docs = await this.col.find(historyFilter(q), { sort: { date: -1, _id: -1 }, skip: offset, limit, projection: { payload: 0 } }).toArray();
    return docs.map(toRecord);
  }

  count(q: HistoryQuery): Promise<number> {
    return this.col.countDocuments(historyFilter(q));
  }

  async recentForUsers(userIds: readonly string[], since: number): Promise<RecentFiring[]> {
    if (userIds.length === 0) return [];
    const docs = await this.col
      .find({ user_id: { $in: [...userIds] }, date: { $gte: since }, gate: { $exists: false }, run: { $exists: false } }, { projection: { user_id: 1, trigger_id: 1, date: 1 } })
      .toArray();
    return docs.map((d) => ({ user_id: d.user_id, trigger_id: d.trigger_id, date: d.date }));
  }

  async usage(appId: string): Promise<Array<{ type: FiringRecord['type']; date: number }>> {
    const docs = await this.col.find({ app_id: appId, run: { $exists: false }, unlisted: { $exists: false } }, { projection: { type: 1, date: 1 } }).toArray();
    return docs.map((d) => ({ type: d.type, date: d.date }));
  }

  async sweepDelivery(cutoff: number, limit: number): Promise<{ callbacks: number; attempts: number }> {
    // Callbacks finished before the cutoff (or gone) with attempts older than it.
    const old = await this.log.aggregate<{ _id: string }>([
      { $match: { at: { $lt: cutoff } } },
      { $group: { _id: '$event_id' } },
      { $lookup: { from: this.col.collectionName, localField: '_id', foreignField: '_id', as: 'f', pipeline: [{ $project: { next_attempt_at: 1, updated_at: 1 } }] } },
      { $match: { $or: [{ f: { $size: 0 } }, { 'f.0.next_attempt_at': { $exists: false }, 'f.0.updated_at': { $lt: cutoff } }] } },
      { $limit: limit },
      { $project: { _id: 1 } },
    ]).toArray();
    const ids = old.map((a) => a._id);
    let attempts = 0;
    if (ids.length > 0) {
      attempts = (await this.log.deleteMany({ event_id: { $in: ids } })).deletedCount;
      // A finished callback's payload goes with its log: a redelivery is possible as long as both are kept.
      await this.col.updateMany({ _id: { $in: ids }, status: { $in: ['dead', 'delivered'] } }, { $unset: { payload: '' } });
    }
    // Dead ones that kept their payload without a log (ended before an attempt was made).
    let payloads = 0;
    if (ids.length < limit) {
      const dead = (await this.col.find({ status: 'dead', payload: { $exists: true }, updated_at: { $lt: cutoff } }, { projection: { _id: 1 }, limit: limit - ids.length }).toArray()).map((d) => d._id);
      if (dead.length > 0) payloads = (await this.col.updateMany({ _id: { $in: dead } }, { $unset: { payload: '' } })).modifiedCount;
    }
    return { callbacks: ids.length + payloads, attempts };
  }

  async outbox(limit: number): Promise<OutboxFigures> {
    // In the outbox index's order, so the limit bounds what is read.
    const [g] = await this.col.aggregate<{ waiting: number; oldestAt: number | null }>([
      { $match: { next_attempt_at: { $exists: true } } },
      { $sort: { next_attempt_at: 1, seq: 1 } },
      { $limit: limit },
      { $group: { _id: null, waiting: { $sum: 1 }, oldestAt: { $min: '$created_at' } } },
    ]).toArray();
    return { waiting: g?.waiting ?? 0, oldestAt: g?.oldestAt ?? null };
  }

  async sweepHistory(cutoff: number, limit: number): Promise<number> {
    const old = await this.col.find({ date: { $lt: cutoff }, next_attempt_at: { $exists: false } }, { projection: { _id: 1 }, limit }).toArray();
    if (old.length === 0) return 0;
    const ids = old.map((d) => d._id);
    await this.log.deleteMany({ event_id: { $in: ids } });
    return (await this.col.deleteMany({ _id: { $in: ids }, next_attempt_at: { $exists: false } })).deletedCount;
  }

  async reopen(appId: string, eventId: string, by: string, now: number, dueAt: number): Promise<FiringRecord | null> {
    const d = await this.col.findOneAndUpdate(
      { _id: eventId, app_id: appId, status: { $in: ['delivered', 'dead'] }, payload: { $exists: true }, unlisted: { $exists: false } },
      { $set: { status: 'pending', next_attempt_at: dueAt, rounds: 0, redelivery_at: now, redelivery_by: by, updated_at: now }, $unset: { delivered_at: '', last_duration_ms: '' } },
      { returnDocument: 'after', projection: { payload: 0 } },
    );
    return d ? toRecord(d) : null;
  }

  private async logAttempt(a: AttemptRecord): Promise<void> {
    try {
      await this.log.insertOne(attemptDoc(a));
    } catch (err) {
      // The same attempt logged by a holder whose lease ran out meanwhile: one entry is enough.
      if ((err as { code?: unknown }).code !== 11000) throw err;
    }
  }
}

export class MongoAttempts implements AttemptRepo {
  constructor(private readonly col: Collection<AttemptDoc>) {}

  async list(eventId: string): Promise<AttemptRecord[]> {
    const docs = await this.col.find({ event_id: eventId }, { sort: { attempt: 1 } }).toArray();
    return docs.map(({ _id: _, ...a }) => a);
  }

  async page(eventId: string, offset: number, limit: number): Promise<{ attempts: AttemptRecord[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.col.find({ event_id: eventId }, { sort: { attempt: 1 }, skip: offset, limit }).toArray(),
      this.col.countDocuments({ event_id: eventId }),
    ]);
    return { attempts: docs.map(({ _id: _, ...a }) => a), total };
  }
}
