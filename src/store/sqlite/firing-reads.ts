// The embedded engine's reads of firings (trigger/history's pages and counts, the engine's recent
// firings, application/usage) and the retention sweeps. A history statement is prepared once per
// set of filters given (the filters' values, the offset and the limit are bound parameters), and
// names the index that serves it: the user's, the place's, or the application's.
import type { Statement } from 'better-sqlite3';
import type { FiringRecord, HistoryQuery, OutboxFigures, RecentFiring } from '../firings.js';
import type { SqliteDb } from './sqlite-db.js';
import { RECORD_COLUMNS, toRecord, type FiringRow } from './firing-rows.js';

const FILTERS = ['user_id', 'layer_id', 'place_id', 'trigger_id'] as const;

/** The filters' values, then (pages) the limit and the offset. */
type Params = Array<string | number>;

type Usage = { type: FiringRecord['type']; date: number };

/** A firing retention may remove: its attempts go with it when it was a callback. */
interface OldRow {
  rowid: number;
  event_id: string;
  status: string | null;
}

export class FiringReads {
  private readonly pages = new Map<string, Statement<Params, FiringRow>>();
  private readonly counts = new Map<string, Statement<Params, number>>();
  private readonly recent: Statement<[string, number], RecentFiring>;
  private readonly usageOf: Statement<[string], Usage>;
  private readonly deadPayloads: Statement<[number, number]>;
  private readonly oldAttempts: Statement<[number, number, number], string>;
  private readonly dropDeadPayload: Statement<[string]>;
  private readonly nextApp: Statement<[string], string>;
  private readonly oldOfApp: Statement<[string, number, number], OldRow>;
  private readonly attemptsOf: Statement<[string]>;
  private readonly deleteRow: Statement<[number]>;
  private readonly outboxOf: Statement<[number], OutboxFigures>;

  constructor(private readonly sql: SqliteDb) {
    this.recent = sql.prepare(`SELECT user_id, trigger_id, date FROM firings INDEXED BY firings_user
      WHERE user_id IN (SELECT value FROM json_each(?)) AND date >= ? AND gate IS NULL AND run = 0`);
    this.usageOf = sql.prepare(`SELECT type, date FROM firings INDEXED BY firings_app WHERE app_id = ? AND run = 0 AND unlisted = 0`);
    this.deadPayloads = sql.prepare(`UPDATE firings SET payload = NULL WHERE rowid IN
      (SELECT rowid FROM firings WHERE status = 'dead' AND payload IS NOT NULL AND updated_at < ? LIMIT ?)`);
    // Callbacks finished before the cutoff (or gone) with attempts older than it: a callback
    // still being retried keeps its whole log.
    this.oldAttempts = sql.prepare<[number, number, number], string>(`SELECT DISTINCT a.event_id FROM delivery_attempts a INDEXED BY delivery_attempts_at
      LEFT JOIN firings f ON f.event_id = a.event_id
      WHERE a.at < ? AND (f.event_id IS NULL OR (f.next_attempt_at IS NULL AND f.updated_at < ?)) LIMIT ?`).pluck();
    // A finished callback's payload goes with its log: a redelivery is possible as long as both are kept.
    this.dropDeadPayload = sql.prepare(`UPDATE firings SET payload = NULL WHERE event_id = ? AND status IN ('dead', 'delivered')`);
    this.nextApp = sql.prepare<[string], string>('SELECT app_id FROM firings INDEXED BY firings_app WHERE app_id > ? ORDER BY app_id LIMIT 1').pluck();
    this.oldOfApp = sql.prepare(`SELECT rowid, event_id, status FROM firings INDEXED BY firings_app
      WHERE app_id = ? AND date < ? AND next_attempt_at IS NULL LIMIT ?`);
    this.attemptsOf = sql.prepare('DELETE FROM delivery_attempts WHERE event_id = ?');
    this.deleteRow = sql.prepare('DELETE FROM firings WHERE rowid = ?');
    // The outbox's partial index holds only the callbacks still to be sent: the limit bounds the walk.
    this.outboxOf = sql.prepare(`SELECT count(*) AS waiting, min(created_at) AS oldestAt FROM
      (SELECT created_at FROM firings INDEXED BY firings_due WHERE next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT ?)`);
  }

  async outbox(limit: number): Promise<OutboxFigures> {
    return this.outboxOf.get(limit)!;
  }

  async history(q: HistoryQuery, offset: number, limit: number): Promise<FiringRecord[]> {
    return this.page(q).all(...values(q), limit, offset).map(toRecord);
  }

  async count(q: HistoryQuery): Promise<number> {
    return this.counter(q).get(...values(q)) ?? 0;
  }

  async recentForUsers(userIds: readonly string[], since: number): Promise<RecentFiring[]> {
    if (userIds.length === 0) return [];
    return this.recent.all(JSON.stringify(userIds), since);
  }

  async usage(appId: string): Promise<Usage[]> {
    return this.usageOf.all(appId);
  }

  sweepDelivery(cutoff: number, limit: number): Promise<{ callbacks: number; attempts: number }> {
    return this.sql.run(() => {
      const old = this.oldAttempts.all(cutoff, cutoff, limit);
      let attempts = 0;
      for (const id of old) {
        attempts += this.attemptsOf.run(id).changes;
        this.dropDeadPayload.run(id);
      }
      // Dead ones that kept their payload without a log (ended before an attempt was made).
      const payloads = old.length < limit ? this.deadPayloads.run(cutoff, limit - old.length).changes : 0;
      return { callbacks: old.length + payloads, attempts };
    });
  }

  /** Application by application (their index is by date within each), up to `limit` rows in all. */
  sweepHistory(cutoff: number, limit: number): Promise<number> {
    return this.sql.run(() => {
      let removed = 0;
      for (let app = this.nextApp.get(''); app !== undefined && removed < limit; app = this.nextApp.get(app)) {
        const old = this.oldOfApp.all(app, cutoff, limit - removed);
        for (const r of old) {
          if (r.status !== null) this.attemptsOf.run(r.event_id);
          this.deleteRow.run(r.rowid);
        }
        removed += old.length;
      }
      return removed;
    });
  }

  private page(q: HistoryQuery): Statement<Params, FiringRow> {
    return this.statement(this.pages, q, (index, where) =>
      this.sql.prepare(`SELECT ${RECORD_COLUMNS} FROM firings INDEXED BY ${index} WHERE ${where} ORDER BY date DESC, event_id DESC LIMIT ? OFFSET ?`));
  }

  private counter(q: HistoryQuery): Statement<Params, number> {
    return this.statement(this.counts, q, (index, where) =>
      this.sql.prepare<Params, number>(`SELECT count(*) FROM firings INDEXED BY ${index} WHERE ${where}`).pluck());
  }

  private statement<S>(cache: Map<string, S>, q: HistoryQuery, make: (index: string, where: string) => S): S {
    const given = FILTERS.filter((f) => q[f] !== undefined);
    const key = `${given.join(',')}:${q.gated ? 'gated' : ''}`;
    let s = cache.get(key);
    if (!s) {
      const index = q.user_id !== undefined ? 'firings_user' : q.place_id !== undefined ? 'firings_place' : 'firings_app';
      const where = ['app_id = ?', ...given.map((f) => `${f} = ?`), 'unlisted = 0', ...(q.gated ? [] : ['gate IS NULL'])].join(' AND ');
      cache.set(key, (s = make(index, where)));
    }
    return s;
  }
}

function values(q: HistoryQuery): string[] {
  const out = [q.app_id];
  for (const f of FILTERS) {
    const v = q[f];
    if (v !== undefined) out.push(v);
  }
  return out;
}
