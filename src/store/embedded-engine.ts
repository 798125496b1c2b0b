// Embedded engine: one NeDB datastore per collection under DATA_DIR (append-only file, loaded at
// start, compacted periodically), adapted to the DocCollection calls the repositories make.
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import nedb from '@seald-io/nedb';
import { createRequire } from 'node:module';
import type { DocCollection, FindOptions, IndexSpec, ReplaceOneOp, StoreEngine, UpdateResultLike } from './collection.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { GroupAppender } from './group-commit.js';
import { escapeLineSeparators, repairLineSeparators } from './line-separators.js';
import { rebuildAsHashIndex, useHashIdIndex } from './nedb-hash-index.js';
import { patchNedbIndexUpdate } from './nedb-index-update.js';
import { selectiveLast } from './nedb-query.js';
import { SyncOps, type Doc, type NedbCore } from './nedb-sync.js';

patchNedbIndexUpdate();

type AnyDoc = { _id: string };
// NeDB is CommonJS with an ESM-style `export default` in its typings: resolve the class either way.
type Datastore<T> = import('@seald-io/nedb').default<T>;
const Datastore = ((nedb as { default?: unknown }).default ?? nedb) as typeof import('@seald-io/nedb').default;
// NeDB queries and updates are Mongo-style but untyped; the repositories type them.
type Query = Record<string, unknown>;

const COMPACTION_INTERVAL_MS = 10 * 60_000;

// NeDB's own line format, so that files stay readable by NeDB itself; and its ordering of values.
const nedbRequire = createRequire(import.meta.url);
const { serialize } = nedbRequire('@seald-io/nedb/lib/model.js') as { serialize: (doc: unknown) => string };

/**
 * NeDB's line for a document. Its serialize() runs a replacer on every key (to turn Dates into
 * {$$date} and re-check keys NeDB already checked on insert and update): ~40% of the cost of
 * writing a location (measured). Our documents keep dates as epoch ms, so plain JSON is the same
 * line; a document that does hold a Date still goes through NeDB's serialize.
 */
