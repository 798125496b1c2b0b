// The SQLite driver (src/store/sqlite/driver.ts): the build that this Node can run, and statements
// freed by the garbage collector. Built on node::ObjectWrap against Node 24.19 or newer headers,
// better-sqlite3 12 aborted the whole process the first time a collection freed a statement.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/driver.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Allocates until the young generation has been collected several times, as a busy service does. */
function churn(): number {
  let kept: Array<{ i: number }> = [];
  let total = 0;
  for (let i = 0; i < 2_000_000; i += 1) {
    kept.push({ i });
    if (kept.length === 1_000) {
      total += kept.length;
      kept = [];
    }
  }
  return total;
}

describe('SQLite driver', () => {
  it('uses better-sqlite3 13 wherever Node-API 10 is there, the ObjectWrap build only on older Node', () => {
    const require = createRequire(import.meta.url);
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-driver-'));
    dirs.push(dir);
    const db = openDatabase(path.join(dir, 'a.sqlite'));
    const expected = Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-v12';
    expect(db).toBeInstanceOf(require(expected));
    db.close();
  });

  it('lets the garbage collector free statements and databases while the process goes on', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-driver-'));
    dirs.push(dir);
    for (let round = 0; round < 2; round += 1) {
      const db = openDatabase(path.join(dir, `db-${round}.sqlite`));
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
      db.prepare('INSERT INTO t (v) VALUES (?)').run(`round ${round}`);
      // Statements nobody keeps: each is a native object the collector frees.
      for (let i = 0; i < 1_000; i += 1) db.prepare(`SELECT v, ${i} AS i FROM t`).get();
      db.close();
      expect(churn()).toBe(2_000_000);
    }
    const db = openDatabase(path.join(dir, 'db-0.sqlite'), { readonly: true });
    expect(db.prepare('SELECT v FROM t').all()).toEqual([{ v: 'round 0' }]);
    db.close();
    expect(churn()).toBe(2_000_000);
  });
});
