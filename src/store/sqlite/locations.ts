// Points on SQLite: the history (`locations`, a row per point, keyed by rowid) and each user's last
// location (`last_locations`, a row per user). Plain columns; `raw` and `client` as the JSON text
// the shard made of them. A repeat of a stored point is refused by a unique index and dropped.
import type { Statement } from 'better-sqlite3';
import type { DateRange, LastPointSeed, LocationDoc, PointRow } from '../documents.js';
import { newestPerUser, parsed, type LastLocations, type PointHistory } from '../locations.js';
import type { SqliteDb } from './sqlite-db.js';
import { documentTable, type TableSpec } from './tables.js';
import { walkStored } from './retention-walk.js';

const POINT_COLUMNS = 'uuid, date, latitude, longitude, horizontal_accuracy, speed, altitude, heading, vertical_accuracy, raw, client, received_at';

/** The point columns of a document table of an earlier release, in POINT_COLUMNS order. */
function oldPointColumns(field: (f: string) => string): string {
  return [
    field('uuid'), field('date'), field('latitude'), field('longitude'), `coalesce(${field('horizontal_accuracy')}, 0)`,
    field('speed'), field('altitude'), field('heading'), field('vertical_accuracy'),
    // Objects come out of json_extract as JSON text; a JSON null as SQL NULL.
    field('raw'), field('client'), `coalesce(${field('received_at')}, ${field('date')})`,
  ].join(', ');
}

export const HISTORY_TABLE: TableSpec = {
  name: 'locations',
  version: 1,
  create: [
    `CREATE TABLE locations (
      id INTEGER PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, uuid TEXT NOT NULL, own_uuid INTEGER NOT NULL,
      date INTEGER NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL, horizontal_accuracy REAL NOT NULL,
      speed REAL, altitude REAL, heading REAL, vertical_accuracy REAL, raw TEXT, client TEXT, received_at INTEGER NOT NULL,
      legacy_id TEXT)`,
    // A user's points by time, and what makes a point a repeat of a stored one.
    'CREATE UNIQUE INDEX locations_by_user ON locations (user_id, date, latitude, longitude, horizontal_accuracy)',
    'CREATE UNIQUE INDEX locations_by_uuid ON locations (user_id, uuid) WHERE own_uuid = 1',
  ],
  upgrade: {
    // Documents of the releases before typed tables, in the order they were stored. Their ids
    // stay (`legacy_id`) for the batches location/history handed out before; repeats the old
    // layout let in are dropped, and no uuid of theirs counts as the phone's.
    0: (db) => {
      const old = documentTable(db, 'locations');
      for (const sql of HISTORY_TABLE.create) db.exec(sql);
      db.exec(`INSERT INTO locations (app_id, user_id, own_uuid, ${POINT_COLUMNS}, legacy_id)
        SELECT ${old.field('app_id')}, ${old.field('user_id')}, 0, ${oldPointColumns(old.field)}, _id FROM ${old.table}
        WHERE true ORDER BY rowid ON CONFLICT DO NOTHING`);
      old.drop();
    },
  },
};

export const LAST_TABLE: TableSpec = {
  name: 'last_locations',
  version: 1,
  create: [
    `CREATE TABLE last_locations (
      user_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, uuid TEXT NOT NULL, date INTEGER NOT NULL, latitude REAL NOT NULL,
      longitude REAL NOT NULL, horizontal_accuracy REAL NOT NULL, speed REAL, altitude REAL, heading REAL, vertical_accuracy REAL,
      raw TEXT, client TEXT, received_at INTEGER NOT NULL) WITHOUT ROWID`,
    'CREATE INDEX last_locations_by_app ON last_locations (app_id)',
  ],
  upgrade: {
    0: (db) => {
      const old = documentTable(db, 'last_locations');
      for (const sql of LAST_TABLE.create) db.exec(sql);
      db.exec(`INSERT INTO last_locations (user_id, app_id, ${POINT_COLUMNS})
        SELECT _id, ${old.field('app_id')}, ${oldPointColumns(old.field)} FROM ${old.table}`);
      old.drop();
    },
  },
};

