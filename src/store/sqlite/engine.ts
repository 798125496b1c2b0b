// The embedded engine: one SQLite database under DATA_DIR (better-sqlite3, WAL mode). Typed
// repositories get the connection and the group commit through `sql` (sqlite-db.ts) and keep
// tables of their own.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { lockDataDir } from '../data-dir-lock.js';
import type { StoreEngine } from '../store-engine.js';
import type { WriteHealth } from '../store-errors.js';
import { Checkpointer } from './checkpointer.js';
import { openDatabase } from './driver.js';
import { GroupCommit } from './commit.js';
import { legacyFilesIn } from './legacy.js';
import { SqliteDb } from './sqlite-db.js';

export const DATABASE_FILE = 'geotrigger.sqlite';

/**
 * What an acknowledged write survives. `normal`: a crash of the process (WAL written before the
 * answer), not a power loss. `full`: a power loss too (the WAL is synced at every group commit).
 */
export type SyncMode = 'normal' | 'full';

export interface SqliteOptions {
  sync?: SyncMode;
  /** Commit every write on its own instead of once per event-loop turn (benchmarks). */
  commitPerWrite?: boolean;
  /** Open beside files of the old engine (the importer does, to copy them in). */
  allowLegacy?: boolean;
}

export interface SqliteEngine extends StoreEngine {
  readonly kind: 'embedded';
  health(): WriteHealth;
  /** The connection, for tools that read the database directly (benchmarks, the importer). */
  readonly db: Database.Database;
  /** What typed repositories are built on: the connection and the group commit. */
  readonly sql: SqliteDb;
}

export class LegacyDataError extends Error {}

/** `legacyNames`: the collections whose files of the old engine refuse the start (sqlite/legacy.ts). */
export function openSqliteEngine(dataDir: string, legacyNames: readonly string[], opts: SqliteOptions = {}): SqliteEngine {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DATABASE_FILE);
  if (!opts.allowLegacy) {
    const legacy = legacyFilesIn(dataDir, legacyNames);
    if (legacy.length > 0) {
      throw new LegacyDataError(
        `DATA_DIR ${dataDir} holds data of the old embedded engine (${legacy.join(', ')}). ` +
          'Import it once with `npm run import-legacy` (same DATA_DIR, service stopped); nothing has been changed.',
      );
    }
  }
  const lock = lockDataDir(dataDir);
  let db: Database.Database;
  try {
    db = openDatabase(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.sync === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('busy_timeout = 5000');
    // Checkpoints run in their own thread (checkpointer.ts); a WAL reused after one is cut back.
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  } catch (err) {
    lock.release();
    throw err;
  }
  const checkpointer = new Checkpointer(file);
  const commit = new GroupCommit(db, opts.commitPerWrite ?? false, () => checkpointer.committed());
  return {
    kind: 'embedded',
    db,
    sql: new SqliteDb(db, commit),
    health: () => commit.health(),
    async close() {
      await checkpointer.close();
      try {
        commit.flush();
        db.pragma('optimize');
      } finally {
        db.close();
        lock.release();
      }
    },
  };
}
