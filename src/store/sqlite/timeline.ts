// The decision timeline on SQLite: a row per entry, keyed by rowid (the order entries were
// written), indexed by user and time and by pair and time. An entry's public id is its time and its
// row number, so ids sort by time within a user as they always did; an entry an earlier release
// wrote keeps the id it had.
import type { Statement } from 'better-sqlite3';
import type { PairKey, TimelineDetailDoc, TimelineDoc, TimelineFilter, TimelineRow } from '../documents.js';
import { timeKey } from '../ids.js';
import type { Timeline } from '../timeline.js';
import { walkStored } from './retention-walk.js';
import type { SqliteDb } from './sqlite-db.js';
import { documentTable, type TableSpec } from './tables.js';

/** The columns layout 1 had (step 0 copies an older release's documents into them). */
const COLUMNS_V1 = 'app_id, user_id, trigger_id, place_id, layer_id, kind, event, from_state, to_state, gate, note, point_date, latitude, longitude, horizontal_accuracy, zone, distance_m, firing_id, at, received_at, boundary_shape, boundary_outside_m, boundary_margin_m';
const COLUMNS = `${COLUMNS_V1}, detail`;

const TRIGGER_INDEX = 'CREATE INDEX trigger_timeline_by_trigger ON trigger_timeline (trigger_id, at)';

export const TIMELINE_TABLE: TableSpec = {
  name: 'trigger_timeline',
  version: 3,
  create: [
    `CREATE TABLE trigger_timeline (
      id INTEGER PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, trigger_id TEXT NOT NULL, place_id TEXT NOT NULL, layer_id TEXT,
      kind TEXT NOT NULL, event TEXT, from_state TEXT, to_state TEXT, gate TEXT, note TEXT, point_date INTEGER, latitude REAL,
      longitude REAL, horizontal_accuracy REAL, zone TEXT, distance_m REAL, firing_id TEXT, at INTEGER NOT NULL, received_at INTEGER NOT NULL,
      boundary_shape TEXT, boundary_outside_m REAL, boundary_margin_m REAL, legacy_id TEXT, detail TEXT)`,
    'CREATE INDEX trigger_timeline_by_user ON trigger_timeline (user_id, at)',
    'CREATE INDEX trigger_timeline_by_pair ON trigger_timeline (user_id, trigger_id, place_id, at)',
    TRIGGER_INDEX,
  ],
  upgrade: {
    // Documents of the releases before typed tables, in the order of their ids (time first).
    0: (db) => {
      const old = documentTable(db, 'trigger_timeline');
      for (const sql of TIMELINE_TABLE.create) db.exec(sql);
      const f = old.field;
      const point = (p: string) => `json_extract(doc, '$.point.${p}')`;
      db.exec(`INSERT INTO trigger_timeline (${COLUMNS_V1}, legacy_id)
        SELECT ${f('app_id')}, ${f('user_id')}, ${f('trigger_id')}, ${f('place_id')}, ${f('layer_id')}, ${f('kind')}, ${f('event')}, ${f('from')},
          ${f('to')}, ${f('gate')}, ${f('note')}, ${point('date')}, ${point('latitude')}, ${point('longitude')}, ${point('horizontal_accuracy')},
          ${f('zone')}, ${f('distance_m')}, ${f('firing_id')}, ${f('at')}, coalesce(${f('received_at')}, ${f('at')}),
          json_extract(doc, '$.boundary.shape'), json_extract(doc, '$.boundary.outside_m'), json_extract(doc, '$.boundary.margin_m'), _id
        FROM ${old.table} ORDER BY _id`);
      old.drop();
    },
    // A shaped place's measure (polygon and corridor places). Step 0 already creates this layout.
    1: (db) => {
      const has = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('trigger_timeline') as string[]));
      for (const c of ['boundary_shape TEXT', 'boundary_outside_m REAL', 'boundary_margin_m REAL']) {
        if (!has.has(c.split(' ')[0]!)) db.exec(`ALTER TABLE trigger_timeline ADD COLUMN ${c}`);
      }
    },
    // The numbers behind an entry (JSON text), and a trigger's decisions across users. Step 0 already creates this layout.
    2: (db) => {
      const has = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('trigger_timeline') as string[]));
      if (!has.has('detail')) db.exec('ALTER TABLE trigger_timeline ADD COLUMN detail TEXT');
      db.exec(TRIGGER_INDEX.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
    },
  },
};

