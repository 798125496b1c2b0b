// The outbox operations of the delivery loop, over the collection interface (store/collection.ts):
// find due rows, lease one, record an attempt, finish a round, hand a row back. Every write to a
// leased row is conditional on its lease owner, so of several loops (several nodes on MongoDB)
// only the holder of the current lease changes a row, and a row is sent by one of them at a time.
//
// The delivery log is written before the row's outcome: a row marked dead always has its last
// attempt in delivery_attempts. The attempt that delivers is not logged on its own: the row's
// outcome carries it (delivered_at, last_status, last_duration_ms) and listAttempts (outbox.ts)
// adds it back, so each delivered callback keeps one row fewer in the store.
import type { DocCollection } from '../store/collection.js';
import type { DeliveryAttemptDoc, DeliveryStatus, OutboxDoc, TriggerHistoryDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { AttemptOutcome } from './callback-sender.js';
import { DeliveredWrites } from './delivered-writes.js';
import { LEASE_MARGIN_MS, type Leased } from './lease.js';
import type { RoundEnd } from './retry-schedule.js';

export { LEASE_MARGIN_MS, type Leased } from './lease.js';


export interface Attempt {
  /** The attempt's number over the callback's life (1-based). */
  n: number;
  outcome: AttemptOutcome;
  at: number;
}


/** Each status's due rows are read on their own so that an index on (status, next_attempt_at) serves the read. */
const DUE_STATUSES = ['pending', 'delivering'] as const;

/** What a poll needs of a due row to choose it: kept in columns on the embedded store. */
const HEAD = { _id: 1, status: 1, next_attempt_at: 1, url: 1, app_id: 1 } as const;
export type DueHead = Pick<OutboxDoc, '_id' | 'status' | 'next_attempt_at' | 'url' | 'app_id'>;

export class OutboxRepo {
  readonly outbox: DocCollection<OutboxDoc>;
  readonly attempts: DocCollection<DeliveryAttemptDoc>;
  readonly history: DocCollection<TriggerHistoryDoc>;

  private readonly deliveredRows: DeliveredWrites;

  constructor(store: Store) {
    this.outbox = store.collection<OutboxDoc>('outbox');
    this.attempts = store.collection<DeliveryAttemptDoc>('delivery_attempts');
    this.history = store.collection<TriggerHistoryDoc>('trigger_history');
    this.deliveredRows = new DeliveredWrites(this.outbox, this.history);
  }

  /**
   * Up to `limit` rows due at `now`, the longest due first: pending rows whose round is due, and
   * leased rows whose lease ran out (their holder died). One sorted, limited read per status, of
   * what the loop decides on (id, receiver, when): a poll may read thousands to skip those of a
   * receiver whose queue is full, so no payload comes along (`rows` reads the chosen ones).
   */
  async dueHeads(now: number, limit: number): Promise<DueHead[]> {
    const pages = await Promise.all(DUE_STATUSES.map((status) =>
      this.outbox.find({ status, next_attempt_at: { $lte: now } }, { sort: { next_attempt_at: 1 }, limit, projection: HEAD }).toArray() as Promise<DueHead[]>));
    const rows = pages[1]!.length === 0 ? pages[0]! : pages.flat().sort((a, b) => a.next_attempt_at - b.next_attempt_at);
    return rows.length > limit ? rows.slice(0, limit) : rows;
  }

  /** Whole rows by id, in the order of `ids`; those gone meanwhile are left out. */
  async rows(ids: readonly string[]): Promise<OutboxDoc[]> {
    if (ids.length === 0) return [];
    const found = new Map((await this.outbox.find({ _id: { $in: [...ids] } }).toArray()).map((r) => [r._id, r]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  findOne(id: string): Promise<OutboxDoc | null> {
    return this.outbox.findOne({ _id: id });
  }

  /**
   * Compare-and-set on the fields read: of several loops that saw the row due, one wins. While
   * leased, next_attempt_at is the lease's end, so the row is due again only if its holder dies
   * without finishing.
   */
  async lease(row: OutboxDoc, owner: string, until: number, now: number): Promise<Leased | null> {
    const res = await this.outbox.updateOne(
      { _id: row._id, status: row.status, next_attempt_at: row.next_attempt_at, lease_until: row.lease_until },
      { $set: { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: owner, updated_at: now }, $inc: { rounds: 1 } },
    );
    if (res.matchedCount === 0) return null;
    // Object.assign, not a spread followed by new fields (see outboxDoc on spreads in V8 11).
    return Object.assign({}, row, { status: 'delivering' as const, lease_until: until, next_attempt_at: until, lease_owner: owner, rounds: row.rounds + 1 });
  }

  /**
   * Leases a page of due rows in one write, all under one owner: those still due (not leased or
   * finished by another loop since they were read) become this loop's. Returns the rows won, as
   * leased. The owner is new for every page, so a later write of this loop to one of them still
   * lands only while its lease from this page holds.
   */
  async leaseMany(rows: OutboxDoc[], owner: string, until: number, now: number): Promise<Leased[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r._id);
    const res = await this.outbox.updateMany(
      // `$nin` rather than `$in` of the due statuses: SQLite then finds the rows by _id, not by
      // walking every due row through the status index.
      { _id: { $in: ids }, status: { $nin: ['delivered', 'dead'] }, next_attempt_at: { $lte: now } },
      { $set: { status: 'delivering', lease_until: until, next_attempt_at: until, lease_owner: owner, updated_at: now }, $inc: { rounds: 1 } },
    );
    let won = rows;
    if (res.matchedCount < rows.length) {
      // Another loop took some in between (several nodes): which ones are ours.
      const mine = await this.outbox.find({ _id: { $in: ids }, lease_owner: owner }, { projection: { _id: 1 } }).toArray();
      const set = new Set(mine.map((d) => d._id));
      won = rows.filter((r) => set.has(r._id));
    }
    return won.map((r) => Object.assign({}, r, { status: 'delivering' as const, lease_until: until, next_attempt_at: until, lease_owner: owner, rounds: r.rounds + 1, updated_at: now }));
  }

  /** Rows leased before they were written (leaseUnwritten) and never started: due now, as if never leased. */
  async release(rows: OutboxDoc[], now: number): Promise<void> {
    await Promise.all(rows.map((r) => this.outbox.updateOne(
      { _id: r._id, lease_owner: r.lease_owner },
      { $set: { status: 'pending', next_attempt_at: now, lease_until: 0, rounds: r.rounds - 1, updated_at: now } },
    )));
  }

  /** A round stopped mid-send (shutdown): the row is due again now, its attempts counted. */
  async handBack(row: Leased, attempts: number, last: Attempt | undefined, now: number): Promise<void> {
    if (last) await this.insertAttempt(row, last);
    await this.outbox.updateOne(
      { _id: row._id, lease_owner: row.lease_owner },
      { $set: { status: 'pending', next_attempt_at: now, lease_until: 0, attempts, updated_at: now } },
    );
  }

  /**
   * A receiver answers again: its callbacks waiting for a later round (to these URLs) are due now,
   * their rounds counted as they are, so they need not wait out the backoff the outage earned.
   */
  async dueAgain(urls: string[], now: number): Promise<number> {
    if (urls.length === 0) return 0;
    const res = await this.outbox.updateMany({ status: 'pending', url: { $in: urls }, next_attempt_at: { $gt: now } }, { $set: { next_attempt_at: now, updated_at: now } });
    return res.modifiedCount;
  }

  /** Leased rows whose lease has not run out, with their owners (to find those a dead process left). */
  leasedRows(now: number): Promise<Array<Pick<OutboxDoc, '_id' | 'lease_owner'>>> {
    return this.outbox.find({ status: 'delivering', next_attempt_at: { $gt: now } }, { projection: { _id: 1, lease_owner: 1 } }).toArray();
  }

  /** Makes leased rows due now (their holder is known to be gone); still conditional on the owner. */
  async dueNow(rows: Array<Pick<OutboxDoc, '_id' | 'lease_owner'>>, now: number): Promise<void> {
    await Promise.all(rows.map((r) => this.outbox.updateOne({ _id: r._id, lease_owner: r.lease_owner }, { $set: { next_attempt_at: now } })));
  }

  insertAttempt(row: Leased, a: Attempt): Promise<unknown> {
    const o = a.outcome;
    return this.attempts.insertOne({
      _id: newId(),
      event_id: row._id,
      app_id: row.app_id,
      attempt: a.n,
      at: a.at,
      duration_ms: o.durationMs,
      ...(o.status !== undefined ? { status_code: o.status } : {}),
      ...(o.kind !== 'delivered' ? { error: o.error } : {}),
      outcome: o.kind,
    });
  }

  /**
   * An attempt another may follow: logged, then counted on the row (what a new owner starts from)
   * and in trigger/history, which would otherwise show no attempt until the round ends.
   */
  async recordAttempt(row: Leased, a: Attempt): Promise<void> {
    await this.insertAttempt(row, a);
    const error = a.outcome.kind !== 'delivered' ? a.outcome.error : undefined;
    const res = await this.outbox.updateOne(
      { _id: row._id, lease_owner: row.lease_owner },
      {
        $set: {
          attempts: a.n,
          updated_at: a.at,
          ...(a.outcome.status !== undefined ? { last_status: a.outcome.status } : {}),
          ...(error !== undefined ? { last_error: error } : {}),
        },
      },
    );
    // Only while the row is still ours: a new owner's writes are the newer ones.
    if (res.matchedCount === 0) return;
    await this.history.updateOne(
      { _id: row._id },
      { $set: { 'delivery.attempts': a.n, 'delivery.updated_at': a.at, ...(error !== undefined ? { 'delivery.last_error': error } : {}) } },
    );
  }

  /**
   * Writes how the round ended: its last attempt (if not logged yet and not the delivering one),
   * then the row and its history entry. `row.attempts` and `row.last_status` are the round's.
   * `dropPayload`: a dead row keeps no payload either (it was cancelled). False when the lease was
   * lost before the outcome was saved (another loop owns the row now and will record its own).
   */
  async finish(row: Leased, end: RoundEnd, o: AttemptOutcome, now: number, last?: Attempt, dropPayload = false): Promise<boolean> {
    if (end.status === 'delivered' && !dropPayload) return this.deliveredRows.add(row, o.durationMs, last?.at ?? now, now);
    let set: Partial<OutboxDoc>;
    if (end.status === 'delivered') set = { status: 'delivered', delivered_at: last?.at ?? now, lease_until: 0, last_duration_ms: o.durationMs };
    else set = { status: end.status, lease_until: 0, last_error: end.lastError, ...(end.status === 'pending' ? { next_attempt_at: end.nextAttemptAt } : {}) };
    // The log first: a crash between the two leaves the row leased (re-sent later), never marked
    // dead without its attempt. A delivering attempt is written with the row itself.
    if (last && end.status !== 'delivered') await this.insertAttempt(row, last);
    // Added to `set` itself, not spread into a new object (see outboxDoc on spreads in V8 11).
    set.attempts = row.attempts;
    if (row.last_status !== undefined) set.last_status = row.last_status;
    set.updated_at = now;
    // A delivered row's payload is not sent again; a dead one keeps it for inspection, unless dropPayload.
    let unset: Partial<Record<keyof OutboxDoc, ''>> | undefined;
    if (end.status === 'delivered') unset = { last_error: '', payload: '' };
    else if (dropPayload) unset = { payload: '' };
    const updateRow = () => this.outbox.updateOne({ _id: row._id, lease_owner: row.lease_owner }, unset ? { $set: set, $unset: unset } : { $set: set });
    const lastError = end.status === 'delivered' ? undefined : end.lastError;
    const updateHistory = () => this.history.updateOne(
      { _id: row._id },
      {
        $set: {
          'delivery.status': end.status as DeliveryStatus,
          'delivery.attempts': row.attempts,
          'delivery.updated_at': now,
          ...(lastError ? { 'delivery.last_error': lastError } : {}),
        },
      },
    );
    // History mirrors the row: together while the lease surely is still ours, else only if it was.
    const together = now + LEASE_MARGIN_MS < row.lease_until;
    const [res] = together ? await Promise.all([updateRow(), updateHistory()]) : [await updateRow()];
    if (res.matchedCount === 0) return false;
    if (!together) await updateHistory();
    return true;
  }
}
