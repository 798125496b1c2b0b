// Group commit: the writes made in one turn of the event loop run inside one transaction, which
// commits once the turn is over; each write's promise settles only after that commit. A write is
// therefore acknowledged only once it is in the database, and a busy turn pays for one commit
// instead of one per write. Reads on the same connection see the turn's writes at once.
import type { Database, Statement } from 'better-sqlite3';
import { storeError, type WriteHealth } from '../store-errors.js';

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** One promise for every write of a turn that returns nothing: settled by the turn's commit. */
interface Turn extends Waiter {
  promise: Promise<void>;
}

export class GroupCommit {
  private waiters: Waiter[] = [];
  /** The current turn's shared acknowledgement, made by the first write that takes it. */
  private turn: Turn | undefined;
  private scheduled = false;
  private lastError: { message: string; since: number } | undefined;

  // A savepoint per multi-statement write, by prepared statements: better-sqlite3's nested
  // `db.transaction(op)()` builds a wrapper per call, which cost several times the write itself.
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;

  constructor(
    private readonly db: Database,
    /** Commit each write on its own (no grouping): for measuring what grouping saves. */
    private readonly perWrite = false,
    /** Told after each commit that went through. */
    private readonly afterCommit: () => void = () => undefined,
    /** Told how long each commit that went through took, ms. */
    private readonly timed?: (ms: number) => void,
  ) {
    this.savepoint = db.prepare('SAVEPOINT gc_write');
    this.release = db.prepare('RELEASE gc_write');
    this.rollbackTo = db.prepare('ROLLBACK TO gc_write');
  }

  /**
   * Runs `op` (synchronous statements) inside the turn's transaction, as a savepoint so that a
   * failed op leaves the turn's other writes alone (`single`: one statement, which SQLite undoes by
   * itself when it fails). Resolves with its result after the commit.
   */
  run<R>(op: () => R, single = false): Promise<R> {
    if (this.perWrite) return this.runAlone(op);
    const failed = this.apply(op, single);
    if (failed) return failed as Promise<never>;
    const result = this.result as R;
    this.result = undefined;
    return new Promise<R>((resolve, reject) => this.waiters.push({ resolve: () => resolve(result), reject }));
  }

  /**
   * As `run`, for a write whose result nobody needs: every such write of a turn shares one
   * promise, so acknowledging a hot write costs no allocation of its own.
   */
  write(op: () => unknown, single = false): Promise<void> {
    if (this.perWrite) return this.runAlone(op).then(ignore);
    const failed = this.apply(op, single);
    if (failed) return failed;
    this.result = undefined;
    return (this.turn ??= newTurn()).promise;
  }

  /** Writes, failures and recoveries, for /health. */
  health(): WriteHealth {
    return this.lastError ? { writable: false, error: this.lastError.message, since: this.lastError.since } : { writable: true };
  }

  /** Commits now what the turn holds (before close). */
  flush(): void {
    if (this.db.inTransaction) this.commit();
  }

  /** The result of the op `apply` ran last (kept in a field: no closure per write). */
  private result: unknown;

  /** Runs `op` in the turn's transaction; a rejected promise when it failed. */
  private apply(op: () => unknown, single: boolean): Promise<void> | undefined {
    if (!this.db.inTransaction) this.begin();
    try {
      if (single) this.result = op();
      else this.inSavepoint(op);
      return undefined;
    } catch (err) {
      // SQLite ends the whole transaction on some errors (a full disk, an I/O error): every write
      // of the turn is then gone, and so is its acknowledgement.
      const mapped = storeError(err);
      if (mapped !== err) this.noteFailure(err);
      if (!this.db.inTransaction) this.fail(err);
      return Promise.reject(mapped);
    }
  }

  /** `op` all or nothing inside the open transaction. */
  private inSavepoint(op: () => unknown): void {
    this.savepoint.run();
    try {
      this.result = op();
    } catch (err) {
      // A failure that ended the transaction took the savepoint with it.
      if (this.db.inTransaction) {
        this.rollbackTo.run();
        this.release.run();
      }
      throw err;
    }
    this.release.run();
  }

  private runAlone<R>(op: () => R): Promise<R> {
    try {
      const started = this.timed ? performance.now() : 0;
      const result = this.db.transaction(op)();
      this.timed?.(performance.now() - started);
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
    const { waiters, turn } = this.take();
    const started = this.timed ? performance.now() : 0;
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
      turn?.reject(mapped);
      return;
    }
    this.timed?.(performance.now() - started);
    this.lastError = undefined;
    this.afterCommit();
    for (const w of waiters) w.resolve();
    turn?.resolve();
  }

  private fail(err: unknown): void {
    this.noteFailure(err);
    const { waiters, turn } = this.take();
    const mapped = storeError(err);
    for (const w of waiters) w.reject(mapped);
    turn?.reject(mapped);
  }

  /** The turn's acknowledgements, handed over: later writes belong to the next transaction. */
  private take(): { waiters: Waiter[]; turn: Turn | undefined } {
    const taken = { waiters: this.waiters, turn: this.turn };
    this.waiters = [];
    this.turn = undefined;
    return taken;
  }

  private noteFailure(err: unknown): void {
    this.lastError ??= { message: err instanceof Error ? err.message : String(err), since: Date.now() };
  }
}

const ignore = () => undefined;

function newTurn(): Turn {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