interface TimelineSqlRow {
  id: number;
  legacy_id: string | null;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string | null;
  kind: TimelineDoc['kind'];
  event: TimelineDoc['event'];
  from_state: TimelineDoc['from'];
  to_state: TimelineDoc['to'];
  gate: TimelineDoc['gate'];
  note: TimelineDoc['note'];
  point_date: number | null;
  latitude: number | null;
  longitude: number | null;
  horizontal_accuracy: number | null;
  zone: TimelineDoc['zone'];
  distance_m: number | null;
  firing_id: string | null;
  at: number;
  received_at: number;
  boundary_shape: 'polygon' | 'corridor' | null;
  boundary_outside_m: number | null;
  boundary_margin_m: number | null;
  detail: string | null;
}

/** An entry's public id: its time, then its row number (base 36, fixed width), so ids sort as entries do. */
export const entryId = (at: number, row: number) => `${timeKey(at)}-${row.toString(36).padStart(8, '0')}`;

function entryDoc(r: TimelineSqlRow): TimelineDoc {
  const doc: TimelineDoc = {
    _id: r.legacy_id ?? entryId(r.at, r.id), app_id: r.app_id, user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, layer_id: r.layer_id,
    kind: r.kind, event: r.event, from: r.from_state, to: r.to_state, gate: r.gate, note: r.note,
    point: r.point_date === null ? null : { date: r.point_date, latitude: r.latitude!, longitude: r.longitude!, horizontal_accuracy: r.horizontal_accuracy },
    zone: r.zone, distance_m: r.distance_m, firing_id: r.firing_id, at: r.at, received_at: r.received_at,
  };
  if (r.boundary_shape !== null) doc.boundary = { shape: r.boundary_shape, outside_m: r.boundary_outside_m!, margin_m: r.boundary_margin_m! };
  if (r.detail !== null) doc.detail = JSON.parse(r.detail) as TimelineDetailDoc;
  return doc;
}

type Params = [string, string, string, string, string | null, string, string | null, string | null, string | null, string | null, string | null,
  number | null, number | null, number | null, number | null, string | null, number | null, string | null, number, number,
  string | null, number | null, number | null, string | null];

/** The filters a user's list may combine, each with statements of its own (so each uses its index). */
type Shape = 'all' | 'trigger' | 'place' | 'pair';
const shapeOf = (f: TimelineFilter): Shape => (f.trigger_id !== undefined ? (f.place_id !== undefined ? 'pair' : 'trigger') : f.place_id !== undefined ? 'place' : 'all');
const SHAPE_WHERE: Record<Shape, string> = {
  all: '',
  trigger: ' AND trigger_id = ?',
  place: ' AND place_id = ?',
  pair: ' AND trigger_id = ? AND place_id = ?',
};

