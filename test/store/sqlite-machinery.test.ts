// The machinery typed repositories stand on (src/store/sqlite): the group commit acknowledges a
// write only after its turn committed, undoes a failed write alone, and fails every write of a turn
// whose commit fails; a table is created at its layout, migrated from the document table of an
// earlier release and from older layouts at open, and refused when a later release wrote it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/sqlite/commit.js';
import { SqliteDb } from '../../src/store/sqlite/sqlite-db.js';
import { documentTable, openTable, type TableSpec } from '../../src/store/sqlite/tables.js';

let dir: string;
let db: Database.Database;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sqlite-machinery-'));
  db = openDatabase(path.join(dir, 'db.sqlite'));
  db.pragma('journal_mode = WAL');
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe('the group commit', () => {
  it('commits a turn once, after its writes, and acknowledges each write only then', async () => {
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
    let commits = 0;
    const sql = new SqliteDb(db, new GroupCommit(db, false, () => commits++));
    const insert = sql.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)');
    const acked: string[] = [];
    const writes = ['a', 'b', 'c'].map((k, i) => sql.writeOne(() => insert.run(k, i)).then(() => acked.push(k)));
    const many = sql.run(() => {
      insert.run('d', 3);
      insert.run('e', 4);
      return 'two';
    });
    // Written, visible to this connection, not yet committed or acknowledged.
    expect(db.inTransaction).toBe(true);
    expect(count('t')).toBe(5);
    expect(acked).toEqual([]);
    await Promise.all(writes);
    expect(await many).toBe('two');
    expect(acked).toEqual(['a', 'b', 'c']);
    expect(commits).toBe(1);
    expect(db.inTransaction).toBe(false);
  });

  it('undoes a failed write alone and keeps the others of its turn', async () => {
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
    const sql = new SqliteDb(db, new GroupCommit(db));
    const insert = sql.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)');
    const first = sql.write(() => insert.run('a', 1));
    // The second statement fails (a duplicate key): the first of the same write is undone with it.
    const failed = sql.write(() => {
      insert.run('b', 2);
      insert.run('a', 3);
    });
    const last = sql.writeOne(() => insert.run('c', 4));
    await expect(failed).rejects.toThrow(/UNIQUE/);
    await first;
    await last;
    expect(db.prepare('SELECT k, v FROM t ORDER BY k').all()).toEqual([{ k: 'a', v: 1 }, { k: 'c', v: 4 }]);
  });

  it('fails every write of a turn whose commit fails, and reports it until a commit goes through', async () => {
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const commit = new GroupCommit(db);
    const sql = new SqliteDb(db, commit);
    const insert = sql.prepare<[string]>('INSERT INTO t (k) VALUES (?)');
    // A second connection holds the write lock: the commit cannot take it.
    const other = openDatabase(path.join(dir, 'db.sqlite'));
    other.pragma('busy_timeout = 0');
    db.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    try {
      const writes = [sql.write(() => insert.run('a')), sql.run(() => insert.run('b'))];
      for (const w of writes) await expect(w).rejects.toMatchObject({ storeCode: expect.stringMatching(/^SQLITE_BUSY/) });
      expect(commit.health()).toMatchObject({ writable: false });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await sql.write(() => insert.run('c'));
    expect(commit.health()).toEqual({ writable: true });
    expect(db.prepare('SELECT k FROM t').pluck().all()).toEqual(['c']);
  });
});

describe('table layouts', () => {
  const v2: TableSpec = {
    name: 'things',
    version: 2,
    create: ['CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL, label TEXT) WITHOUT ROWID', 'CREATE INDEX things_by_n ON things (n)'],
    upgrade: {
      0: (d) => {
        const old = documentTable(d, 'things');
        d.exec('CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID');
        d.exec(`INSERT INTO things (id, n) SELECT _id, ${old.field('n')} FROM ${old.table}`);
        old.drop();
      },
      1: (d) => {
        d.exec('ALTER TABLE things ADD COLUMN label TEXT');
        d.exec('CREATE INDEX things_by_n ON things (n)');
      },
    },
  };
  const layout = () => db.prepare('SELECT version FROM store_layout WHERE name = ?').pluck().get('things');

  it('creates a new table at its layout', () => {
    openTable(db, v2);
    expect(layout()).toBe(2);
    db.prepare('INSERT INTO things (id, n, label) VALUES (?, ?, ?)').run('x', 1, 'y');
    openTable(db, v2);
    expect(count('things')).toBe(1);
  });

  it('migrates a document table of an earlier release, fields in columns or in the JSON, step by step', () => {
    db.exec('CREATE TABLE things (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL, n)');
    db.exec("CREATE INDEX ix_things__n ON things (n)");
    const put = db.prepare('INSERT INTO things (_id, doc, n) VALUES (?, ?, ?)');
    put.run('a', JSON.stringify({ _id: 'a' }), 5);
    put.run('b', JSON.stringify({ _id: 'b', n: 7 }), null);
    openTable(db, v2);
    expect(layout()).toBe(2);
    expect(db.prepare('SELECT id, n, label FROM things ORDER BY id').all()).toEqual([{ id: 'a', n: 5, label: null }, { id: 'b', n: 7, label: null }]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'things' AND sql IS NOT NULL").pluck().all()).toEqual(['things_by_n']);
    expect(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'things_v0'").get()).toBeUndefined();
  });

  it('leaves the table as it was when a step fails', () => {
    db.exec('CREATE TABLE things (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)');
    db.prepare('INSERT INTO things (_id, doc) VALUES (?, ?)').run('a', JSON.stringify({ _id: 'a' }));
    // `n` is NOT NULL in the new layout and this row has none.
    expect(() => openTable(db, v2)).toThrow(/NOT NULL/);
    expect(db.prepare('SELECT _id FROM things').pluck().all()).toEqual(['a']);
    expect(db.prepare('SELECT count(*) FROM store_layout').pluck().get()).toBe(0);
  });

  it('refuses a table a later release wrote', () => {
    openTable(db, v2);
    expect(() => openTable(db, { ...v2, version: 1 })).toThrow(/later release/);
  });
});
