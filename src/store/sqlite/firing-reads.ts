// The embedded engine's reads of firings (trigger/history's pages and counts, the engine's recent
// firings, application/usage) and the retention sweeps. A history statement is prepared once per
// set of filters given (the filters' values, the offset and the limit are bound parameters), and
// names the index that serves it: the user's, the place's, or the application's.
import type { Statement } from 'better-sqlite3';
import type { FiringRecord, HistoryQuery, RecentFiring } from '../firings.js';
import type { SqliteDb } from './sqlite-db.js';
import { RECORD_COLUMNS, toRecord, type FiringRow } from './firing-rows.js';

const FILTERS = ['user_id', 'layer_id', 'place_id', 'trigger_id'] as const;

export class FiringReads {
  private readonly statements = new Map<string, Statement>();
  private readonly recent: Statement;
  private readonly usageOf: Statement;
  private readonly deadPayloads: Statement;
  private readonly oldAttempts: Statement;
  private readonly dropDeadPayload: Statement;
  private readonly nextApp: Statement;
  private readonly oldOfApp: Statement;
  private readonly attemptsOf: Statement;
  private readonly deleteRow: Statement;

  constructor(private readonly sql: SqliteDb) {
    const p = (text: string) => sql.prepare(text);
    this.recent = p(`SELECT user_id, trigger_id, date FROM firings INDEXED BY firings_user
      WHERE user_id IN (SELECT value FROM json_each(?)) AND date >= ? AND gate IS NULL AND run = 0`);
    this.usageOf = p(`SELECT type, date FROM firings INDEXED BY firings_app WHERE app_id = ? AND run = 0 AND unlisted = 0`);
    this.deadPayloads = p(`UPDATE firings SET payload = NULL WHERE rowid IN
      (SELECT rowid FROM firings WHERE status = 'dead' AND payload IS NOT NULL AND updated_at < ? LIMIT ?)`);
    // Callbacks finished before the cutoff (or gone) with attempts older than it: a callback
    // still being retried keeps its whole log.
    this.oldAttempts = p(`SELECT DISTINCT a.event_id FROM delivery_attempts a INDEXED BY delivery_attempts_at
      LEFT JOIN firings f ON f.event_id = a.event_id
      WHERE a.at < ? AND (f.event_id IS NULL OR (f.next_attempt_at IS NULL AND f.updated_at < ?)) LIMIT ?`).pluck();
    this.dropDeadPayload = p(`UPDATE firings SET payload = NULL WHERE event_id = ? AND status = 'dead'`);
    this.nextApp = p('SELECT app_id FROM firings INDEXED BY firings_app WHERE app_id > ? ORDER BY app_id LIMIT 1').pluck();
    this.oldOfApp = p(`SELECT rowid, event_id, status FROM firings INDEXED BY firings_app
      WHERE app_id = ? AND date < ? AND next_attempt_at IS NULL LIMIT ?`);
    this.attemptsOf = p('DELETE FROM delivery_attempts WHERE event_id = ?');
    this.deleteRow = p('DELETE FROM firings WHERE rowid = ?');
  }

  async history(q: HistoryQuery, offset: number, limit: number): Promise<FiringRecord[]> {
    const rows = this.statement(q, 'page').all(...values(q), limit, offset) as FiringRow[];
    return rows.map(toRecord);
  }

  async count(q: HistoryQuery): Promise<number> {
    return this.statement(q, 'count').pluck().get(...values(q)) as number;
  }

  async recentForUsers(userIds: readonly string[], since: number): Promise<RecentFiring[]> {
    if (userIds.length === 0) return [];
    return this.recent.all(JSON.stringify(userIds), since) as RecentFiring[];
  }

  async usage(appId: string): Promise<Array<{ type: FiringRecord['type']; date: number }>> {
    return this.usageOf.all(appId) as Array<{ type: FiringRecord['type']; date: number }>;
  }

  sweepDelivery(cutoff: number, limit: number): Promise<{ callbacks: number; attempts: number }> {
    return this.sql.run(() => {
      const old = this.oldAttempts.all(cutoff, cutoff, limit) as string[];
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
      for (let app = this.nextApp.get('') as string | undefined; app !== undefined && removed < limit; app = this.nextApp.get(app) as string | undefined) {
        const old = this.oldOfApp.all(app, cutoff, limit - removed) as Array<{ rowid: number; event_id: string; status: string | null }>;
        for (const r of old) {
          if (r.status !== null) this.attemptsOf.run(r.event_id);
          this.deleteRow.run(r.rowid);
        }
        removed += old.length;
      }
      return removed;
    });
  }

  private statement(q: HistoryQuery, kind: 'page' | 'count'): Statement {
    const given = FILTERS.filter((f) => q[f] !== undefined);
    const key = `${kind}:${given.join(',')}:${q.gated ? 'gated' : ''}`;
    let s = this.statements.get(key);
    if (!s) {
      const index = q.user_id !== undefined ? 'firings_user' : q.place_id !== undefined ? 'firings_place' : 'firings_app';
      const where = ['app_id = ?', ...given.map((f) => `${f} = ?`), 'unlisted = 0', ...(q.gated ? [] : ['gate IS NULL'])].join(' AND ');
      s = this.sql.prepare(kind === 'page'
        ? `SELECT ${RECORD_COLUMNS} FROM firings INDEXED BY ${index} WHERE ${where} ORDER BY date DESC, event_id DESC LIMIT ? OFFSET ?`
        : `SELECT count(*) FROM firings INDEXED BY ${index} WHERE ${where}`);
      this.statements.set(key, s);
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
