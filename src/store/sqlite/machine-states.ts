// Machines on SQLite: a row per pair that is not outside, keyed by (user, trigger, place). The
// record's fields are columns; its recent transitions (at most a handful) are JSON text, made in
// the shard. A dwell deadline is a column, read back with the records at start.
import type { Statement } from 'better-sqlite3';
import type { MachineRow, MachineStateDoc, Presence } from '../documents.js';
import { lastChangePerPair, type MachineSeed, type MachineStates } from '../machine-states.js';
import type { SqliteDb } from './sqlite-db.js';
import { documentTable, type TableSpec } from './tables.js';

const COLUMNS = 'app_id, state, since, entered_at, deadline, last_point_at, transitions, point_date, point_lat, point_lon, point_acc, updated_at';

export const MACHINE_TABLE: TableSpec = {
  name: 'machine_states',
  version: 1,
  create: [
    `CREATE TABLE machine_states (
      user_id TEXT NOT NULL, trigger_id TEXT NOT NULL, place_id TEXT NOT NULL, app_id TEXT NOT NULL, state TEXT NOT NULL,
      since INTEGER NOT NULL, entered_at INTEGER NOT NULL, deadline INTEGER, last_point_at INTEGER, transitions TEXT NOT NULL,
      point_date INTEGER, point_lat REAL, point_lon REAL, point_acc REAL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (user_id, trigger_id, place_id)) WITHOUT ROWID`,
    'CREATE INDEX machine_states_by_trigger ON machine_states (trigger_id)',
    'CREATE INDEX machine_states_by_place ON machine_states (place_id)',
  ],
  upgrade: {
    0: (db) => {
      const old = documentTable(db, 'machine_states');
      for (const sql of MACHINE_TABLE.create) db.exec(sql);
      const f = old.field;
      db.exec(`INSERT INTO machine_states (user_id, trigger_id, place_id, ${COLUMNS})
        SELECT ${f('user_id')}, ${f('trigger_id')}, ${f('place_id')}, ${f('app_id')}, json_extract(doc, '$.record.state'),
          json_extract(doc, '$.record.since'), json_extract(doc, '$.record.enteredAt'), json_extract(doc, '$.record.deadline'),
          json_extract(doc, '$.record.lastPointAt'), coalesce(json_extract(doc, '$.record.history'), '[]'),
          json_extract(doc, '$.last_point.date'), json_extract(doc, '$.last_point.latitude'), json_extract(doc, '$.last_point.longitude'),
          json_extract(doc, '$.last_point.horizontal_accuracy'), ${f('updated_at')}
        FROM ${old.table} WHERE true ON CONFLICT DO NOTHING`);
      old.drop();
    },
  },
};

interface MachineSqlRow {
  user_id: string;
  trigger_id: string;
  place_id: string;
  app_id: string;
  state: MachineStateDoc['record']['state'];
  since: number;
  entered_at: number;
  deadline: number | null;
  last_point_at: number | null;
  transitions: string;
  point_date: number | null;
  point_lat: number | null;
  point_lon: number | null;
  point_acc: number | null;
  updated_at: number;
}

function record(r: MachineSqlRow): MachineStateDoc['record'] {
  const rec: MachineStateDoc['record'] = { state: r.state, since: r.since, enteredAt: r.entered_at, history: JSON.parse(r.transitions) };
  if (r.deadline !== null) rec.deadline = r.deadline;
  if (r.last_point_at !== null) rec.lastPointAt = r.last_point_at;
  return rec;
}

function machineDoc(r: MachineSqlRow): MachineStateDoc {
  const doc: MachineStateDoc = { app_id: r.app_id, user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, record: record(r), updated_at: r.updated_at };
  if (r.point_date !== null) doc.last_point = { date: r.point_date, latitude: r.point_lat!, longitude: r.point_lon!, horizontal_accuracy: r.point_acc! };
  return doc;
}

const READ = `SELECT user_id, trigger_id, place_id, ${COLUMNS} FROM machine_states`;

type UpsertParams = [string, string, string, string, string, number, number, number | null, number | null, string, number | null, number | null, number | null, number | null, number];

