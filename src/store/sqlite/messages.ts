// Stored messages on SQLite: a plain table with a column per field (a group message's extra
// fields, `data`, as JSON text). Rowid order is insertion order; the id is unique. Indexes: a
// user's messages by date (message/list, the stream's queue, the poll) and all by date
// (retention). The release before kept each message as a document, `(_id, doc)`: layout 0, copied
// in at open.
import type { Statement } from 'better-sqlite3';
import type { MessageDoc } from '../documents.js';
import { unique } from '../duplicate-key.js';
import { pageBounds, type Page, type PageRequest } from '../paging.js';
import type { MessageRepo, QueueCursor } from '../repos/messages.js';
import type { SqliteDb } from './sqlite-db.js';
import { documentTable, type TableSpec } from './tables.js';

const FIELDS = ['_id', 'app_id', 'user_id', 'date', 'text', 'url', 'layer_id', 'trigger_id', 'place_id', 'event_id', 'group_token', 'data', 'delivered_at', 'pushed_at'] as const;
const COLUMNS = FIELDS.join(', ');

export const MESSAGE_TABLE: TableSpec = {
  name: 'messages',
  version: 1,
  create: [
    `CREATE TABLE messages (
      _id TEXT NOT NULL UNIQUE, app_id TEXT NOT NULL, user_id TEXT NOT NULL, date INTEGER NOT NULL, text TEXT NOT NULL, url TEXT NOT NULL,
      layer_id TEXT, trigger_id TEXT, place_id TEXT, event_id TEXT, group_token TEXT, data TEXT, delivered_at INTEGER, pushed_at INTEGER)`,
    'CREATE INDEX messages_by_user ON messages (user_id, date, _id)',
    'CREATE INDEX messages_by_date ON messages (date)',
  ],
  upgrade: {
    0: (db) => {
      const old = documentTable(db, 'messages');
      for (const sql of MESSAGE_TABLE.create) db.exec(sql);
      const f = old.field;
      db.exec(`INSERT INTO messages (${COLUMNS})
        SELECT _id, ${f('app_id')}, ${f('user_id')}, ${f('date')}, coalesce(${f('text')}, ''), coalesce(${f('url')}, ''), ${f('layer_id')},
          ${f('trigger_id')}, ${f('place_id')}, ${f('event_id')}, ${f('group_token')}, json_extract(doc, '$.data'), ${f('delivered_at')}, ${f('pushed_at')}
        FROM ${old.table} ORDER BY rowid`);
      old.drop();
    },
  },
};

interface Row {
  _id: string;
  app_id: string;
  user_id: string;
  date: number;
  text: string;
  url: string;
  layer_id: string | null;
  trigger_id: string | null;
  place_id: string | null;
  event_id: string | null;
  group_token: string | null;
  /** JSON text. */
  data: string | null;
  delivered_at: number | null;
  pushed_at: number | null;
}

function messageOf(r: Row): MessageDoc {
  const m: MessageDoc = { _id: r._id, app_id: r.app_id, user_id: r.user_id, text: r.text, url: r.url, date: r.date };
  if (r.layer_id !== null) m.layer_id = r.layer_id;
  if (r.trigger_id !== null) m.trigger_id = r.trigger_id;
  if (r.place_id !== null) m.place_id = r.place_id;
  if (r.event_id !== null) m.event_id = r.event_id;
  if (r.group_token !== null) m.group_token = r.group_token;
  if (r.data !== null) m.data = JSON.parse(r.data) as MessageDoc['data'];
  if (r.delivered_at !== null) m.delivered_at = r.delivered_at;
  if (r.pushed_at !== null) m.pushed_at = r.pushed_at;
  return m;
}

function paramsOf(m: MessageDoc): unknown[] {
  return [
    m._id, m.app_id, m.user_id, m.date, m.text, m.url, m.layer_id ?? null, m.trigger_id ?? null, m.place_id ?? null, m.event_id ?? null,
    m.group_token ?? null, m.data === undefined ? null : JSON.stringify(m.data), m.delivered_at ?? null, m.pushed_at ?? null,
  ];
}

const READ = `SELECT ${COLUMNS} FROM messages`;
const OWN = 'user_id = ? AND app_id = ?';

export class SqliteMessages implements MessageRepo {
  private readonly insertStmt: Statement<unknown[]>;
  private readonly insertNewStmt: Statement<unknown[]>;
  private readonly getStmt: Statement<[string, string], Row>;
  private readonly deliveredStmt: Statement<[string, string], { _id: string; delivered_at: number | null }>;
  private readonly pageStmt: Statement<[string, string, number, number], Row>;
  private readonly countStmt: Statement<[string, string], number>;
  private readonly queueStmt: Statement<[string, string, number, number | null, number | null, number | null, string | null, number], Row>;
  private readonly undeliveredStmt: Statement<[string, number], Row>;
  private readonly markDeliveredStmt: Statement<[number, string, string]>;
  private readonly markPushedStmt: Statement<[number, string, string]>;
  private readonly firstStmt: Statement<[string, string, string], { trigger_id: string; first: number }>;
  private readonly sentStmt: Statement<[string], number>;
  private readonly removeUserStmt: Statement<[string, string]>;
  private readonly removeOldStmt: Statement<[number, number]>;
  private readonly removeAppStmt: Statement<[string]>;

