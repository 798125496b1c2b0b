// The embedded store's tables of cold objects (applications, users, layers, places...): each
// document as JSON text in `doc`, and every field a query reads as a generated column of the same
// name (VIRTUAL: computed from the text, stored only in the indexes over it). So each repository
// method is a prepared statement over plain columns with bound parameters, written once, and a
// whole document is read with one JSON.parse. The release before kept the same (_id, doc) rows
// with expression indexes named ix_<table>__*: layout 0 of tables.ts, which the step to layout 1
// brings to this one in place (columns added, indexes replaced), in the transaction that opens it.
import type { Database, Statement } from 'better-sqlite3';
import { applyChanges, changesNothing, type Changes } from '../changes.js';
import { unique } from '../duplicate-key.js';
import type { TableShape } from '../indexes.js';
import type { SqliteDb } from './sqlite-db.js';
import type { TableSpec } from './tables.js';

export interface DocTableSpec extends TableShape {
  name: string;
}

/** What a repository needs of the embedded engine: the connection and the turn's group commit. */
export type SqliteAccess = Pick<SqliteDb, 'db' | 'run' | 'runOne'>;

/**
 * The table's layout (tables.ts): made whole when missing; from the previous release's document
 * table (layout 0), its fields added as columns and its indexes replaced. A later change of fields
 * or indexes raises the version and adds the same step from the version before.
 */
export function docTableSpec(spec: DocTableSpec): TableSpec {
  checkNames(spec);
  return {
    name: spec.name,
    version: 1,
    // rowid keeps insertion order; `_id` is the public id.
    create: [`CREATE TABLE ${spec.name} (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL${spec.fields.map((f) => `, ${generated(f)}`).join('')})`, ...spec.indexes.map((i) => createIndex(spec, i))],
    upgrade: { 0: (db) => ensureDocTable(db, spec) },
  };
}

function checkNames(spec: DocTableSpec): void {
  for (const n of [spec.name, ...spec.fields]) if (!NAME.test(n) || n === 'doc') throw new Error(`bad table or field name ${n}`);
  for (const i of spec.indexes) for (const f of i.on) if (!spec.fields.includes(f)) throw new Error(`index of ${spec.name} on ${f}, which is not a field`);
}

