// The store: opens the configured engine, creates every index, and hands out the repositories.
import type { Db } from 'mongodb';
import type { DocCollection, StoreEngine } from './collection.js';
import type {
  ApplicationDoc, LayerDoc, MessageDoc, PlaceDoc, SubscriptionDoc, TokenDoc, TriggerDoc, UserDoc,
} from './documents.js';
import { ALL_COLLECTION_NAMES, COLLECTION_NAMES, COLLECTIONS, type CollectionName } from './indexes.js';
import { mongoEngine } from './mongodb-engine.js';
import { openSqliteEngine, type SqliteEngine, type SyncMode } from './sqlite/engine.js';
import type { WriteHealth } from './store-errors.js';
import { mongoRepositories, sqliteRepositories, type Repositories } from './repositories.js';
import { ScopedRepo } from './scoped-repo.js';
import { reportingWrites, WriteFeed } from './write-watch.js';

/** The store: the typed repositories (repositories.ts) and the collections not yet typed. */
export interface Store extends Repositories {
  engine: StoreEngine;
  applications: DocCollection<ApplicationDoc>;
  tokens: DocCollection<TokenDoc>;
  users: ScopedRepo<UserDoc>;
  layers: ScopedRepo<LayerDoc>;
  places: ScopedRepo<PlaceDoc>;
  triggers: ScopedRepo<TriggerDoc>;
  subscriptions: ScopedRepo<SubscriptionDoc>;
  messages: ScopedRepo<MessageDoc>;
  /** Updates and deletes made through this store, per collection (for in-process caches). */
  writes: WriteFeed;
  /** Raw access for collections the engine and delivery own (locations, outbox, ...). */
  collection<T extends { _id: string }>(name: CollectionName): DocCollection<T>;
  /** Whether writes are going through (/health). */
  health(): WriteHealth;
  close(): Promise<void>;
}

export type StoreSource =
  | { kind: 'embedded'; dataDir: string; sync?: SyncMode; commitPerWrite?: boolean; columns?: Readonly<Record<string, readonly string[]>> }
  | { kind: 'mongodb'; db: Db; close?: () => Promise<void> };

export async function openStore(source: StoreSource): Promise<Store> {
  const engine =
    source.kind === 'embedded'
      ? openSqliteEngine(source.dataDir, COLLECTION_NAMES, {
        sync: source.sync, commitPerWrite: source.commitPerWrite, columns: source.columns, legacyNames: ALL_COLLECTION_NAMES,
      })
      : mongoEngine(source.db, source.close ?? (async () => {}));
  let repos: Repositories;
  try {
    for (const name of COLLECTION_NAMES) await engine.ensureIndexes(name, COLLECTIONS[name]);
    repos = engine.kind === 'embedded' ? sqliteRepositories((engine as SqliteEngine).sql) : await mongoRepositories((source as { db: Db }).db);
  } catch (err) {
    await engine.close();
    throw err;
  }
  const writes = new WriteFeed();
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
    applications: collection<ApplicationDoc>('applications'),
    tokens: collection<TokenDoc>('tokens'),
    users: scoped<UserDoc>('users'),
    layers: scoped<LayerDoc>('layers'),
    places: scoped<PlaceDoc>('places'),
    triggers: scoped<TriggerDoc>('triggers'),
    subscriptions: scoped<SubscriptionDoc>('subscriptions'),
    messages: scoped<MessageDoc>('messages'),
    collection,
    health: () => engine.health(),
    close: () => engine.close(),
  };
}