  constructor(private readonly sql: SqliteDb) {
    sql.table(MESSAGE_TABLE);
    const values = FIELDS.map(() => '?').join(', ');
    this.insertStmt = sql.prepare(`INSERT INTO messages (${COLUMNS}) VALUES (${values})`);
    this.insertNewStmt = sql.prepare(`INSERT INTO messages (${COLUMNS}) VALUES (${values}) ON CONFLICT (_id) DO NOTHING`);
    this.getStmt = sql.prepare(`${READ} WHERE _id = ? AND app_id = ?`);
    this.deliveredStmt = sql.prepare('SELECT _id, delivered_at FROM messages WHERE _id IN (SELECT value FROM json_each(?)) AND app_id = ?');
    this.pageStmt = sql.prepare(`${READ} WHERE ${OWN} ORDER BY date DESC, _id DESC LIMIT ? OFFSET ?`);
    this.countStmt = sql.prepare<[string, string], number>(`SELECT count(*) FROM messages WHERE ${OWN}`).pluck();
    // The cursor's three parameters are null on the first page.
    this.queueStmt = sql.prepare(`${READ} WHERE ${OWN} AND (delivered_at IS NULL OR delivered_at >= ?)
      AND (? IS NULL OR date > ? OR (date = ? AND _id > ?)) ORDER BY date, _id LIMIT ?`);
    this.undeliveredStmt = sql.prepare(`${READ} WHERE user_id IN (SELECT value FROM json_each(?)) AND delivered_at IS NULL ORDER BY date, _id LIMIT ?`);
    this.markDeliveredStmt = sql.prepare('UPDATE messages SET delivered_at = ? WHERE _id = ? AND app_id = ? AND delivered_at IS NULL');
    this.markPushedStmt = sql.prepare('UPDATE messages SET pushed_at = ? WHERE _id = ? AND app_id = ?');
    this.firstStmt = sql.prepare(`SELECT trigger_id, min(date) AS first FROM messages WHERE ${OWN} AND trigger_id IN (SELECT value FROM json_each(?)) GROUP BY trigger_id`);
    this.sentStmt = sql.prepare<[string], number>('SELECT date FROM messages WHERE app_id = ? AND trigger_id IS NULL').pluck();
    this.removeUserStmt = sql.prepare(`DELETE FROM messages WHERE ${OWN}`);
    this.removeOldStmt = sql.prepare('DELETE FROM messages WHERE rowid IN (SELECT rowid FROM messages WHERE date < ? LIMIT ?)');
    this.removeAppStmt = sql.prepare('DELETE FROM messages WHERE app_id = ?');
  }

  insert(doc: MessageDoc): Promise<void> {
    const params = paramsOf(doc);
    return unique(this.sql.writeOne(() => this.insertStmt.run(...params)));
  }

  insertNew(docs: readonly MessageDoc[]): Promise<Set<string>> {
    const params = docs.map(paramsOf);
    return this.sql.run(() => {
      const taken = new Set<string>();
      params.forEach((p, i) => {
        if (this.insertNewStmt.run(...p).changes === 0) taken.add(docs[i]!._id);
      });
      return taken;
    });
  }

  async get(appId: string, id: string): Promise<MessageDoc | null> {
    const r = this.getStmt.get(id, appId);
    return r ? messageOf(r) : null;
  }

  async deliveredAt(appId: string, ids: readonly string[]): Promise<Map<string, number | undefined>> {
    if (ids.length === 0) return new Map();
    return new Map(this.deliveredStmt.all(JSON.stringify(ids), appId).map((r) => [r._id, r.delivered_at ?? undefined]));
  }

  async page(appId: string, userId: string, page: PageRequest): Promise<Page<MessageDoc>> {
    const { offset, limit } = pageBounds(page);
    return { items: this.pageStmt.all(userId, appId, limit, offset).map(messageOf), total: this.countStmt.get(userId, appId)! };
  }

  async queue(appId: string, userId: string, since: number, after: QueueCursor | undefined, max: number): Promise<MessageDoc[]> {
    const d = after?.date ?? null;
    return this.queueStmt.all(userId, appId, since, d, d, d, after?._id ?? null, max).map(messageOf);
  }

  async undelivered(userIds: readonly string[], max: number): Promise<MessageDoc[]> {
    if (userIds.length === 0) return [];
    return this.undeliveredStmt.all(JSON.stringify(userIds), max).map(messageOf);
  }

  markDelivered(appId: string, id: string, at: number): Promise<boolean> {
    return this.sql.runOne(() => this.markDeliveredStmt.run(at, id, appId).changes > 0);
  }

  markPushed(appId: string, id: string, at: number): Promise<void> {
    return this.sql.writeOne(() => this.markPushedStmt.run(at, id, appId));
  }

  async firstByTrigger(appId: string, userId: string, triggerIds: readonly string[]): Promise<Map<string, number>> {
    if (triggerIds.length === 0) return new Map();
    return new Map(this.firstStmt.all(userId, appId, JSON.stringify(triggerIds)).map((r) => [r.trigger_id, r.first]));
  }

  async sentDates(appId: string): Promise<number[]> {
    return this.sentStmt.all(appId);
  }

  removeForUser(appId: string, userId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeUserStmt.run(userId, appId));
  }

  removeDatedBefore(cutoff: number, max: number): Promise<number> {
    return this.sql.runOne(() => this.removeOldStmt.run(cutoff, max).changes);
  }

  removeForApp(appId: string): Promise<void> {
    return this.sql.writeOne(() => this.removeAppStmt.run(appId));
  }
}