function createIndex(spec: DocTableSpec, i: DocTableSpec['indexes'][number]): string {
  const where = i.sparse ? ` WHERE ${i.on.map((f) => `${f} IS NOT NULL`).join(' AND ')}` : '';
  return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${indexName(spec.name, i.on)} ON ${spec.name} (${i.on.join(', ')})${where}`;
}

const NAME = /^[a-z][a-z_]*$/;
const generated = (field: string) => `${field} GENERATED ALWAYS AS (json_extract(doc, '$.${field}')) VIRTUAL`;
const indexName = (table: string, on: readonly string[]) => `cx_${table}__${on.join('__')}`;

/** Brings a document table of the previous release to this layout (in the caller's transaction). */
function ensureDocTable(db: Database, spec: DocTableSpec): void {
  const names = (sql: string, ...params: string[]) => db.prepare(sql).pluck().all(...params) as string[];
  const have = new Set(names('SELECT name FROM pragma_table_xinfo(?)', spec.name));
  for (const f of spec.fields) if (!have.has(f)) db.exec(`ALTER TABLE ${spec.name} ADD COLUMN ${generated(f)}`);
  const wanted = new Set(spec.indexes.map((i) => indexName(spec.name, i.on)));
  // The previous release's expression indexes, and indexes nothing declares any more: each costs every write.
  for (const index of names("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND (name LIKE 'ix\\_%' ESCAPE '\\' OR name LIKE 'cx\\_%' ESCAPE '\\')", spec.name)) {
    if (!wanted.has(index)) db.exec(`DROP INDEX ${index}`);
  }
  for (const i of spec.indexes) db.exec(createIndex(spec, i));
}

type Param = string | number | bigint | null;

/**
 * One table of documents. Its queries are prepared once, when the repository is made; reads run at
 * once on the connection (they see the turn's writes), writes join the turn's group commit and
 * resolve once it has committed.
 */
export class DocTable<T extends { _id: string }> {
  private readonly insertOne: Statement;
  private readonly upsertOne: Statement;
  private readonly putOne: Statement;

  constructor(private readonly s: SqliteAccess, readonly name: string) {
    this.insertOne = s.db.prepare(`INSERT INTO ${name} (_id, doc) VALUES (?, ?)`);
    this.upsertOne = s.db.prepare(`INSERT INTO ${name} (_id, doc) VALUES (?, ?) ON CONFLICT (_id) DO UPDATE SET doc = excluded.doc`);
    this.putOne = s.db.prepare(`UPDATE ${name} SET doc = ? WHERE _id = ?`);
  }

  /** A query selecting `doc`: the documents, in the query's order. */
  many<P extends Param[]>(sql: string): (...params: P) => T[] {
    const stmt = this.s.db.prepare(sql).pluck();
    return (...params) => (stmt.all(...params) as string[]).map((text) => JSON.parse(text) as T);
  }

  /** A query selecting `doc`: the first document, or null. */
  one<P extends Param[]>(sql: string): (...params: P) => T | null {
    const stmt = this.s.db.prepare(sql).pluck();
    return (...params) => {
      const text = stmt.get(...params) as string | undefined;
      return text === undefined ? null : (JSON.parse(text) as T);
    };
  }

  /** A query selecting one column: its values. */
  values<V, P extends Param[]>(sql: string): (...params: P) => V[] {
    const stmt = this.s.db.prepare(sql).pluck();
    return (...params) => stmt.all(...params) as V[];
  }

  /** A query selecting one value (a count). */
  value<V, P extends Param[]>(sql: string): (...params: P) => V {
    const stmt = this.s.db.prepare(sql).pluck();
    return (...params) => stmt.get(...params) as V;
  }

  /** A query selecting rows of several columns. */
  rows<R, P extends Param[]>(sql: string): (...params: P) => R[] {
    const stmt = this.s.db.prepare(sql);
    return (...params) => stmt.all(...params) as R[];
  }

  /** A write in the turn's transaction: the rows it changed, once committed. */
  write<P extends Param[]>(sql: string): (...params: P) => Promise<number> {
    const stmt = this.s.db.prepare(sql);
    return (...params) => unique(this.s.runOne(() => stmt.run(...params).changes));
  }

  /** Inserts; a taken unique key (the id included) is a DuplicateKeyError. */
  insert(doc: T): Promise<void> {
    const text = JSON.stringify(doc);
    return unique(this.s.runOne(() => void this.insertOne.run(doc._id, text)));
  }

  /** Inserts all or none. */
  insertMany(docs: readonly T[]): Promise<void> {
    const texts = docs.map((d) => JSON.stringify(d));
    return unique(this.s.run(() => docs.forEach((d, i) => this.insertOne.run(d._id, texts[i]!))));
  }

  /** Stores each document whole, inserted or replacing the one with its id. */
  upsertMany(docs: readonly T[]): Promise<void> {
    const texts = docs.map((d) => JSON.stringify(d));
    return unique(this.s.run(() => docs.forEach((d, i) => this.upsertOne.run(d._id, texts[i]!))));
  }

  /**
   * Reads the document `read` finds, makes the changes and writes it back, in one step of the
   * turn's transaction (nothing else runs in between): the updated document, or null when none.
   */
  change(read: () => T | null, changes: Changes<T> | ((doc: T) => T)): Promise<T | null> {
    if (typeof changes !== 'function' && changesNothing(changes)) return Promise.resolve(read());
    return unique(this.s.runOne(() => {
      const doc = read();
      if (!doc) return null;
      const next = typeof changes === 'function' ? changes(doc) : applyChanges(doc, changes);
      this.putOne.run(JSON.stringify(next), doc._id);
      return next;
    }));
  }
}