export class SqliteTimeline implements Timeline {
  private readonly insert: Statement<Params>;
  private readonly list: Record<Shape, Statement<unknown[], TimelineSqlRow>>;
  private readonly count: Record<Shape, Statement<unknown[], number>>;
  private readonly ofTriggerStmt: Statement<[string, string, string, number], TimelineSqlRow>;
  private readonly byTrigger: Record<'all' | 'place', Statement<unknown[], TimelineSqlRow>>;
  private readonly countByTrigger: Record<'all' | 'place', Statement<unknown[], number>>;
  private readonly anyOfTrigger: Statement<[string, string], number>;
  private readonly trim: Statement<[string, string, string, number]>;
  private readonly removeUserStmt: Statement<[string]>;
  private readonly removeAppStmt: Statement<[string]>;
  private readonly walk: (cutoff: number, max: number) => Promise<number>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(TIMELINE_TABLE);
    this.insert = sql.prepare(`INSERT INTO trigger_timeline (${COLUMNS}) VALUES (${'?, '.repeat(23)}?)`);
    const where = (shape: Shape) => `WHERE user_id = ? AND app_id = ? AND at > ? AND at < ?${SHAPE_WHERE[shape]}`;
    const shapes: Shape[] = ['all', 'trigger', 'place', 'pair'];
    this.list = Object.fromEntries(shapes.map((s) => [s, sql.prepare(`SELECT id, legacy_id, ${COLUMNS} FROM trigger_timeline ${where(s)} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`)])) as SqliteTimeline['list'];
    this.count = Object.fromEntries(shapes.map((s) => [s, sql.prepare(`SELECT count(*) FROM trigger_timeline ${where(s)}`).pluck()])) as SqliteTimeline['count'];
    this.ofTriggerStmt = sql.prepare(`SELECT id, legacy_id, ${COLUMNS} FROM trigger_timeline WHERE user_id = ? AND trigger_id = ? AND app_id = ? ORDER BY at DESC, id DESC LIMIT ?`);
    const whereTrigger = (place: boolean) => `WHERE trigger_id = ? AND app_id = ? AND at > ? AND at < ?${place ? ' AND place_id = ?' : ''}`;
    this.byTrigger = {
      all: sql.prepare(`SELECT id, legacy_id, ${COLUMNS} FROM trigger_timeline ${whereTrigger(false)} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`),
      place: sql.prepare(`SELECT id, legacy_id, ${COLUMNS} FROM trigger_timeline ${whereTrigger(true)} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`),
    };
    this.countByTrigger = {
      all: sql.prepare(`SELECT count(*) FROM trigger_timeline ${whereTrigger(false)}`).pluck() as Statement<unknown[], number>,
      place: sql.prepare(`SELECT count(*) FROM trigger_timeline ${whereTrigger(true)}`).pluck() as Statement<unknown[], number>,
    };
    this.anyOfTrigger = sql.prepare('SELECT count(*) FROM (SELECT 1 FROM trigger_timeline WHERE trigger_id = ? AND app_id = ? LIMIT 1)').pluck() as Statement<[string, string], number>;
    this.trim = sql.prepare(`DELETE FROM trigger_timeline WHERE id IN (SELECT id FROM trigger_timeline WHERE user_id = ? AND trigger_id = ? AND place_id = ?
      ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?)`);
    this.removeUserStmt = sql.prepare('DELETE FROM trigger_timeline WHERE user_id = ?');
    this.removeAppStmt = sql.prepare('DELETE FROM trigger_timeline WHERE app_id = ?');
    this.walk = walkStored(sql, 'trigger_timeline', 'at');
  }

  add(rows: readonly TimelineRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    // One entry is one statement, which SQLite undoes by itself: no savepoint around it.
    if (rows.length === 1) return this.sql.writeOne(() => this.insertEntry(rows[0]!));
    return this.sql.write(() => {
      for (const r of rows) this.insertEntry(r);
    });
  }

  private insertEntry(r: TimelineRow): void {
    this.insert.run(
      r.app_id, r.user_id, r.trigger_id, r.place_id, r.layer_id, r.kind, r.event, r.from, r.to, r.gate, r.note,
      r.point_date, r.latitude, r.longitude, r.horizontal_accuracy, r.zone, r.distance_m, r.firing_id, r.at, r.received_at,
      r.boundary?.shape ?? null, r.boundary?.outside_m ?? null, r.boundary?.margin_m ?? null,
      r.detail === undefined ? null : JSON.stringify(r.detail),
    );
  }

  async ofUser(appId: string, userId: string, filter: TimelineFilter, page: { offset: number; limit: number }) {
    const shape = shapeOf(filter);
    const params: unknown[] = [userId, appId, filter.after ?? -Infinity, filter.before ?? Infinity];
    if (filter.trigger_id !== undefined) params.push(filter.trigger_id);
    if (filter.place_id !== undefined) params.push(filter.place_id);
    const entries = this.list[shape].all(...params, page.limit, page.offset).map(entryDoc);
    return { entries, total: this.count[shape].get(...params)! };
  }

  async ofTrigger(appId: string, triggerId: string, filter: TimelineFilter, page: { offset: number; limit: number }) {
    const shape = filter.place_id !== undefined ? 'place' : 'all';
    const params: unknown[] = [triggerId, appId, filter.after ?? -Infinity, filter.before ?? Infinity];
    if (filter.place_id !== undefined) params.push(filter.place_id);
    const entries = this.byTrigger[shape].all(...params, page.limit, page.offset).map(entryDoc);
    return { entries, total: this.countByTrigger[shape].get(...params)! };
  }

  async hasTrigger(appId: string, triggerId: string): Promise<boolean> {
    return this.anyOfTrigger.get(triggerId, appId) === 1;
  }

  async ofUserTrigger(appId: string, userId: string, triggerId: string, max: number): Promise<TimelineDoc[]> {
    return this.ofTriggerStmt.all(userId, triggerId, appId, max).map(entryDoc);
  }

  trimPair(pair: PairKey, keep: number): Promise<void> {
    return this.sql.writeOne(() => this.trim.run(pair.user_id, pair.trigger_id, pair.place_id, keep));
  }

  removeUser(userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeUserStmt.run(userId));
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeAppStmt.run(appId));
  }

  removeDatedBefore(cutoff: number, max: number): Promise<number> {
    return this.walk(cutoff, max);
  }
}
