// Firings and their delivery on the embedded engine: prepared statements over plain columns
// (firings-schema.ts), every write in the turn's group commit (commit.ts). Lists of ids travel as
// one JSON array parameter (json_each), so no statement's text depends on how many there are.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type {
  AttemptRecord, AttemptRepo, DueHead, DuePosition, FiringRecord, FiringRepo, HistoryQuery, LeasedCallback, NewFiring, OutboxFigures, RecentFiring, RoundEnd,
} from '../firings.js';
import { ATTEMPT_COLUMNS, attemptValues, LEASED_COLUMNS, RECORD_COLUMNS, toAttempt, toLeased, toRecord, type AttemptParams, type AttemptRow, type FiringRow, type LeasedRow } from './firing-rows.js';
import { FiringReads } from './firing-reads.js';
import { ATTEMPTS_TABLE, FIRINGS_TABLE, moveOldFirings } from './firings-schema.js';
import type { SqliteDb } from './sqlite-db.js';

/** Rows changed per statement by the deletes and cancellations that reach many: one bounded step each. */
const CHUNK = 500;

const INSERT = `INSERT INTO firings (event_id, app_id, user_id, trigger_id, place_id, layer_id, type, triggered_on, delay_s, date, received_at,
  run, unlisted, gate, url, status, next_attempt_at, created_at, updated_at, payload)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`;

type InsertParams = [
  string, string, string, string, string, string, string, string, number, number, number | null,
  number, number, string | null, string | null, string | null, number | null, number, number, string | null,
];

const LEASE_SET = `status = 'delivering', next_attempt_at = ?, lease_owner = ?, rounds = rounds + 1, updated_at = ?`;

export class SqliteFirings implements FiringRepo {
  private readonly reads: FiringReads;
  private readonly insertRow: Statement<InsertParams>;
  private readonly getRow: Statement<[string], FiringRow>;
  private readonly heads: Statement<[number, number], DueHead>;
  private readonly headsAfter: Statement<[number, number, number, number], DueHead>;
  private readonly leaseMany: Statement<[number, string, number, string, number], LeasedRow>;
  private readonly leaseAny: Statement<[number, string, number, string, number], LeasedRow>;
  private readonly leaseAgain: Statement<[number, string, number, string, string], LeasedRow>;
  private readonly releaseRow: Statement<[number, number, string, string]>;
  private readonly handBackRow: Statement<[number, number, number | null, number, string, string]>;
  private readonly countAttempt: Statement<[number, number | null, string | null, number, string, string]>;
  private readonly delivered: Statement<[number, number, number, number | null, number, string, string]>;
  private readonly retry: Statement<[number, number, number | null, string, number, string, string]>;
  private readonly dead: Statement<[number, number | null, string, number, number, string, string]>;
  private readonly insertAttempt: Statement<AttemptParams>;
  private readonly dueAgainUrls: Statement<[number, number, number, string]>;
  private readonly orphans: Statement<[number, number, number, string]>;
  private readonly hold: Statement<[number, number, string, number]>;
  private readonly cancelUser: Statement<[string, number, string, string]>;
  private readonly cancelTrigger: Statement<[string, number, string, string]>;
  private readonly followPending: Statement<[string, number, number, string, string]>;
  private readonly followLeased: Statement<[string, string, string]>;
  private readonly forgetAttempts: Statement<[string, string]>;
  private readonly forgetRows: Statement<[string, string]>;
  private readonly hideLeased: Statement<[string, string]>;
  private readonly appAttempts: Statement<[string]>;
  private readonly appRows: Statement<[string]>;
  private readonly reopenRow: Statement<[number, number, string, number, string, string], FiringRow>;

