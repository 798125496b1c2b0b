// Embedded engine: one NeDB datastore per collection under DATA_DIR (append-only file, loaded at
// start, compacted periodically), adapted to the DocCollection calls the repositories make.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import nedb from '@seald-io/nedb';
import { createRequire } from 'node:module';
import type { DocCollection, FindOptions, IndexSpec, StoreEngine, UpdateResultLike } from './collection.js';
import { GroupAppender } from './group-commit.js';

type AnyDoc = { _id: string };
// NeDB is CommonJS with an ESM-style `export default` in its typings: resolve the class either way.
type Datastore<T> = import('@seald-io/nedb').default<T>;
const Datastore = ((nedb as { default?: unknown }).default ?? nedb) as typeof import('@seald-io/nedb').default;
// NeDB queries and updates are Mongo-style but untyped; the repositories type them.
type Query = Record<string, unknown>;

const COMPACTION_INTERVAL_MS = 10 * 60_000;

// NeDB's own line format, so that files stay readable by NeDB itself.
const { serialize } = createRequire(import.meta.url)('@seald-io/nedb/lib/model.js') as { serialize: (doc: unknown) => string };

interface NedbPersistence {
  persistNewStateAsync(docs: unknown[]): Promise<void>;
  persistCachedDatabaseAsync(): Promise<void>;
  afterSerialization(line: string): string;
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
    for (const doc of docs) text += persistence.afterSerialization(serialize(doc)) + '\n';
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
  ) {}

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
    const doc = await this.ds.findOneAsync(filter as Query, options?.projection ?? {});
    return (doc as T | null) ?? null;
  }

  find(filter: object, options: FindOptions = {}) {
    const ds = this.ds;
    return {
      async toArray(): Promise<T[]> {
        let cursor = ds.findAsync(filter as Query, options.projection ?? {});
        if (options.sort) cursor = cursor.sort(options.sort);
        if (options.skip) cursor = cursor.skip(options.skip);
        if (options.limit) cursor = cursor.limit(options.limit);
        return (await cursor) as unknown as T[];
      },
    };
  }

  async countDocuments(filter: object): Promise<number> {
    return (await this.ds.countAsync(filter as Query)) as number;
  }

  async updateOne(filter: object, update: object, options: { upsert?: boolean } = {}): Promise<UpdateResultLike> {
    const res = await this.ds.updateAsync(filter as Query, update as Query, { upsert: options.upsert ?? false });
    await this.appender.sync();
    return toUpdateResult(res.numAffected, res.upsert);
  }

  async updateMany(filter: object, update: object): Promise<UpdateResultLike> {
    const res = await this.ds.updateAsync(filter as Query, update as Query, { multi: true });
    await this.appender.sync();
    return toUpdateResult(res.numAffected, false);
  }

  async deleteOne(filter: object) {
    const deletedCount = await this.ds.removeAsync(filter as Query, { multi: false });
    await this.appender.sync();
    return { deletedCount };
  }

  async deleteMany(filter: object) {
    const deletedCount = await this.ds.removeAsync(filter as Query, { multi: true });
    await this.appender.sync();
    return { deletedCount };
  }
}

function toUpdateResult(numAffected: number, upserted: boolean): UpdateResultLike {
  return upserted
    ? { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 }
    : { matchedCount: numAffected, modifiedCount: numAffected, upsertedCount: 0 };
}

export async function openEmbeddedEngine(dataDir: string, names: readonly string[]): Promise<StoreEngine> {
  await mkdir(dataDir, { recursive: true });
  const stores = new Map<string, Datastore<AnyDoc>>();
  const appenders = new Map<string, GroupAppender>();
  for (const name of names) {
    const filename = path.join(dataDir, `${name}.db`);
    const ds = new Datastore<AnyDoc>({ filename });
    appenders.set(name, withGroupCommit(ds, filename));
    await ds.loadDatabaseAsync();
    ds.setAutocompactionInterval(COMPACTION_INTERVAL_MS);
    stores.set(name, ds);
  }
  const get = (name: string) => {
    const ds = stores.get(name);
    if (!ds) throw new Error(`unknown collection ${name}`);
    return ds;
  };
  return {
    kind: 'embedded',
    collection<T extends AnyDoc>(name: string): DocCollection<T> {
      return new EmbeddedCollection<T>(get(name) as unknown as Datastore<T>, appenders.get(name)!);
    },
    async ensureIndexes(name: string, specs: IndexSpec[]) {
      const ds = get(name);
      for (const spec of specs) {
        const fieldName = spec.fields.length === 1 ? spec.fields[0] : spec.fields;
        await ds.ensureIndexAsync({ fieldName, unique: spec.unique ?? false, sparse: spec.sparse ?? false });
      }
      await appenders.get(name)!.sync();
    },
    async close() {
      for (const ds of stores.values()) {
        ds.stopAutocompaction();
        await ds.compactDatafileAsync();
      }
      for (const a of appenders.values()) await a.release();
    },
  };
}
