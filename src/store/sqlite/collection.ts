// One collection on SQLite: a table of (_id, doc) where doc is the document's JSON text, plus a
// column for each field the collection keeps in one (engine.ts: the outbox's state, so that its
// frequent updates rewrite neither the JSON nor expression indexes over it). A column holds the
// field's string or number; any other value of that field stays in the JSON text. Reads narrow in
// SQL (filter.ts) and finish in mingo; writes go through the turn's group commit.
import type { Database, Statement } from 'better-sqlite3';
import type { Filter, UpdateFilter } from 'mongodb';
import type { DocCollection, FindOptions, ReplaceOneOp, UpdateResultLike } from '../collection.js';
import { newId } from '../ids.js';
import type { GroupCommit } from './commit.js';
import { orderBy, sortKeys, translateFilter, type Columns, type SqlFilter } from './filter.js';
import { applied, seedOf, setList, translateUpdate } from './update.js';
import { columnsOnly, onlyId, project, type Projection } from './projection.js';
import { pageBounds } from '../paging.js';

type AnyDoc = { _id: string };
type Row = { rowid: number; doc: string } & Record<string, unknown>;
type Query = Record<string, unknown>;
type Value = string | number | null;

const columnValue = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

export class SqliteCollection<T extends AnyDoc> implements DocCollection<T> {
  private readonly statements = new Map<string, Statement>();
  private readonly columnList: readonly string[];
  /** `doc` and the columns, as selected. */
  private readonly docCols: string;
  /** The INSERT of a whole document. */
  private readonly insertSql: string;
  /** The SET list of a whole document. */
  private readonly replaceSet: string;

  constructor(
    private readonly db: Database,
    private readonly commit: GroupCommit,
    private readonly table: string,
    /** Fields every document holds as one scalar (the indexed ones): conditions on them go to SQL. */
    private readonly indexed: ReadonlySet<string>,
    /** Fields kept in columns of their own. */
    private readonly columns: Columns = new Set(),
  ) {
    this.columnList = [...columns];
    this.docCols = ['doc', ...this.columnList].join(', ');
    this.insertSql = `INSERT INTO ${table} (_id, ${this.docCols}) VALUES (?, ?${', ?'.repeat(this.columnList.length)})`;
    this.replaceSet = ['doc = ?', ...this.columnList.map((c) => `${c} = ?`)].join(', ');
  }

  insertOne(doc: T): Promise<unknown> {
    const values = this.split(doc);
    return this.commit.run(() => {
      this.stmt(this.insertSql).run(doc._id, ...values);
      return { acknowledged: true, insertedId: doc._id };
    }, true);
  }

  insertMany(docs: T[]): Promise<unknown> {
    // All or nothing (one savepoint), as the embedded engine always was.
    const values = docs.map((d) => this.split(d));
    return this.commit.run(() => {
      const insert = this.stmt(this.insertSql);
      for (let i = 0; i < docs.length; i++) insert.run(docs[i]!._id, ...values[i]!);
      return { acknowledged: true, insertedCount: docs.length };
    });
  }

  async findOne(filter: Filter<T>, options?: { projection?: Projection }): Promise<T | null> {
    const [doc] = this.select(filter as Query, { limit: 1, projection: options?.projection });
    return (doc as T | undefined) ?? null;
  }

  find(filter: Filter<T>, options: FindOptions = {}): { toArray(): Promise<T[]> } {
    return { toArray: async () => this.select(filter as Query, options) as T[] };
  }

