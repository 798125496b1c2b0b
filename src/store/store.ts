// The store: opens the configured engine, brings every table and index to this release's layout,
// and hands out the repositories.
import type { Db } from 'mongodb';
import { DOCUMENT_TABLE_NAMES, DOCUMENT_TABLES, ALL_COLLECTION_NAMES } from './indexes.js';
import { ensureMongoIndexes } from './mongodb/docs.js';
import { mongoRepositories } from './mongodb/repos.js';
import type { Repositories } from './repos/index.js';
import { docTableSpec } from './sqlite/doc-table.js';
import { openSqliteEngine, type SyncMode } from './sqlite/engine.js';
import { sqliteRepositories } from './sqlite/repos.js';
import type { StoreEngine } from './store-engine.js';
import type { WriteHealth } from './store-errors.js';
import { WriteFeed } from './write-watch.js';

/** The store: a typed repository per collection (repos/index.ts). */
export interface Store extends Repositories {
  engine: StoreEngine;
  /** Updates and deletes made through this store, per collection (for in-process caches). */
  writes: WriteFeed;
  /** Everything the application owns, in every collection (but the application itself). */
  removeApplicationData(appId: string): Promise<void>;
  /** Whether writes are going through (/health). */
  health(): WriteHealth;
  close(): Promise<void>;
}

export type StoreSource =
  | { kind: 'embedded'; dataDir: string; sync?: SyncMode; commitPerWrite?: boolean }
  | { kind: 'mongodb'; db: Db; close?: () => Promise<void> };

export async function openStore(source: StoreSource): Promise<Store> {
  const writes = new WriteFeed();
  const changed = (name: string) => writes.emit(name);
  let engine: StoreEngine;
  let repos: Repositories;
  if (source.kind === 'embedded') {
    // Each table is its repository's (sqlite/tables.ts); files of the old engine are looked for
    // under every name (sqlite/legacy.ts).
    const sqlite = openSqliteEngine(source.dataDir, ALL_COLLECTION_NAMES, { sync: source.sync, commitPerWrite: source.commitPerWrite });
    engine = sqlite;
    try {
      for (const name of DOCUMENT_TABLE_NAMES) sqlite.sql.table(docTableSpec({ name, ...DOCUMENT_TABLES[name] }));
      repos = sqliteRepositories(sqlite.sql, changed);
    } catch (err) {
      await sqlite.close();
      throw err;
    }
  } else {
    const close = source.close ?? (async () => {});
    // The driver reports its own failures per call; nothing here watches them.
    engine = { kind: 'mongodb', health: () => ({ writable: true }), close };
    await ensureMongoIndexes(source.db, DOCUMENT_TABLES);
    repos = await mongoRepositories(source.db, changed);
  }
  return {
    ...repos,
    engine,
    writes,
    async removeApplicationData(appId) {
      for (const repo of [
        repos.tokens, repos.authCodes, repos.apiHits, repos.users, repos.layers, repos.places, repos.triggers, repos.subscriptions,
        repos.geonotes, repos.shareLinks, repos.locationBatches, repos.groups, repos.groupMembers, repos.groupMessages,
        repos.locations, repos.lastLocations, repos.machines, repos.timeline, repos.firings, repos.messages, repos.deviceMessages,
      ]) {
        await repo.removeForApp(appId);
      }
    },
    health: () => engine.health(),
    close: () => engine.close(),
  };
}
