// What a typed repository of the embedded engine is given: the connection, to prepare its
// statements once (constant SQL text, every value a bound parameter), and the group commit, which
// its writes join (the writes of one event-loop turn in one transaction, each acknowledged after
// the commit). A repository prepares its statements in its constructor, after `table()`.
import type { Database, Statement } from 'better-sqlite3';
import type { GroupCommit } from './commit.js';
import { openTable, type TableSpec } from './tables.js';

export class SqliteDb {
  constructor(
    readonly db: Database,
    private readonly commit: Pick<GroupCommit, 'run' | 'write'>,
  ) {}

  /** Creates the table or migrates it to its layout (tables.ts). */
  table(spec: TableSpec): void {
    openTable(this.db, spec);
  }

  /** A statement, to be kept by the repository. `sql` is constant text: values go as parameters. */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return this.db.prepare<P, R>(sql);
  }

  /**
   * Runs `op` now, inside the turn's transaction and all or nothing; resolves with its result
   * after the commit. A failed op is undone alone; a failed commit fails every write of the turn.
   */
  run<R>(op: () => R): Promise<R> {
    return this.commit.run(op);
  }

  /** As `run`, for one statement (SQLite undoes a failed statement by itself: no savepoint). */
  runOne<R>(op: () => R): Promise<R> {
    return this.commit.run(op, true);
  }

  /** As `run` when nothing of the result is needed: the cheapest acknowledgement (one promise per turn). */
  write(op: () => unknown): Promise<void> {
    return this.commit.write(op);
  }

  /** As `write`, for one statement. */
  writeOne(op: () => unknown): Promise<void> {
    return this.commit.write(op, true);
  }
}
