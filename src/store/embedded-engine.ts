// Embedded engine: one NeDB datastore per collection under DATA_DIR (append-only file, loaded at
// start, compacted periodically), adapted to the DocCollection calls the repositories make.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import nedb from '@seald-io/nedb';
import { createRequire } from 'node:module';
import type { DocCollection, FindOptions, IndexSpec, ReplaceOneOp, StoreEngine, UpdateResultLike } from './collection.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { GroupAppender } from './group-commit.js';
import { rebuildAsHashIndex, useHashIdIndex } from './nedb-hash-index.js';
import { patchNedbIndexUpdate } from './nedb-index-update.js';
import { patchNedbInsertReturn } from './nedb-insert.js';
import { selectiveLast } from './nedb-query.js';

patchNedbIndexUpdate();
patchNedbInsertReturn();

type AnyDoc = { _id: string };
// NeDB is CommonJS with an ESM-style `export default` in its typings: resolve the class either way.
type Datastore<T> = import('@seald-io/nedb').default<T>;
const Datastore = ((nedb as { default?: unknown }).default ?? nedb) as typeof import('@seald-io/nedb').default;
// NeDB queries and updates are Mongo-style but untyped; the repositories type them.
type Query = Record<string, unknown>;

const COMPACTION_INTERVAL_MS = 10 * 60_000;

// NeDB's own line format, so that files stay readable by NeDB itself; and its ordering of values.
const nedbRequire = createRequire(import.meta.url);
const { serialize, compareThings, getDotValue, deepCopy, match, checkObject } = nedbRequire('@seald-io/nedb/lib/model.js') as {
  serialize: (doc: unknown) => string;
  match: (doc: unknown, query: Query) => boolean;
  checkObject: (doc: unknown) => void;
  compareThings: (a: unknown, b: unknown) => number;
  getDotValue: (doc: unknown, field: string | string[]) => unknown;
  deepCopy: <D>(doc: D) => D;
};
// NeDB's cursor (what findAsync builds): index-aware candidate selection and matching, run in the
// datastore's executor, handing the matched documents themselves to `mapFn`.
type Cursor = new <R>(db: unknown, query: Query, mapFn: (docs: Array<Record<string, unknown>>) => R) => PromiseLike<R>;
const Cursor = nedbRequire('@seald-io/nedb/lib/cursor.js') as Cursor;

/**
 * NeDB's line for a document. Its serialize() runs a replacer on every key (to turn Dates into
 * {$$date} and re-check keys NeDB already checked on insert and update): ~40% of the cost of
 * writing a location (measured). Our documents keep dates as epoch ms, so plain JSON is the same
 * line; a document that does hold a Date still goes through NeDB's serialize.
 */
function toLine(doc: unknown): string {
  return holdsDate(doc) ? serialize(doc) : JSON.stringify(doc);
}

function holdsDate(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (v instanceof Date) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (holdsDate(x)) return true;
    return false;
  }
  for (const k in v) if (holdsDate((v as Record<string, unknown>)[k])) return true;
  return false;
}

/** The datastore internals bulkWrite runs on (what NeDB's own update uses, minus its per-call queueing). */
interface NedbInternals {
  executor: { pushAsync<R>(task: () => Promise<R>): Promise<R> };
  _getCandidatesAsync(query: Query): Promise<AnyDoc[]>;
  _updateIndexes(pairs: Array<{ oldDoc: AnyDoc; newDoc: AnyDoc }>): void;
  persistence: NedbPersistence;
}

interface NedbPersistence {
  persistNewStateAsync(docs: unknown[]): Promise<void>;
  persistCachedDatabaseAsync(): Promise<void>;
}

/**
 * Routes NeDB's appends through a GroupAppender. The in-memory change is made at once; durability
 * is awaited by the collection methods below (`appender.sync()`), outside NeDB's queue, so the
 * appends of concurrent operations share one write.
 */
function withGroupCommit(ds: Datastore<AnyDoc>, filename: string): GroupAppender {
  const appender = new GroupAppender(filename);
  const persistence = ds.persistence as unknown as NedbPersistence;
  persistence.persistNewStateAsync = async (docs: unknown[]) => {
    let text = '';
    // No serialization hooks are configured, so the line is the document itself. (NeDB wraps its
    // afterSerialization in an async function: calling it here appended "[object Promise]" lines,
    // which only a graceful close's compaction replaced; a killed process left a corrupt file.)
    for (const doc of docs) text += toLine(doc) + '\n';
    if (text) appender.enqueue(text).catch(() => undefined); // awaited through sync()
  };
  const rewrite = persistence.persistCachedDatabaseAsync.bind(persistence);
  persistence.persistCachedDatabaseAsync = async () => {
    // Compaction replaces the file: finish the appends and drop the handle to the old one.
    await appender.release();
    await rewrite();
  };
  return appender;
}

