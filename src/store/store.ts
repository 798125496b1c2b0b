// The store: opens the configured engine, brings every table and index to this release's layout,
// and hands out the repositories.
import type { Db } from 'mongodb';
import type { DocCollection, StoreEngine } from './collection.js';
import type { MessageDoc } from './documents.js';
import { ALL_COLLECTION_NAMES, COLLECTION_NAMES, COLLECTIONS, DOCUMENT_TABLE_NAMES, DOCUMENT_TABLES, type CollectionName } from './indexes.js';
import { ensureMongoIndexes } from './mongodb/docs.js';
import { mongoEngine } from './mongodb-engine.js';
import { mongoRepositories } from './mongodb/repos.js';
import type { InboxReads, Repositories } from './repos/index.js';
import { inboxReads } from './inbox-reads.js';
import { docTableSpec } from './sqlite/doc-table.js';
import { openSqliteEngine, type SyncMode } from './sqlite/engine.js';
import { sqliteRepositories } from './sqlite/repos.js';
import type { WriteHealth } from './store-errors.js';
import { ScopedRepo } from './scoped-repo.js';
import { reportingWrites, WriteFeed } from './write-watch.js';

/** The store: the typed repositories (repos/index.ts) and the collections not yet typed. */
export interface Store extends Repositories {
  engine: StoreEngine;
  /** The messages collection as delivery writes it (until it has a typed repository of its own). */
  messages: ScopedRepo<MessageDoc>;
  /** The messages as the API reads them. */
  inbox: InboxReads;
  /** Updates and deletes made through this store, per collection (for in-process caches). */
  writes: WriteFeed;
  /** Raw access for collections the engine and delivery own (locations, outbox, ...). */
  collection<T extends { _id: string }>(name: CollectionName): DocCollection<T>;
  /** Everything the application owns, in every collection (but the application itself). */
  removeApplicationData(appId: string): Promise<void>;
  /** Whether writes are going through (/health). */
  health(): WriteHealth;
  close(): Promise<void>;
}

export type StoreSource =
  | {
    kind: 'embedded'; dataDir: string; sync?: SyncMode; commitPerWrite?: boolean; columns?: Readonly<Record<string, readonly string[]>>;
    /** Told how long each commit took, ms (the service's metrics). */
    onCommit?: (ms: number) => void;
  }
  | { kind: 'mongodb'; db: Db; close?: () => Promise<void> };

export async function openStore(source: StoreSource): Promise<Store> {
  const writes = new WriteFeed();
  const changed = (name: string) => writes.emit(name);
  let engine: StoreEngine;
  let repos: Repositories;
  if (source.kind === 'embedded') {
    // The engine's plain tables are their repositories' (sqlite/tables.ts); files of the old engine
    // are looked for under every name (sqlite/legacy.ts).
    const sqlite = openSqliteEngine(source.dataDir, [...COLLECTION_NAMES, ...DOCUMENT_TABLE_NAMES], {
      sync: source.sync, commitPerWrite: source.commitPerWrite, columns: source.columns, legacyNames: ALL_COLLECTION_NAMES, onCommit: source.onCommit,
    });
    engine = sqlite;
    try {
      for (const name of DOCUMENT_TABLE_NAMES) sqlite.sql.table(docTableSpec({ name, ...DOCUMENT_TABLES[name] }));
      repos = sqliteRepositories(sqlite.sql, changed);
    } catch (err) {
      await sqlite.close();
      throw err;
    }
  } else {
    engine = mongoEngine(source.db, source.close ?? (async () => {}));
    await ensureMongoIndexes(source.db, DOCUMENT_TABLES);
    repos = await mongoRepositories(source.db, changed);
  }
  for (const name of COLLECTION_NAMES) await engine.ensureIndexes(name, COLLECTIONS[name]);
  // One wrapper per collection: callers ask for collections on every use.
  const collections = new Map<CollectionName, DocCollection<{ _id: string }>>();
  const collection = <T extends { _id: string }>(name: CollectionName): DocCollection<T> => {
    let col = collections.get(name);
    if (!col) collections.set(name, (col = reportingWrites(name, engine.collection<{ _id: string }>(name), writes)));
    return col as unknown as DocCollection<T>;
  };
  const scoped = <T extends { _id: string; app_id: string }>(name: CollectionName) => new ScopedRepo<T>(collection<T>(name));
  return {
    ...repos,
    engine,
    writes,
    messages: scoped<MessageDoc>('messages'),
    inbox: inboxReads(collection<MessageDoc>('messages')),
    collection,
    async removeApplicationData(appId) {
      for (const repo of [
        repos.tokens, repos.authCodes, repos.apiHits, repos.users, repos.layers, repos.places, repos.triggers, repos.subscriptions,
        repos.geonotes, repos.shareLinks, repos.locationBatches, repos.groups, repos.groupMembers, repos.groupMessages,
        repos.locations, repos.lastLocations, repos.machines, repos.timeline, repos.firings,
      ]) {
        await repo.removeForApp(appId);
      }
      for (const name of COLLECTION_NAMES) await collection<{ _id: string; app_id: string }>(name).deleteMany({ app_id: appId });
    },
    health: () => engine.health(),
    close: () => engine.close(),
  };
}
