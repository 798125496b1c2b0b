// message/device payloads and the dwell clock's service starts on SQLite: plain tables. A
// payload's `data` is JSON text (sent as it came); a start is a row. The release before kept both
// as documents, `(_id, doc)`: layout 0, copied in at open.
import type { Statement } from 'better-sqlite3';
import type { DeviceMessageDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import type { DeviceMessageRepo, ServiceStartRepo } from '../repos/messages.js';
import type { SqliteDb } from './sqlite-db.js';
import { documentTable, type TableSpec } from './tables.js';

const COLUMNS = '_id, app_id, user_id, layer_id, data, date, expires_at';

export const DEVICE_MESSAGE_TABLE: TableSpec = {
  name: 'device_messages',
  version: 1,
  create: [
    `CREATE TABLE device_messages (_id TEXT NOT NULL UNIQUE, app_id TEXT NOT NULL, user_id TEXT NOT NULL, layer_id TEXT, data TEXT NOT NULL,
      date INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
    'CREATE INDEX device_messages_by_user ON device_messages (user_id, date, _id)',
    'CREATE INDEX device_messages_by_expiry ON device_messages (expires_at)',
  ],
  upgrade: {
    0: (db) => {
      const old = documentTable(db, 'device_messages');
      for (const sql of DEVICE_MESSAGE_TABLE.create) db.exec(sql);
      const f = old.field;
      db.exec(`INSERT INTO device_messages (${COLUMNS})
        SELECT _id, ${f('app_id')}, ${f('user_id')}, ${f('layer_id')}, coalesce(json_extract(doc, '$.data'), '{}'), ${f('date')}, ${f('expires_at')}
        FROM ${old.table} ORDER BY rowid`);
      old.drop();
    },
  },
};

interface Row {
  _id: string;
  app_id: string;
  user_id: string;
  layer_id: string | null;
  /** JSON text. */
  data: string;
  date: number;
  expires_at: number;
}

function payloadOf(r: Row): DeviceMessageDoc {
  const d: DeviceMessageDoc = { _id: r._id, app_id: r.app_id, user_id: r.user_id, data: JSON.parse(r.data) as DeviceMessageDoc['data'], date: r.date, expires_at: r.expires_at };
  if (r.layer_id !== null) d.layer_id = r.layer_id;
  return d;
}

const READ = `SELECT ${COLUMNS} FROM device_messages`;

export class SqliteDeviceMessages implements DeviceMessageRepo {
  private readonly insertStmt: Statement<[string, string, string, string | null, string, number, number]>;
  private readonly waitingStmt: Statement<[string, string, number], Row>;
  private readonly waitingOfStmt: Statement<[string, number, number], Row>;
  private readonly takeStmt: Statement<[string, string]>;
  private readonly expiredOfStmt: Statement<[string, string, number]>;
  private readonly expiredStmt: Statement<[number, number]>;
  private readonly removeUserStmt: Statement<[string, string]>;
  private readonly removeAppStmt: Statement<[string]>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(DEVICE_MESSAGE_TABLE);
    this.insertStmt = sql.prepare(`INSERT INTO device_messages (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.waitingStmt = sql.prepare(`${READ} WHERE user_id = ? AND app_id = ? AND expires_at > ? ORDER BY date, _id`);
    this.waitingOfStmt = sql.prepare(`${READ} WHERE user_id IN (SELECT value FROM json_each(?)) AND expires_at > ? ORDER BY date, _id LIMIT ?`);
    this.takeStmt = sql.prepare('DELETE FROM device_messages WHERE _id = ? AND app_id = ?');
    this.expiredOfStmt = sql.prepare('DELETE FROM device_messages WHERE user_id = ? AND app_id = ? AND expires_at <= ?');
    this.expiredStmt = sql.prepare('DELETE FROM device_messages WHERE rowid IN (SELECT rowid FROM device_messages WHERE expires_at <= ? LIMIT ?)');
    this.removeUserStmt = sql.prepare('DELETE FROM device_messages WHERE user_id = ? AND app_id = ?');
    this.removeAppStmt = sql.prepare('DELETE FROM device_messages WHERE app_id = ?');
  }

  insert(d: DeviceMessageDoc): Promise<void> {
    const data = JSON.stringify(d.data);
    return unique(this.sql.writeOne(() => this.insertStmt.run(d._id, d.app_id, d.user_id, d.layer_id ?? null, data, d.date, d.expires_at)));
  }

  async waiting(appId: string, userId: string, now: number): Promise<DeviceMessageDoc[]> {
    return this.waitingStmt.all(userId, appId, now).map(payloadOf);
  }

  async waitingOf(userIds: readonly string[], now: number, max: number): Promise<DeviceMessageDoc[]> {
    if (userIds.length === 0) return [];
    return this.waitingOfStmt.all(JSON.stringify(userIds), now, max).map(payloadOf);
  }

  take(appId: string, id: string): Promise<boolean> {
    return this.sql.runOne(() => this.takeStmt.run(id, appId).changes > 0);
  }

  removeExpiredOf(appId: string, userId: string, now: number): Promise<void> {
    return this.sql.writeOne(() => this.expiredOfStmt.run(userId, appId, now));
  }

  removeExpired(now: number, max: number): Promise<number> {
    return this.sql.runOne(() => this.expiredStmt.run(now, max).changes);
  }

  removeForUser(appId: string, userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeUserStmt.run(userId, appId));
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeAppStmt.run(appId));
  }
}

export const SERVICE_START_TABLE: TableSpec = {
  name: 'service_starts',
  version: 1,
  create: ['CREATE TABLE service_starts (at INTEGER PRIMARY KEY)'],
  upgrade: {
    // The one document (`dwell_clock`) held the starts as an array.
    0: (db) => {
      const old = documentTable(db, 'service_starts');
      for (const sql of SERVICE_START_TABLE.create) db.exec(sql);
      db.exec(`INSERT OR IGNORE INTO service_starts (at) SELECT s.value FROM ${old.table}, json_each(${old.table}.doc, '$.starts') AS s
        WHERE ${old.table}._id = 'dwell_clock' AND s.type = 'integer'`);
      old.drop();
    },
  },
};

export class SqliteServiceStarts implements ServiceStartRepo {
  private readonly allStmt: Statement<[], number>;
  private readonly clearStmt: Statement<[]>;
  private readonly addStmt: Statement<[number]>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(SERVICE_START_TABLE);
    this.allStmt = sql.prepare<[], number>('SELECT at FROM service_starts ORDER BY at').pluck();
    this.clearStmt = sql.prepare('DELETE FROM service_starts');
    this.addStmt = sql.prepare('INSERT OR IGNORE INTO service_starts (at) VALUES (?)');
  }

  async load(): Promise<number[]> {
    return this.allStmt.all();
  }

  save(starts: readonly number[]): Promise<void> {
    return this.sql.write(() => {
      this.clearStmt.run();
      for (const at of starts) this.addStmt.run(at);
    });
  }
}
