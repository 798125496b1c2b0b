// Group commit: the writes made in one turn of the event loop run inside one transaction, which
// commits once the turn is over; each write's promise settles only after that commit. A write is
// therefore acknowledged only once it is in the database, and a busy turn pays for one commit
// instead of one per write. Reads on the same connection see the turn's writes at once.
import type { Database } from 'better-sqlite3';
import { storeError, type WriteHealth } from '../store-errors.js';

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

export class GroupCommit {
  private waiters: Waiter[] = [];
  private scheduled = false;
  private lastError: { message: string; since: number } | undefined;

  constructor(
    private readonly db: Database,
    /** Commit each write on its own (no grouping): for measuring what grouping saves. */
    private readonly perWrite = false,
    /** Told after each commit that went through. */
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  /**
   * Runs `op` (synchronous statements) inside the turn's transaction, as a savepoint so that a
   * failed op leaves the turn's other writes alone (`single`: one statement, which SQLite undoes by
   * itself when it fails). Resolves with its result after the commit.
   */
  run<R>(op: () => R, single = false): Promise<R> {
    if (this.perWrite) return this.runAlone(op);
    if (!this.db.inTransaction) this.begin();
    let result: R;
    try {
      result = single ? op() : this.db.transaction(op)();
    } catch (err) {
      // SQLite ends the whole transaction on some errors (a full disk, an I/O error): every write
      // of the turn is then gone, and so is its acknowledgement.
      const mapped = storeError(err);
      if (mapped !== err) this.noteFailure(err);
      if (!this.db.inTransaction) this.fail(err);
      return Promise.reject(mapped);
    }
    return new Promise<R>((resolve, reject) => this.waiters.push({ resolve: () => resolve(result), reject }));
  }

  /** Writes, failures and recoveries, for /health. */
  health(): WriteHealth {
    return this.lastError ? { writable: false, error: this.lastError.message, since: this.lastError.since } : { writable: true };
  }

  /** Commits now what the turn holds (before close). */
  flush(): void {
    if (this.db.inTransaction) this.commit();
  }

  private runAlone<R>(op: () => R): Promise<R> {
    try {
      const result = this.db.transaction(op)();
      this.lastError = undefined;
      this.afterCommit();
      return Promise.resolve(result);
    } catch (err) {
      const mapped = storeError(err);
      if (mapped !== err) this.noteFailure(err);
      return Promise.reject(mapped);
    }
  }

  private begin(): void {
    this.db.exec('BEGIN');
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.commit();
      });
    }
  }

  private commit(): void {
    const waiters = this.waiters;
    this.waiters = [];
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // the transaction is gone either way
        }
      }
      this.noteFailure(err);
      const mapped = storeError(err);
      for (const w of waiters) w.reject(mapped);
      return;
    }
    this.lastError = undefined;
    this.afterCommit();
    for (const w of waiters) w.resolve();
  }

  private fail(err: unknown): void {
    this.noteFailure(err);
    const waiters = this.waiters;
    this.waiters = [];
    const mapped = storeError(err);
    for (const w of waiters) w.reject(mapped);
  }

  private noteFailure(err: unknown): void {
    this.lastError ??= { message: err instanceof Error ? err.message : String(err), since: Date.now() };
  }
}