  async countDocuments(filter: Filter<T>): Promise<number> {
    const f = this.filter(filter as Query);
    if (!f.residual) {
      const n = this.read(`SELECT count(*) FROM ${this.table}${where(f.where)}`, true).get(...f.params) as number;
      return n;
    }
    let n = 0;
    for (const row of this.readDocs(`SELECT ${this.docCols} FROM ${this.table}${where(f.where)}`).iterate(...f.params) as IterableIterator<Row | string>) {
      if (f.residual(this.toDoc(row))) n++;
    }
    return n;
  }

  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: { upsert?: boolean } = {}): Promise<UpdateResultLike> {
    return this.commit.run(() => {
      const f = this.filter(filter as Query);
      const sqlUpdate = f.residual ? undefined : translateUpdate(update as Query, this.columns);
      if (sqlUpdate) {
        const set = setList(sqlUpdate);
        const { changes } = this.stmt(`UPDATE ${this.table} SET ${set.sql} WHERE rowid = (${firstRow(this.table, f)})`).run(...set.params, ...f.params);
        if (changes > 0) return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
        if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      }
      if (sqlUpdate && this.columnList.length === 0) {
        // The new document, built by the same SQL from the filter's equalities.
        const seed = seedOf(filter as Query);
        const setId = (update as { $set?: { _id?: unknown } }).$set?._id;
        seed._id = typeof seed._id === 'string' ? seed._id : typeof setId === 'string' ? setId : newId();
        this.stmt(`INSERT INTO ${this.table} (_id, doc) SELECT ?, ${sqlUpdate.expr} FROM (SELECT json(?) AS doc)`).run(seed._id, ...sqlUpdate.params, JSON.stringify(seed));
        return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
      }
      const [match] = sqlUpdate ? [] : this.matches(filter as Query, 1);
      if (match) {
        this.write(match.rowid, applied(match.doc, update as Query));
        return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
      }
      if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      const doc = applied(seedOf(filter as Query), update as Query);
      if (typeof doc._id !== 'string') doc._id = newId();
      this.stmt(this.insertSql).run(doc._id, ...this.split(doc));
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    });
  }

  updateMany(filter: Filter<T>, update: UpdateFilter<T>): Promise<UpdateResultLike> {
    return this.commit.run(() => {
      const f = this.filter(filter as Query);
      const sqlUpdate = f.residual ? undefined : translateUpdate(update as Query, this.columns);
      if (sqlUpdate) {
        const set = setList(sqlUpdate);
        const { changes } = this.stmt(`UPDATE ${this.table} SET ${set.sql}${where(f.where)}`).run(...set.params, ...f.params);
        return { matchedCount: changes, modifiedCount: changes, upsertedCount: 0 };
      }
      const found = this.matches(filter as Query);
      for (const m of found) this.write(m.rowid, applied(m.doc, update as Query));
      return { matchedCount: found.length, modifiedCount: found.length, upsertedCount: 0 };
    });
  }

  bulkWrite(operations: ReplaceOneOp<T>[]): Promise<{ matchedCount: number }> {
    const texts = operations.map((op) => this.split(op.replaceOne.replacement));
    return this.commit.run(() => {
      let matchedCount = 0;
      operations.forEach(({ replaceOne: op }, i) => {
        const f = this.filter(op.filter as Query);
        if (!f.residual) {
          const sql = `UPDATE ${this.table} SET ${this.replaceSet} WHERE rowid = (${firstRow(this.table, f)}) AND _id = ?`;
          const { changes } = this.stmt(sql).run(...texts[i]!, ...f.params, op.replacement._id);
          if (changes === 0 && this.matches(op.filter as Query, 1).length > 0) throw new Error('a replacement cannot change _id');
          matchedCount += changes;
          return;
        }
        const [match] = this.matches(op.filter as Query, 1);
        if (!match) return;
        if (match.doc._id !== op.replacement._id) throw new Error('a replacement cannot change _id');
        this.stmt(`UPDATE ${this.table} SET ${this.replaceSet} WHERE rowid = ?`).run(...texts[i]!, match.rowid);
        matchedCount++;
      });
      return { matchedCount };
    });
  }

  deleteOne(filter: Filter<T>): Promise<{ deletedCount: number }> {
    return this.commit.run(() => {
      const f = this.filter(filter as Query);
      if (!f.residual) return { deletedCount: this.stmt(`DELETE FROM ${this.table} WHERE rowid = (${firstRow(this.table, f)})`).run(...f.params).changes };
      return { deletedCount: this.remove(this.matches(filter as Query, 1)) };
    }, true);
  }

  deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }> {
    return this.commit.run(() => {
      const f = this.filter(filter as Query);
      if (!f.residual) return { deletedCount: this.stmt(`DELETE FROM ${this.table}${where(f.where)}`).run(...f.params).changes };
      return { deletedCount: this.remove(this.matches(filter as Query)) };
    });
  }

  private remove(found: Array<{ rowid: number }>): number {
    const del = this.stmt(`DELETE FROM ${this.table} WHERE rowid = ?`);
    for (const m of found) del.run(m.rowid);
    return found.length;
  }

  private write(rowid: number, doc: AnyDoc): void {
    this.stmt(`UPDATE ${this.table} SET ${this.replaceSet} WHERE rowid = ?`).run(...this.split(doc), rowid);
  }

  private filter(filter: Query): SqlFilter {
    return translateFilter(filter, this.indexed, this.columns);
  }

  /** The JSON text of what the columns do not hold, then each column's value. */
  private split(doc: AnyDoc): Value[] {
    if (this.columnList.length === 0) return [JSON.stringify(doc)];
    const src = doc as unknown as Record<string, unknown>;
    const rest: Record<string, unknown> = {};
    const values: Value[] = [null];
    for (const c of this.columnList) values.push(columnValue(src[c]) ? (src[c] as string | number) : null);
    for (const k in src) if (!(this.columns.has(k) && columnValue(src[k]))) rest[k] = src[k];
    values[0] = JSON.stringify(rest);
    return values;
  }

  /** A document from its row: the JSON text (alone when plucked) and its columns. */
  private toDoc(row: Row | string): AnyDoc {
    if (typeof row === 'string') return JSON.parse(row) as AnyDoc;
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    for (const c of this.columnList) if (row[c] !== null && row[c] !== undefined) doc[c] = row[c];
    return doc as unknown as AnyDoc;
  }

  /** A statement selecting `doc` and the columns: the text alone (plucked) when there are none. */
  private readDocs(sql: string): Statement {
    return this.read(sql, this.columnList.length === 0);
  }

  /** The documents a filter matches, with their row ids, in natural order. */
  private matches(filter: Query, limit?: number): Array<{ rowid: number; doc: AnyDoc }> {
    const f = this.filter(filter);
    const sql = `SELECT rowid, ${this.docCols} FROM ${this.table}${where(f.where)} ORDER BY rowid`;
    const out: Array<{ rowid: number; doc: AnyDoc }> = [];
    if (!f.residual) {
      const rows = (limit === undefined ? this.read(sql).all(...f.params) : this.read(`${sql} LIMIT ?`).all(...f.params, limit)) as Row[];
      for (const r of rows) out.push({ rowid: r.rowid, doc: this.toDoc(r) });
      return out;
    }
    for (const r of this.read(sql).iterate(...f.params) as IterableIterator<Row>) {
      const doc = this.toDoc(r);
      if (!f.residual(doc)) continue;
      out.push({ rowid: r.rowid, doc });
      if (out.length === limit) break;
    }
    return out;
  }

  private select(filter: Query, options: FindOptions): object[] {
    const f = this.filter(filter);
    const sort = sortKeys(options.sort);
    const skip = options.skip ? pageBounds({ offset: options.skip, limit: 0 }).offset : 0;
    const limit = options.limit && options.limit > 0 ? pageBounds({ offset: 0, limit: options.limit }).limit : undefined;
    const projection = options.projection as Projection | undefined;
    const order = ` ORDER BY ${orderBy(sort, this.columns)}`;
    if (!f.residual) {
      // Bound, not pasted: a statement per distinct offset would pile up in the statement cache.
      const paged = limit !== undefined || skip > 0;
      const page = paged ? ' LIMIT ? OFFSET ?' : '';
      const params = paged ? [...f.params, limit ?? -1, skip] : f.params;
      if (projection && onlyId(projection)) {
        const ids = this.read(`SELECT _id FROM ${this.table}${where(f.where)}${order}${page}`, true).all(...params) as string[];
        return ids.map((_id) => ({ _id }));
      }
      const cols = projection ? columnsOnly(projection, this.columnList) : null;
      if (cols) {
        // Only fields kept in columns: the documents' JSON is neither read nor parsed.
        const keepId = projection!._id === undefined || Boolean(projection!._id);
        const heads = this.read(`SELECT _id${cols.map((c) => `, ${c}`).join('')} FROM ${this.table}${where(f.where)}${order}${page}`).all(...params) as Array<Record<string, unknown>>;
        return heads.map((r) => {
          const o: Record<string, unknown> = keepId ? { _id: r._id } : {};
          for (const c of cols) if (r[c] !== null && r[c] !== undefined) o[c] = r[c];
          return o;
        });
      }
      const rows = this.readDocs(`SELECT ${this.docCols} FROM ${this.table}${where(f.where)}${order}${page}`).all(...params) as Array<Row | string>;
      return rows.map((r) => project(this.toDoc(r), projection));
    }
    const out: object[] = [];
    let skipped = 0;
    const rows = this.readDocs(`SELECT ${this.docCols} FROM ${this.table}${where(f.where)}${order}`).iterate(...f.params) as IterableIterator<Row | string>;
    for (const r of rows) {
      const doc = this.toDoc(r);
      if (!f.residual(doc)) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      out.push(project(doc, projection));
      if (out.length === limit) break;
    }
    return out;
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** A reading statement, returning the first column alone when `pluck`. */
  private read(sql: string, pluck = false): Statement {
    return this.stmt(sql).pluck(pluck);
  }
}

const where = (clause: string) => (clause ? ` WHERE ${clause}` : '');

/** The row id of the first document (natural order) an exact filter matches. */
const firstRow = (table: string, f: SqlFilter) => `SELECT rowid FROM ${table}${where(f.where)} ORDER BY rowid LIMIT 1`;