  constructor(private readonly sql: SqliteDb) {
    // The attempts first: moving an older release's firings adds the attempts that delivered.
    sql.table(ATTEMPTS_TABLE);
    sql.table(FIRINGS_TABLE);
    moveOldFirings(sql.db);
    this.reads = new FiringReads(sql);
    this.insertRow = sql.prepare(INSERT);
    this.getRow = sql.prepare(`SELECT ${RECORD_COLUMNS}, payload FROM firings WHERE event_id = ?`);
    // Due order is (next_attempt_at, rowid): the index carries the rowid, the order of storing.
    const headCols = 'event_id, next_attempt_at, rowid AS seq, url, app_id';
    this.heads = sql.prepare(`SELECT ${headCols} FROM firings WHERE next_attempt_at <= ? ORDER BY next_attempt_at, rowid LIMIT ?`);
    this.headsAfter = sql.prepare(`SELECT ${headCols} FROM firings WHERE (next_attempt_at, rowid) > (?, ?) AND next_attempt_at <= ? ORDER BY next_attempt_at, rowid LIMIT ?`);
    // next_attempt_at is set only while pending or leased: due means one or the other.
    this.leaseMany = sql.prepare(`UPDATE firings SET ${LEASE_SET} WHERE event_id IN (SELECT value FROM json_each(?)) AND next_attempt_at <= ? RETURNING ${LEASED_COLUMNS}`);
    this.leaseAny = sql.prepare(`UPDATE firings SET ${LEASE_SET} WHERE event_id = ? AND (status = 'pending' OR (status = 'delivering' AND next_attempt_at <= ?)) RETURNING ${LEASED_COLUMNS}`);
    this.leaseAgain = sql.prepare(`UPDATE firings SET ${LEASE_SET.replace('rounds = rounds + 1, ', '')} WHERE event_id = ? AND lease_owner = ? AND status = 'delivering' RETURNING ${LEASED_COLUMNS}`);
    const mine = 'WHERE event_id = ? AND lease_owner = ?';
    this.releaseRow = sql.prepare(`UPDATE firings SET status = 'pending', next_attempt_at = ?, lease_owner = NULL, rounds = max(rounds - 1, 0), updated_at = ? ${mine}`);
    this.handBackRow = sql.prepare(`UPDATE firings SET status = 'pending', next_attempt_at = ?, lease_owner = NULL, attempts = ?, last_status = coalesce(?, last_status), updated_at = ? ${mine}`);
    this.countAttempt = sql.prepare(`UPDATE firings SET attempts = ?, last_status = coalesce(?, last_status), last_error = coalesce(?, last_error), updated_at = ? ${mine}`);
    this.delivered = sql.prepare(`UPDATE firings SET status = 'delivered', next_attempt_at = NULL, lease_owner = NULL, delivered_at = ?, last_duration_ms = ?,
      attempts = ?, last_status = coalesce(?, last_status), last_error = NULL, updated_at = ? ${mine}`);
    this.retry = sql.prepare(`UPDATE firings SET status = 'pending', next_attempt_at = ?, lease_owner = NULL, attempts = ?, last_status = coalesce(?, last_status),
      last_error = ?, updated_at = ? ${mine}`);
    this.dead = sql.prepare(`UPDATE firings SET status = 'dead', next_attempt_at = NULL, lease_owner = NULL, attempts = ?, last_status = coalesce(?, last_status),
      last_error = ?, payload = CASE WHEN ? THEN NULL ELSE payload END, updated_at = ? ${mine}`);
    this.insertAttempt = sql.prepare(`INSERT OR IGNORE INTO delivery_attempts (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.dueAgainUrls = sql.prepare(`UPDATE firings SET next_attempt_at = ?, updated_at = ? WHERE next_attempt_at > ? AND status = 'pending' AND url IN (SELECT value FROM json_each(?))`);
    this.orphans = sql.prepare(`UPDATE firings SET next_attempt_at = ? WHERE next_attempt_at > ? AND status = 'delivering' AND substr(lease_owner, 1, ?) <> ?`);
    this.hold = sql.prepare(`UPDATE firings SET next_attempt_at = ?, updated_at = ? WHERE event_id = ? AND status = 'pending' AND next_attempt_at = ?`);
    const cancel = `UPDATE firings SET status = 'dead', next_attempt_at = NULL, last_error = ?, payload = NULL, updated_at = ? WHERE rowid IN`;
    this.cancelUser = sql.prepare(`${cancel} (SELECT rowid FROM firings WHERE user_id = ? AND app_id = ? AND status = 'pending' LIMIT ${CHUNK})`);
    this.cancelTrigger = sql.prepare(`${cancel} (SELECT rowid FROM firings INDEXED BY firings_due WHERE next_attempt_at IS NOT NULL AND status = 'pending' AND app_id = ? AND trigger_id = ? LIMIT ${CHUNK})`);
    const ofTrigger = `WHERE next_attempt_at IS NOT NULL AND app_id = ? AND trigger_id = ?`;
    this.followPending = sql.prepare(`UPDATE firings SET url = ?, next_attempt_at = ?, updated_at = ? ${ofTrigger} AND status = 'pending'`);
    this.followLeased = sql.prepare(`UPDATE firings SET url = ? ${ofTrigger} AND status = 'delivering'`);
    const notLeased = `user_id = ? AND app_id = ? AND status IS NOT 'delivering'`;
    this.forgetAttempts = sql.prepare(`DELETE FROM delivery_attempts WHERE event_id IN (SELECT event_id FROM firings WHERE ${notLeased} LIMIT ${CHUNK})`);
    this.forgetRows = sql.prepare(`DELETE FROM firings WHERE rowid IN (SELECT rowid FROM firings WHERE ${notLeased} LIMIT ${CHUNK})`);
    this.hideLeased = sql.prepare(`UPDATE firings SET unlisted = 1, payload = NULL WHERE user_id = ? AND app_id = ? AND status = 'delivering'`);
    this.appAttempts = sql.prepare(`DELETE FROM delivery_attempts WHERE event_id IN (SELECT event_id FROM firings WHERE app_id = ? LIMIT ${CHUNK})`);
    this.appRows = sql.prepare(`DELETE FROM firings WHERE rowid IN (SELECT rowid FROM firings WHERE app_id = ? LIMIT ${CHUNK})`);
    // Finished and still holding its payload: a round under way or a retry waiting is left alone.
    this.reopenRow = sql.prepare(`UPDATE firings SET status = 'pending', next_attempt_at = ?, rounds = 0, delivered_at = NULL, last_duration_ms = NULL,
      redelivery_at = ?, redelivery_by = ?, updated_at = ? WHERE event_id = ? AND app_id = ? AND status IN ('delivered', 'dead') AND payload IS NOT NULL
      AND unlisted = 0 RETURNING ${RECORD_COLUMNS}`);
  }

  insert(rows: readonly NewFiring[]): Promise<Set<string>> {
    if (rows.length === 0) return Promise.resolve(new Set());
    const op = () => {
      const existing = new Set<string>();
      for (const r of rows) {
        const res = this.insertRow.run(
          r.event_id, r.app_id, r.user_id, r.trigger_id, r.place_id, r.layer_id, r.type, r.triggered_on, r.delay_s, r.date, r.received_at ?? null,
          r.run ? 1 : 0, r.unlisted ? 1 : 0, r.gate ?? null, r.url ?? null, r.status ?? null, r.next_attempt_at ?? null, r.created_at, r.created_at, r.payload ?? null,
        );
        if (res.changes === 0) existing.add(r.event_id);
      }
      return existing;
    };
    return rows.length === 1 ? this.sql.runOne(op) : this.sql.run(op);
  }

  async get(eventId: string): Promise<FiringRecord | null> {
    const row = this.getRow.get(eventId);
    return row ? toRecord(row) : null;
  }

  async dueHeads(now: number, limit: number, after?: DuePosition): Promise<DueHead[]> {
    return (after ? this.headsAfter.all(after.at, after.seq, now, limit) : this.heads.all(now, limit));
  }

  leaseDue(ids: readonly string[], owner: string, until: number, now: number): Promise<LeasedCallback[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.sql.runOne(() => this.leaseMany.all(until, owner, now, JSON.stringify(ids), now).map((r) => toLeased(r, owner)));
  }

  leaseOne(eventId: string, owner: string, until: number, now: number, expected?: LeasedCallback): Promise<LeasedCallback | null> {
    return this.sql.runOne(() => {
      const row = expected
        ? this.leaseAgain.get(until, owner, now, eventId, expected.lease_owner)
        : this.leaseAny.get(until, owner, now, eventId, now);
      return row ? toLeased(row, owner) : null;
    });
  }

  release(list: readonly LeasedCallback[], now: number): Promise<void> {
    if (list.length === 0) return Promise.resolve();
    return this.sql.write(() => {
      for (const c of list) this.releaseRow.run(now, now, c.event_id, c.lease_owner);
    });
  }

  handBack(c: LeasedCallback, now: number, last?: AttemptRecord): Promise<void> {
    return this.sql.write(() => {
      if (this.handBackRow.run(now, c.attempts, c.last_status ?? null, now, c.event_id, c.lease_owner).changes > 0 && last) {
        this.insertAttempt.run(...attemptValues(last));
      }
    });
  }

  attempted(c: LeasedCallback, a: AttemptRecord): Promise<boolean> {
    return this.sql.run(() => {
      if (this.countAttempt.run(a.attempt, c.last_status ?? null, a.error ?? null, a.at, c.event_id, c.lease_owner).changes === 0) return false;
      this.insertAttempt.run(...attemptValues(a));
      return true;
    });
  }

  finish(c: LeasedCallback, end: RoundEnd, now: number, last?: AttemptRecord): Promise<boolean> {
    const op = () => {
      const status = c.last_status ?? null;
      let res: Database.RunResult;
      if (end.status === 'delivered') res = this.delivered.run(end.at, end.durationMs, c.attempts, status, now, c.event_id, c.lease_owner);
      else if (end.status === 'pending') res = this.retry.run(end.nextAttemptAt, c.attempts, status, end.lastError, now, c.event_id, c.lease_owner);
      else res = this.dead.run(c.attempts, status, end.lastError, end.dropPayload ? 1 : 0, now, c.event_id, c.lease_owner);
      if (res.changes === 0) return false;
      if (last) this.insertAttempt.run(...attemptValues(last));
      return true;
    };
    // Without an attempt row the outcome is one statement: no savepoint around it.
    return last ? this.sql.run(op) : this.sql.runOne(op);
  }

  async dueAgain(urls: readonly string[], now: number): Promise<number> {
    if (urls.length === 0) return 0;
    return this.sql.runOne(() => this.dueAgainUrls.run(now, now, now, JSON.stringify(urls)).changes);
  }

  orphansDue(ownerPrefix: string, now: number): Promise<number> {
    return this.sql.runOne(() => this.orphans.run(now, now, ownerPrefix.length, ownerPrefix).changes);
  }

  async releaseHold(eventId: string, heldUntil: number, now: number): Promise<void> {
    await this.sql.writeOne(() => this.hold.run(now, now, eventId, heldUntil));
  }

  async cancelWaiting(appId: string, scope: { user_id: string } | { trigger_id: string }, reason: string, now: number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.sql.runOne(() => ('user_id' in scope
        ? this.cancelUser.run(reason, now, scope.user_id, appId)
        : this.cancelTrigger.run(reason, now, appId, scope.trigger_id)).changes);
      total += n;
      if (n < CHUNK) return total;
    }
  }

  async followUrl(appId: string, triggerId: string, url: string, now: number): Promise<void> {
    await this.sql.write(() => {
      this.followPending.run(url, now, now, appId, triggerId);
      this.followLeased.run(url, appId, triggerId);
    });
  }

  async forgetUser(appId: string, userId: string): Promise<void> {
    for (;;) {
      const n = await this.sql.run(() => {
        this.forgetAttempts.run(userId, appId);
        return this.forgetRows.run(userId, appId).changes;
      });
      if (n < CHUNK) break;
    }
    await this.sql.writeOne(() => this.hideLeased.run(userId, appId));
  }

  async removeForApp(appId: string): Promise<void> {
    for (;;) {
      const n = await this.sql.run(() => {
        this.appAttempts.run(appId);
        return this.appRows.run(appId).changes;
      });
      if (n < CHUNK) return;
    }
  }

  outbox(limit: number): Promise<OutboxFigures> {
    return this.reads.outbox(limit);
  }

  reopen(appId: string, eventId: string, by: string, now: number, dueAt: number): Promise<FiringRecord | null> {
    return this.sql.runOne(() => {
      const row = this.reopenRow.get(dueAt, now, by, now, eventId, appId);
      return row ? toRecord(row) : null;
    });
  }

  history(q: HistoryQuery, offset: number, limit: number): Promise<FiringRecord[]> {
    return this.reads.history(q, offset, limit);
  }

  count(q: HistoryQuery): Promise<number> {
    return this.reads.count(q);
  }

  recentForUsers(userIds: readonly string[], since: number): Promise<RecentFiring[]> {
    return this.reads.recentForUsers(userIds, since);
  }

  usage(appId: string): Promise<Array<{ type: FiringRecord['type']; date: number }>> {
    return this.reads.usage(appId);
  }

  sweepDelivery(cutoff: number, limit: number): Promise<{ callbacks: number; attempts: number }> {
    return this.reads.sweepDelivery(cutoff, limit);
  }

  sweepHistory(cutoff: number, limit: number): Promise<number> {
    return this.reads.sweepHistory(cutoff, limit);
  }
}

/** The attempt log; its table is opened by SqliteFirings, which writes it. */
export class SqliteAttempts implements AttemptRepo {
  private readonly byEvent: Statement<[string], AttemptRow>;
  private readonly pageOf: Statement<[string, number, number], AttemptRow>;
  private readonly countOf: Statement<[string], number>;

  constructor(sql: SqliteDb) {
    this.byEvent = sql.prepare(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE event_id = ? ORDER BY attempt`);
    this.pageOf = sql.prepare(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE event_id = ? ORDER BY attempt LIMIT ? OFFSET ?`);
    this.countOf = sql.prepare<[string], number>('SELECT count(*) FROM delivery_attempts WHERE event_id = ?').pluck();
  }

  async list(eventId: string): Promise<AttemptRecord[]> {
    return this.byEvent.all(eventId).map(toAttempt);
  }

  async page(eventId: string, offset: number, limit: number): Promise<{ attempts: AttemptRecord[]; total: number }> {
    return { attempts: this.pageOf.all(eventId, limit, offset).map(toAttempt), total: this.countOf.get(eventId) ?? 0 };
  }
}