type PointParams = [string, number, number, number, number, number | null, number | null, number | null, number | null, string | null, string | null, number];
const pointParams = (p: PointRow): PointParams => [
  p.uuid, p.date, p.latitude, p.longitude, p.horizontal_accuracy, p.speed, p.altitude, p.heading, p.vertical_accuracy, p.raw, p.client, p.received_at,
];

interface PointSqlRow {
  id: string | number;
  app_id: string;
  user_id: string;
  uuid: string;
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
  speed: number | null;
  altitude: number | null;
  heading: number | null;
  vertical_accuracy: number | null;
  raw: string | null;
  client: string | null;
  received_at: number;
}

function pointDoc(r: PointSqlRow): LocationDoc {
  const doc: LocationDoc = {
    _id: String(r.id), app_id: r.app_id, user_id: r.user_id, uuid: r.uuid, date: r.date, latitude: r.latitude, longitude: r.longitude,
    horizontal_accuracy: r.horizontal_accuracy, raw: parsed(r.raw), received_at: r.received_at,
  };
  if (r.speed !== null) doc.speed = r.speed;
  if (r.altitude !== null) doc.altitude = r.altitude;
  if (r.heading !== null) doc.heading = r.heading;
  if (r.vertical_accuracy !== null) doc.vertical_accuracy = r.vertical_accuracy;
  if (r.client !== null) doc.client = parsed(r.client)!;
  return doc;
}

const HISTORY_READ = `SELECT coalesce(legacy_id, id) AS id, app_id, user_id, ${POINT_COLUMNS} FROM locations`;
/** Device time within (after, before): absent bounds as ±Infinity, which SQLite compares as numbers. */
const IN_RANGE = 'user_id = ? AND app_id = ? AND date > ? AND date < ?';
const lower = (r: DateRange) => r.after ?? -Infinity;
const upper = (r: DateRange) => r.before ?? Infinity;

export class SqlitePointHistory implements PointHistory {
  private readonly insert: Statement<[string, string, number, ...PointParams]>;
  private readonly newestStmt: Statement<[string, string, number, number, number], PointSqlRow>;
  private readonly oldestStmt: Statement<[string, string, number, number, number], PointSqlRow>;
  private readonly removeById: Statement<[number, string, string]>;
  private readonly removeByLegacyId: Statement<[string, string, string]>;
  private readonly removeUserStmt: Statement<[string, string]>;
  private readonly removeAppStmt: Statement<[string]>;
  private readonly walk: ReturnType<typeof walkStored>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(HISTORY_TABLE);
    this.insert = sql.prepare(`INSERT INTO locations (app_id, user_id, own_uuid, ${POINT_COLUMNS}) VALUES (?, ?, ?, ${'?, '.repeat(11)}?) ON CONFLICT DO NOTHING`);
    this.newestStmt = sql.prepare(`${HISTORY_READ} WHERE ${IN_RANGE} ORDER BY date DESC, id DESC LIMIT ?`);
    this.oldestStmt = sql.prepare(`${HISTORY_READ} WHERE ${IN_RANGE} ORDER BY date, id LIMIT ?`);
    this.removeById = sql.prepare('DELETE FROM locations WHERE id = ? AND user_id = ? AND app_id = ?');
    this.removeByLegacyId = sql.prepare('DELETE FROM locations WHERE legacy_id = ? AND user_id = ? AND app_id = ?');
    this.removeUserStmt = sql.prepare('DELETE FROM locations WHERE user_id = ? AND app_id = ?');
    this.removeAppStmt = sql.prepare('DELETE FROM locations WHERE app_id = ?');
    this.walk = walkStored(sql, 'locations', 'date');
  }

  add(points: readonly PointRow[]): Promise<void> {
    if (points.length === 0) return Promise.resolve();
    return this.sql.write(() => {
      for (const p of points) this.insert.run(p.app_id, p.user_id, p.own_uuid ? 1 : 0, ...pointParams(p));
    });
  }

  async newest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]> {
    return this.newestStmt.all(userId, appId, lower(range), upper(range), count).map(pointDoc);
  }

  async oldest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]> {
    return this.oldestStmt.all(userId, appId, lower(range), upper(range), count).map(pointDoc);
  }

  remove(appId: string, userId: string, ids: readonly string[]): Promise<number> {
    return this.sql.run(() => {
      let n = 0;
      for (const id of ids) {
        // Ids of this layout are row numbers; others are the ids of points an earlier release stored.
        n += /^[1-9]\d{0,15}$/.test(id) ? this.removeById.run(Number(id), userId, appId).changes : this.removeByLegacyId.run(id, userId, appId).changes;
      }
      return n;
    });
  }

  removeUser(appId: string, userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeUserStmt.run(userId, appId));
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeAppStmt.run(appId));
  }

  removeDatedBefore(cutoff: number, max: number): Promise<number> {
    return this.walk(cutoff, max);
  }
}