class EmbeddedCollection<T extends AnyDoc> implements DocCollection<T> {
  constructor(
    private readonly ds: Datastore<T>,
    private readonly appender: GroupAppender,
    /** Fields with a unique index (filled by ensureIndexes): preferred for candidate selection. */
    private readonly unique: ReadonlySet<string>,
  ) {}

  private q(filter: object): Query {
    return selectiveLast(filter as Query, this.unique);
  }

  async insertOne(doc: T) {
    await this.ds.insertAsync(doc);
    await this.appender.sync();
    return { acknowledged: true, insertedId: doc._id };
  }

  async insertMany(docs: T[]) {
    // NeDB inserts an array all-or-nothing, as an ordered insertMany that fails would not.
    if (docs.length > 0) await this.ds.insertAsync(docs);
    await this.appender.sync();
    return { acknowledged: true, insertedCount: docs.length };
  }

  async findOne(filter: object, options?: { projection?: object }): Promise<T | null> {
    const doc = await this.ds.findOneAsync(this.q(filter), options?.projection ?? {});
    return (doc as T | null) ?? null;
  }

  find(filter: object, options: FindOptions = {}) {
    const ds = this.ds;
    const query = this.q(filter);
    return {
      async toArray(): Promise<T[]> {
        const keys = sortKeys(options.sort);
        if (keys) return sortedPage(ds, query, keys, options);
        let cursor = ds.findAsync(query, options.projection ?? {});
        if (options.sort) cursor = cursor.sort(options.sort);
        if (options.skip) cursor = cursor.skip(options.skip);
        if (options.limit) cursor = cursor.limit(options.limit);
        return (await cursor) as unknown as T[];
      },
    };
  }

  async countDocuments(filter: object): Promise<number> {
    return (await this.ds.countAsync(this.q(filter))) as number;
  }

  async updateOne(filter: object, update: object, options: { upsert?: boolean } = {}): Promise<UpdateResultLike> {
    const res = await this.ds.updateAsync(this.q(filter), update as Query, { upsert: options.upsert ?? false });
    await this.appender.sync();
    return toUpdateResult(res.numAffected, res.upsert);
  }

  async updateMany(filter: object, update: object): Promise<UpdateResultLike> {
    const res = await this.ds.updateAsync(this.q(filter), update as Query, { multi: true });
    await this.appender.sync();
    return toUpdateResult(res.numAffected, false);
  }

  /**
   * The replacements in one NeDB executor task: a location update per request cost ~17 µs of
   * main-thread time as its own updateOne (queueing, modify, copies, one promise per document).
   * Each document is checked and indexed like an update; every one applied is persisted, also
   * when a later one fails.
   */
  async bulkWrite(operations: ReplaceOneOp<T>[]): Promise<{ matchedCount: number }> {
    const ds = this.ds as unknown as NedbInternals;
    const matchedCount = await ds.executor.pushAsync(async () => {
      const written: AnyDoc[] = [];
      try {
        for (const { replaceOne: op } of operations) {
          const query = this.q(op.filter);
          const old = (await ds._getCandidatesAsync(query)).find((c) => match(c, query));
          if (!old) continue;
          const doc = deepCopy(op.replacement as AnyDoc);
          doc._id = old._id;
          checkObject(doc);
          ds._updateIndexes([{ oldDoc: old, newDoc: doc }]);
          written.push(doc);
        }
      } finally {
        await ds.persistence.persistNewStateAsync(written);
      }
      return written.length;
    });
    await this.appender.sync();
    return { matchedCount };
  }

  async deleteOne(filter: object) {
    const deletedCount = await this.ds.removeAsync(this.q(filter), { multi: false });
    await this.appender.sync();
    return { deletedCount };
  }

  async deleteMany(filter: object) {
    const deletedCount = await this.ds.removeAsync(this.q(filter), { multi: true });
    await this.appender.sync();
    return { deletedCount };
  }
}

type SortKey = [field: string, direction: 1 | -1];

/** Object sorts on at least one field besides _id; anything else is left to NeDB's cursor. */
function sortKeys(sort: FindOptions['sort']): SortKey[] | undefined {
  if (!sort || typeof sort !== 'object' || Array.isArray(sort) || sort instanceof Map) return undefined;
  const keys: SortKey[] = [];
  for (const [field, dir] of Object.entries(sort)) {
    if (dir === 1 || dir === 'asc' || dir === 'ascending') keys.push([field, 1]);
    else if (dir === -1 || dir === 'desc' || dir === 'descending') keys.push([field, -1]);
    else return undefined;
  }
  return keys.some(([f]) => f !== '_id') ? keys : undefined;
}