export class SqliteMachineStates implements MachineStates {
  private readonly upsert: Statement<UpsertParams>;
  private readonly remove: Statement<[string, string, string]>;
  private readonly ofTriggerStmt: Statement<[string, string, string | null, string | null, string | null, string | null, number], MachineSqlRow>;
  private readonly ofUserStmt: Statement<[string, string], MachineSqlRow>;
  private readonly insideStmt: Statement<[string, string], Presence>;
  private readonly usersOfStmt: Statement<[string, string], { user_id: string; app_id: string }>;
  private readonly seedsStmt: Statement<[], MachineSqlRow>;
  private readonly removeBy: Record<'trigger_id' | 'place_id' | 'user_id' | 'app_id', Statement<[string]>>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(MACHINE_TABLE);
    this.upsert = sql.prepare(`INSERT INTO machine_states (user_id, trigger_id, place_id, ${COLUMNS}) VALUES (${'?, '.repeat(14)}?)
      ON CONFLICT (user_id, trigger_id, place_id) DO UPDATE SET app_id = excluded.app_id, state = excluded.state, since = excluded.since,
        entered_at = excluded.entered_at, deadline = excluded.deadline, last_point_at = excluded.last_point_at, transitions = excluded.transitions,
        point_date = coalesce(excluded.point_date, point_date), point_lat = coalesce(excluded.point_lat, point_lat),
        point_lon = coalesce(excluded.point_lon, point_lon), point_acc = coalesce(excluded.point_acc, point_acc), updated_at = excluded.updated_at`);
    this.remove = sql.prepare('DELETE FROM machine_states WHERE user_id = ? AND trigger_id = ? AND place_id = ?');
    // `? IS NULL OR …`: one statement whether or not the user or the place is given (each bound twice).
    this.ofTriggerStmt = sql.prepare(`${READ} WHERE trigger_id = ? AND app_id = ? AND (? IS NULL OR user_id = ?) AND (? IS NULL OR place_id = ?)
      ORDER BY updated_at DESC LIMIT ?`);
    this.ofUserStmt = sql.prepare(`${READ} WHERE user_id = ? AND app_id = ? ORDER BY updated_at DESC`);
    this.insideStmt = sql.prepare("SELECT user_id, place_id, entered_at FROM machine_states WHERE place_id = ? AND app_id = ? AND state IN ('inside', 'dwelling')");
    this.usersOfStmt = sql.prepare('SELECT user_id, app_id FROM machine_states WHERE trigger_id = ? AND place_id = ?');
    this.seedsStmt = sql.prepare(READ);
    const removeBy = (column: string) => sql.prepare<[string]>(`DELETE FROM machine_states WHERE ${column} = ?`);
    this.removeBy = { trigger_id: removeBy('trigger_id'), place_id: removeBy('place_id'), user_id: removeBy('user_id'), app_id: removeBy('app_id') };
  }

  apply(changes: readonly MachineRow[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    const rows = lastChangePerPair(changes);
    return this.sql.write(() => {
      for (const c of rows) {
        if (c.state === null) {
          this.remove.run(c.user_id, c.trigger_id, c.place_id);
          continue;
        }
        const p = c.point;
        this.upsert.run(
          c.user_id, c.trigger_id, c.place_id, c.app_id, c.state, c.since, c.entered_at, c.deadline, c.last_point_at, c.transitions,
          p ? p.date : null, p ? p.latitude : null, p ? p.longitude : null, p ? p.horizontal_accuracy : null, c.updated_at,
        );
      }
    });
  }

  async ofTrigger(appId: string, triggerId: string, only: { user_id?: string; place_id?: string }, max: number): Promise<MachineStateDoc[]> {
    const user = only.user_id ?? null;
    const place = only.place_id ?? null;
    return this.ofTriggerStmt.all(triggerId, appId, user, user, place, place, max).map(machineDoc);
  }

  async ofUser(appId: string, userId: string): Promise<MachineStateDoc[]> {
    return this.ofUserStmt.all(userId, appId).map(machineDoc);
  }

  async insideOf(appId: string, placeIds: readonly string[]): Promise<Presence[]> {
    const out: Presence[] = [];
    for (const placeId of new Set(placeIds)) for (const p of this.insideStmt.all(placeId, appId)) out.push(p);
    return out;
  }

  async usersOf(triggerId: string, placeId: string): Promise<Array<{ user_id: string; app_id: string }>> {
    return this.usersOfStmt.all(triggerId, placeId);
  }

  async seeds(): Promise<MachineSeed[]> {
    return this.seedsStmt.all().map((r) => ({ user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, record: record(r) }));
  }

  removeTrigger(triggerId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeBy.trigger_id.run(triggerId));
  }

  removePlace(placeId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeBy.place_id.run(placeId));
  }

  removeUser(userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeBy.user_id.run(userId));
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeBy.app_id.run(appId));
  }
}