const LAST_READ = `SELECT user_id AS id, app_id, user_id, ${POINT_COLUMNS} FROM last_locations`;

export class SqliteLastLocations implements LastLocations {
  private readonly upsert: Statement<[string, string, ...PointParams]>;
  private readonly one: Statement<[string, string], PointSqlRow>;
  private readonly ofAppStmt: Statement<[string, number], PointSqlRow>;
  private readonly seedsStmt: Statement<[], LastPointSeed>;
  private readonly removeUserStmt: Statement<[string, string]>;
  private readonly removeAppStmt: Statement<[string]>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(LAST_TABLE);
    const set = ['app_id', ...POINT_COLUMNS.split(', ')].map((c) => `${c} = excluded.${c}`).join(', ');
    this.upsert = sql.prepare(`INSERT INTO last_locations (user_id, app_id, ${POINT_COLUMNS}) VALUES (?, ?, ${'?, '.repeat(11)}?)
      ON CONFLICT (user_id) DO UPDATE SET ${set}
      WHERE excluded.date > last_locations.date OR (excluded.date = last_locations.date AND (excluded.latitude <> last_locations.latitude
        OR excluded.longitude <> last_locations.longitude OR excluded.horizontal_accuracy <> last_locations.horizontal_accuracy))`);
    this.one = sql.prepare(`${LAST_READ} WHERE user_id = ? AND app_id = ?`);
    this.ofAppStmt = sql.prepare(`${LAST_READ} WHERE app_id = ? ORDER BY user_id LIMIT ?`);
    this.seedsStmt = sql.prepare('SELECT user_id, date, latitude, longitude, horizontal_accuracy FROM last_locations');
    this.removeUserStmt = sql.prepare('DELETE FROM last_locations WHERE user_id = ? AND app_id = ?');
    this.removeAppStmt = sql.prepare('DELETE FROM last_locations WHERE app_id = ?');
  }

  save(points: readonly PointRow[]): Promise<void> {
    if (points.length === 0) return Promise.resolve();
    const latest = newestPerUser(points);
    if (latest.length === 1) {
      const p = latest[0]!;
      return this.sql.writeOne(() => this.upsert.run(p.user_id, p.app_id, ...pointParams(p)));
    }
    return this.sql.write(() => {
      for (const p of latest) this.upsert.run(p.user_id, p.app_id, ...pointParams(p));
    });
  }

  async of(appId: string, userId: string): Promise<LocationDoc | null> {
    const r = this.one.get(userId, appId);
    return r === undefined ? null : pointDoc(r);
  }

  async ofUsers(appId: string, userIds: readonly string[]): Promise<LocationDoc[]> {
    const out: LocationDoc[] = [];
    for (const id of new Set(userIds)) {
      const r = this.one.get(id, appId);
      if (r !== undefined) out.push(pointDoc(r));
    }
    return out;
  }

  async ofApp(appId: string, max: number): Promise<LocationDoc[]> {
    return this.ofAppStmt.all(appId, max).map(pointDoc);
  }

  async seeds(): Promise<LastPointSeed[]> {
    return this.seedsStmt.all();
  }

  removeUser(appId: string, userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeUserStmt.run(userId, appId));
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeAppStmt.run(appId));
  }
}