function toLine(doc: unknown): string {
  // U+2028, U+2029 and U+0085 escaped: NeDB's loader breaks lines there too (line-separators.ts).
  return escapeLineSeparators(holdsDate(doc) ? serialize(doc) : JSON.stringify(doc));
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

/** NeDB's persistence, whose writes are routed to the group commit below. */
interface NedbPersistence {
  persistNewStateAsync(docs: unknown[]): Promise<void>;
  persistCachedDatabaseAsync(): Promise<void>;
}

const storage = nedbRequire('@seald-io/nedb/lib/storage.js') as {
  flushToStorageAsync(o: { filename: string; isDir: boolean }): Promise<void>;
};

/** Documents serialised per write while a compaction takes its snapshot. */
const SNAPSHOT_CHUNK = 2000;
/** Writes made during a compaction are copied asynchronously while a round copies more than this. */
const CATCH_UP_CHARS = 256 * 1024;

/** One collection's file: its lines go through a GroupAppender; compaction replaces it. */
class Datafile {
  readonly appender: GroupAppender;
  private compacting: Promise<void> | undefined;

  constructor(
    private readonly ds: Datastore<AnyDoc>,
    private readonly filename: string,
  ) {
    this.appender = new GroupAppender(filename);
    const persistence = ds.persistence as unknown as NedbPersistence;
    // NeDB's own writes (index declarations; its load's final compaction) take the same paths.
    persistence.persistNewStateAsync = async (docs: unknown[]) => this.append(docs);
    persistence.persistCachedDatabaseAsync = () => this.compact();
  }

  /** Queues the lines of these documents; callers await `appender.sync()` for them. */
  append(docs: unknown[]): void {
    // No serialization hooks are configured, so the line is the document itself. (NeDB wraps its
    // afterSerialization in an async function: calling it here appended "[object Promise]" lines.)
    if (docs.length > 0) this.appender.enqueueLines(docs.map(toLine)).catch(() => undefined); // awaited through sync()
  }

  /**
   * Rewrites the file as one line per document plus the index declarations (NeDB's format),
   * without stopping reads or writes: NeDB's compaction ran in its queue, so every operation on the
   * collection waited for the whole file to be written and synced (over a second for a busy
   * outbox). The snapshot goes to a temporary file a chunk at a time while writes go on to the
   * old file; then, in one synchronous step, the writes made meanwhile follow it and it replaces
   * the old file (GroupAppender.switchTo). A crash at any point leaves one whole file.
   */
  compact(): Promise<void> {
    this.compacting ??= this.rewrite().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private async rewrite(): Promise<void> {
    const temp = `${this.filename}~`;
    this.appender.beginCapture();
    try {
      const file = await open(temp, 'w');
      try {
        const docs = (this.ds as unknown as NedbCore).getAllData();
        for (let i = 0; i < docs.length; i += SNAPSHOT_CHUNK) {
          let text = '';
          for (const doc of docs.slice(i, i + SNAPSHOT_CHUNK)) text += toLine(doc) + '\n';
          await file.write(text);
        }
        let declarations = '';
        const indexes = (this.ds as unknown as { indexes: Record<string, { fieldName: unknown; unique: boolean; sparse: boolean }> }).indexes;
        for (const [name, index] of Object.entries(indexes)) {
          if (name !== '_id') declarations += toLine({ $$indexCreated: { fieldName: index.fieldName, unique: index.unique, sparse: index.sparse } }) + '\n';
        }
        await file.write(declarations);
        // Catch up with the writes made meanwhile while they are many, so that the synchronous
        // step of switchTo() has little left to copy.
        let tail = this.appender.takeCaptured();
        while (tail) {
          await file.write(tail);
          tail = tail.length > CATCH_UP_CHARS ? this.appender.takeCaptured() : '';
        }
        await file.sync();
      } finally {
        await file.close();
      }
      this.appender.switchTo(temp);
    } catch (err) {
      this.appender.endCapture();
      await rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
    await storage.flushToStorageAsync({ filename: path.dirname(this.filename), isDir: true });
  }
}

class EmbeddedCollection<T extends AnyDoc> implements DocCollection<T> {
  private readonly ops: SyncOps;
  private readonly appender: GroupAppender;

  constructor(
    ds: Datastore<T>,
    file: Datafile,
    /** Fields with a unique index (filled by ensureIndexes): preferred for candidate selection. */
    private readonly unique: ReadonlySet<string>,
  ) {
    this.ops = new SyncOps(ds as unknown as NedbCore, (docs) => file.append(docs));
    this.appender = file.appender;
  }

  private q(filter: object): Query {
    return selectiveLast(filter as Query, this.unique);
  }

  async insertOne(doc: T) {
    this.ops.insert([doc]);
    await this.appender.sync();
    return { acknowledged: true, insertedId: doc._id };
  }

  async insertMany(docs: T[]) {
    // All or nothing, as an ordered insertMany that fails would not be.
    this.ops.insert(docs);
    await this.appender.sync();
    return { acknowledged: true, insertedCount: docs.length };
  }

  async findOne(filter: object, options?: { projection?: object }): Promise<T | null> {
    const [doc] = this.ops.find(this.q(filter), { limit: 1, projection: options?.projection as Query | undefined });
    return (doc as T | undefined) ?? null;
  }

  find(filter: object, options: FindOptions = {}) {
    const ops = this.ops;
    const query = this.q(filter);
    return {
      async toArray(): Promise<T[]> {
        const found = ops.find(query, {
          sort: sortKeys(options.sort), skip: options.skip, limit: options.limit, projection: options.projection as Query | undefined,
        });
        return found as unknown as T[];
      },
    };
  }

  async countDocuments(filter: object): Promise<number> {
    return this.ops.count(this.q(filter));
  }

  async updateOne(filter: object, update: object, options: { upsert?: boolean } = {}): Promise<UpdateResultLike> {
    const res = this.ops.update(this.q(filter), update as Query, { upsert: options.upsert ?? false });
    await this.appender.sync();
    return toUpdateResult(res.matched, res.upserted);
  }

  async updateMany(filter: object, update: object): Promise<UpdateResultLike> {
    const res = this.ops.update(this.q(filter), update as Query, { multi: true });
    await this.appender.sync();
    return toUpdateResult(res.matched, false);
  }

  /**
   * The replacements at once, one group-commit line each: a location update per request cost ~17
   * µs of main-thread time as its own updateOne under NeDB's queue. Each document is checked and
   * indexed like an update; every one applied is persisted, also when a later one fails.
   */
  async bulkWrite(operations: ReplaceOneOp<T>[]): Promise<{ matchedCount: number }> {
    let matchedCount: number;
    try {
      matchedCount = this.ops.replace(operations.map(({ replaceOne: op }) => ({ filter: this.q(op.filter), replacement: op.replacement as Doc })));
    } finally {
      await this.appender.sync();
    }
    return { matchedCount };
  }

  async deleteOne(filter: object) {
    const deletedCount = this.ops.remove(this.q(filter), false);
    await this.appender.sync();
    return { deletedCount };
  }

  async deleteMany(filter: object) {
    const deletedCount = this.ops.remove(this.q(filter), true);
    await this.appender.sync();
    return { deletedCount };
  }
}

/** Object sorts (1 / -1, or their names); any other form is refused, not guessed at. */
function sortKeys(sort: FindOptions['sort']): Array<[string, 1 | -1]> | undefined {
  if (sort === undefined) return undefined;
  if (typeof sort !== 'object' || Array.isArray(sort) || sort instanceof Map) throw new Error('the embedded store takes sorts as { field: 1 | -1 }');
  const keys: Array<[string, 1 | -1]> = [];
  for (const [field, dir] of Object.entries(sort)) {
    if (dir === 1 || dir === 'asc' || dir === 'ascending') keys.push([field, 1]);
    else if (dir === -1 || dir === 'desc' || dir === 'descending') keys.push([field, -1]);
    else throw new Error(`the embedded store cannot sort by ${JSON.stringify(dir)}`);
  }
  return keys;
}

function toUpdateResult(numAffected: number, upserted: boolean): UpdateResultLike {
  return upserted
    ? { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 }
    : { matchedCount: numAffected, modifiedCount: numAffected, upsertedCount: 0 };
}

/** The embedded engine; `compact()` rewrites every collection's file now (it also runs every 10 minutes). */
export interface EmbeddedEngine extends StoreEngine {
  compact(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Told when a periodic compaction fails (the file then keeps its appended lines; nothing is lost). */
  onCompactionError?: (err: unknown, collection: string) => void;
  /** Between periodic compactions; 10 minutes unless given (tests). */
  compactionIntervalMs?: number;
}

export async function openEmbeddedEngine(dataDir: string, names: readonly string[], opts: EmbeddedOptions = {}): Promise<EmbeddedEngine> {
  await mkdir(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    return await openLocked(dataDir, names, lock, opts);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openLocked(dataDir: string, names: readonly string[], lock: DataDirLock, opts: EmbeddedOptions): Promise<EmbeddedEngine> {
  const stores = new Map<string, Datastore<AnyDoc>>();
  const files = new Map<string, Datafile>();
  const uniqueFields = new Map<string, Set<string>>();
  for (const name of names) {
    const filename = path.join(dataDir, `${name}.db`);
    await repairLineSeparators(filename);
    const ds = new Datastore<AnyDoc>({ filename });
    useHashIdIndex(ds);
    files.set(name, new Datafile(ds, filename));
    await ds.loadDatabaseAsync();
    stores.set(name, ds);
    uniqueFields.set(name, new Set());
  }
  const get = (name: string) => {
    const ds = stores.get(name);
    if (!ds) throw new Error(`unknown collection ${name}`);
    return ds;
  };
  // One collection at a time, so that two snapshots never hold memory together.
  const compactAll = async () => {
    for (const file of files.values()) await file.compact();
  };
  const timer = setInterval(() => {
    void (async () => {
      for (const [name, file] of files) await file.compact().catch((err) => opts.onCompactionError?.(err, name));
    })();
  }, opts.compactionIntervalMs ?? COMPACTION_INTERVAL_MS);
  timer.unref();
  return {
    kind: 'embedded',
    compact: compactAll,
    collection<T extends AnyDoc>(name: string): DocCollection<T> {
      return new EmbeddedCollection<T>(get(name) as unknown as Datastore<T>, files.get(name)!, uniqueFields.get(name)!);
    },
    async ensureIndexes(name: string, specs: IndexSpec[]) {
      const ds = get(name);
      const made = new Set<string>();
      for (const spec of specs) {
        if (spec.mongodbOnly) continue;
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
      await files.get(name)!.appender.sync();
    },
    async close() {
      clearInterval(timer);
      try {
        await compactAll();
      } finally {
        // A failed compaction leaves the appended file, which holds everything: still let go.
        for (const file of files.values()) await file.appender.release();
        lock.release();
      }
    },
  };
}