/** NeDB's order (compareThings), with a fast path for the common same-type primitives. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return compareThings(a, b);
}

/**
 * A sorted page. NeDB's cursor sorts every match with a comparator that re-reads each key through
 * getDotValue on every comparison: with 10k users that was most of user/list's time (measured with
 * --cpu-prof). Here each match's sort keys are read once, sorted in NeDB's own order, and only the
 * page is copied out; it runs inside NeDB's executor, so it is one consistent read like any find.
 */
async function sortedPage<T extends AnyDoc>(ds: Datastore<T>, filter: Query, keys: SortKey[], options: FindOptions): Promise<T[]> {
  const skip = options.skip ?? 0;
  const paths = keys.map(([field]) => field.split('.'));
  const page = await new Cursor(ds, filter, (docs) => {
    const entries = docs.map((doc) => ({ doc, values: paths.map((p) => getDotValue(doc, p)) }));
    entries.sort((x, y) => {
      for (let i = 0; i < keys.length; i++) {
        const c = compareValues(x.values[i], y.values[i]);
        if (c !== 0) return keys[i][1] * c;
      }
      return 0;
    });
    return entries.slice(skip, options.limit ? skip + options.limit : undefined).map((e) => deepCopy(e.doc) as unknown as T);
  });
  if (!options.projection || Object.keys(options.projection).length === 0) return page;
  // With a projection, NeDB projects the page's documents (a document removed meanwhile is absent).
  const ids = page.map((d) => d._id);
  const projected = (await ds.findAsync({ _id: { $in: ids } } as Query, options.projection)) as unknown as T[];
  const byId = new Map(projected.map((d) => [d._id, d]));
  return ids.map((id) => byId.get(id)).filter((d): d is T => d !== undefined);
}

function toUpdateResult(numAffected: number, upserted: boolean): UpdateResultLike {
  return upserted
    ? { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 }
    : { matchedCount: numAffected, modifiedCount: numAffected, upsertedCount: 0 };
}

export async function openEmbeddedEngine(dataDir: string, names: readonly string[]): Promise<StoreEngine> {
  await mkdir(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    return await openLocked(dataDir, names, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openLocked(dataDir: string, names: readonly string[], lock: DataDirLock): Promise<StoreEngine> {
  const stores = new Map<string, Datastore<AnyDoc>>();
  const appenders = new Map<string, GroupAppender>();
  const uniqueFields = new Map<string, Set<string>>();
  for (const name of names) {
    const filename = path.join(dataDir, `${name}.db`);
    const ds = new Datastore<AnyDoc>({ filename });
    useHashIdIndex(ds);
    appenders.set(name, withGroupCommit(ds, filename));
    await ds.loadDatabaseAsync();
    ds.setAutocompactionInterval(COMPACTION_INTERVAL_MS);
    stores.set(name, ds);
    uniqueFields.set(name, new Set());
  }
  const get = (name: string) => {
    const ds = stores.get(name);
    if (!ds) throw new Error(`unknown collection ${name}`);
    return ds;
  };
  return {
    kind: 'embedded',
    collection<T extends AnyDoc>(name: string): DocCollection<T> {
      return new EmbeddedCollection<T>(get(name) as unknown as Datastore<T>, appenders.get(name)!, uniqueFields.get(name)!);
    },
    async ensureIndexes(name: string, specs: IndexSpec[]) {
      const ds = get(name);
      const made = new Set<string>();
      for (const spec of specs) {
        // NeDB uses an index only for a query that gives every one of its fields by equality. The
        // queries here give a compound index's first field (app_id, user_id, status) and a range or
        // sort on the rest, so NeDB would keep the compound key up to date (an object comparison,
        // key lists sorted, at every tree step: the costliest part of an insert) and never use it.
        // It indexes that first field instead. (No compound index is unique.)
        const fields = spec.unique ? spec.fields : spec.fields.slice(0, 1);
        const key = fields.join(',');
        if (made.has(key)) continue;
        made.add(key);
        const fieldName = fields.length === 1 ? fields[0]! : fields;
        await ds.ensureIndexAsync({ fieldName, unique: spec.unique ?? false, sparse: spec.sparse ?? false });
        rebuildAsHashIndex(ds, key);
        if (spec.unique && fields.length === 1) uniqueFields.get(name)!.add(fields[0]!);
      }
      // Indexes a data file still declares and nothing asks for any more (the compound ones of
      // earlier versions): dropped, so that no write keeps them up to date.
      for (const key of Object.keys((ds as unknown as { indexes: Record<string, unknown> }).indexes)) {
        if (key !== '_id' && !made.has(key)) await ds.removeIndexAsync(key);
      }
      await appenders.get(name)!.sync();
    },
    async close() {
      for (const ds of stores.values()) {
        ds.stopAutocompaction();
        await ds.compactDatafileAsync();
      }
      for (const a of appenders.values()) await a.release();
      lock.release();
    },
  };
}
