// The embedded engine: one SQLite database under DATA_DIR (better-sqlite3, WAL mode). Typed
// repositories get the connection and the group commit through `sql` (sqlite-db.ts) and keep plain
// tables of their own. The collections not yet typed are a table each holding each document as
// JSON, with the declared indexes as SQLite expression indexes; a collection whose documents change
// often may keep some fields in columns of their own (indexes.ts COLUMNS): an update of those writes
// the columns only, and indexes over them are plain column indexes, where an update of the JSON text
// re-parses it for every expression index.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { DocCollection, IndexSpec, StoreEngine } from '../collection.js';
import { COLUMNS } from '../indexes.js';
import { lockDataDir } from '../data-dir-lock.js';
import type { WriteHealth } from '../store-errors.js';
import { Checkpointer } from './checkpointer.js';
import { openDatabase } from './driver.js';
import { GroupCommit } from './commit.js';
import { SqliteCollection } from './collection.js';
import { fieldExpr } from './filter.js';
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
  /** Fields kept in their own columns, per collection (default: indexes.ts COLUMNS). */
  columns?: Readonly<Record<string, readonly string[]>>;
  /** The collections whose files of the old engine refuse the start (default: `names`). */
  legacyNames?: readonly string[];
  /** Told how long each commit took, ms. */
  onCommit?: (ms: number) => void;
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

export function openSqliteEngine(dataDir: string, names: readonly string[], opts: SqliteOptions = {}): SqliteEngine {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DATABASE_FILE);
  if (!opts.allowLegacy) {
    const legacy = legacyFilesIn(dataDir, opts.legacyNames ?? names);
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
  const commit = new GroupCommit(db, opts.commitPerWrite ?? false, () => checkpointer.committed(), opts.onCommit);
  const scalarFields = new Map<string, Set<string>>();
  const columnsOf = new Map<string, Set<string>>();
  const collections = new Map<string, SqliteCollection<{ _id: string }>>();
  for (const name of names) {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`bad collection name ${name}`);
    const columns = [...((opts.columns ?? (COLUMNS as Record<string, readonly string[]>))[name] ?? [])];
    for (const c of columns) if (!/^[a-z_]+$/.test(c) || c === 'doc' || c === 'rowid') throw new Error(`bad column name ${c}`);
    // rowid keeps insertion order, which is the natural order MongoDB returns without a sort.
    // Columns without a type hold each value as given (text or number), as the JSON did.
    if (!tableExists(db, name)) db.exec(`CREATE TABLE ${name} (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL${columns.map((c) => `, ${c}`).join('')})`);
    else addColumns(db, name, columns);
    scalarFields.set(name, new Set());
    columnsOf.set(name, new Set(columns));
  }
  return {
    kind: 'embedded',
    db,
    sql: new SqliteDb(db, commit),
    health: () => commit.health(),
    collection<T extends { _id: string }>(name: string): DocCollection<T> {
      let col = collections.get(name);
      if (!col) {
        const fields = scalarFields.get(name);
        if (!fields) throw new Error(`unknown collection ${name}`);
        collections.set(name, (col = new SqliteCollection(db, commit, name, fields, columnsOf.get(name))));
      }
      return col as unknown as DocCollection<T>;
    },
    async ensureIndexes(name: string, specs: IndexSpec[]) {
      const fields = scalarFields.get(name);
      if (!fields) throw new Error(`unknown collection ${name}`);
      const columns = columnsOf.get(name);
      const wanted = new Set<string>();
      for (const spec of specs) {
        for (const f of spec.fields) fields.add(f);
        const index = `ix_${name}__${spec.fields.join('__').replaceAll('.', '_')}`;
        wanted.add(index);
        const exprs = spec.fields.map((f) => fieldExpr(f, columns)).join(', ');
        const partial = spec.sparse ? ` WHERE ${spec.fields.map((f) => `${fieldExpr(f, columns)} IS NOT NULL`).join(' AND ')}` : '';
        if (!indexExists(db, index)) db.exec(`CREATE ${spec.unique ? 'UNIQUE ' : ''}INDEX ${index} ON ${name} (${exprs})${partial}`);
      }
      // Indexes nothing declares any more cost every write: dropped.
      const existing = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'ix\\_%' ESCAPE '\\'").pluck().all(name) as string[];
      for (const index of existing) if (!wanted.has(index)) db.exec(`DROP INDEX ${index}`);
    },
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

/**
 * Gives a table of an earlier version the columns it lacks: each column takes the field's strings
 * and numbers out of the JSON text, and the table's indexes are dropped (ensureIndexes builds them
 * again over the columns). One transaction: a crash leaves the table as it was.
 */
function addColumns(db: Database.Database, table: string, columns: string[]): void {
  const have = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]));
  const missing = columns.filter((c) => !have.has(c));
  if (missing.length === 0) return;
  db.transaction(() => {
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'ix\\_%' ESCAPE '\\'").pluck().all(table) as string[];
    for (const index of indexes) db.exec(`DROP INDEX ${index}`);
    for (const c of missing) {
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${c}`);
      db.exec(`UPDATE ${table} SET ${c} = json_extract(doc, '$.${c}'), doc = json_remove(doc, '$.${c}') WHERE json_type(doc, '$.${c}') IN ('text', 'integer', 'real')`);
    }
  })();
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function indexExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) !== undefined;
}
