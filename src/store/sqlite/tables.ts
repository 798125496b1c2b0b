// The layouts of the typed tables, and their migrations at open. Each typed repository declares
// its table (TableSpec): the statements that create it at the current layout version, and the
// steps that bring a table of an earlier release up to it. The version of each table is kept in
// `store_layout`; a table that exists without a version there is the document table of the
// releases before typed tables, `(_id, doc JSON[, columns])`: version 0.
import type { Database } from 'better-sqlite3';

export interface TableSpec {
  /** The table's name (lower case and underscores). */
  name: string;
  /** The layout this release writes; raise it with each change, and add the step from the previous one. */
  version: number;
  /** Statements creating the table and its indexes at `version` (run on a database without the table). */
  create: readonly string[];
  /**
   * Steps from earlier layouts, by the version they start from: step `v` leaves the table at
   * layout `v + 1`. Step 0 starts from the document table (see `documentTable`). Each runs in the
   * transaction that opens the table, so a crash leaves the table as it was.
   */
  upgrade?: Readonly<Record<number, (db: Database) => void>>;
}

const NAME = /^[a-z_]+$/;

/** Creates the table of `spec`, or brings it to its layout; all or nothing. */
export function openTable(db: Database, spec: TableSpec): void {
  if (!NAME.test(spec.name)) throw new Error(`bad table name ${spec.name}`);
  db.exec('CREATE TABLE IF NOT EXISTS store_layout (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID');
  db.transaction(() => {
    const stored = db.prepare('SELECT version FROM store_layout WHERE name = ?').pluck().get(spec.name) as number | undefined;
    const exists = tableExists(db, spec.name);
    if (!exists) {
      for (const sql of spec.create) db.exec(sql);
    } else {
      let version = stored ?? 0;
      if (version > spec.version) {
        throw new Error(`table ${spec.name} has layout ${version}, written by a later release than this one (${spec.version}): run that release`);
      }
      for (; version < spec.version; version++) {
        const step = spec.upgrade?.[version];
        if (!step) throw new Error(`table ${spec.name}: no migration from layout ${version}`);
        step(db);
      }
    }
    db.prepare('INSERT INTO store_layout (name, version) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version').run(spec.name, spec.version);
  })();
}

export function tableExists(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * A document table of an earlier release, renamed out of the way for a step 0 that copies its rows
 * into the new layout: `field(name)` is the SQL reading one top-level field of a row (from its own
 * column when the old table kept one, else from the JSON text). Call `drop()` once the rows are in.
 */
export function documentTable(db: Database, name: string): { table: string; field(f: string): string; drop(): void } {
  const old = `${name}_v0`;
  // Its indexes follow it under their old names (typed tables name theirs otherwise) and go with it.
  db.exec(`ALTER TABLE ${name} RENAME TO ${old}`);
  const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(old) as string[]);
  return {
    table: old,
    field(f: string) {
      if (!NAME.test(f)) throw new Error(`bad field name ${f}`);
      const json = `json_extract(doc, '$.${f}')`;
      return columns.has(f) ? `coalesce(${f}, ${json})` : json;
    },
    drop() {
      db.exec(`DROP TABLE ${old}`);
    },
  };
}
