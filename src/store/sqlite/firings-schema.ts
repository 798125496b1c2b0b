// The tables of firings and delivery attempts on the embedded engine, and the move of an older
// release's tables into them at open. Plain columns; the payload is text written once.
//
// Indexes, each paid for on every firing, so only what a read needs:
// - firings_due: the outbox's due callbacks (pending ones by due time, leased ones by the end of
//   their lease); partial, so a finished firing leaves it and a message or gated one never enters.
// - firings_app, firings_user, firings_place: trigger/history's pages (newest first) and counts,
//   a user's recent firings (the engine's rate limits after a restart), user/delete.
// - firings_dead_kept: dead callbacks still keeping their payload (retention drops it).
// - delivery_attempts is keyed by (event_id, attempt) and indexed by time for retention.
import type Database from 'better-sqlite3';
import { errorClassFromText } from '../firings.js';
import { documentTable, tableExists, type TableSpec } from './tables.js';

export const FIRINGS_TABLE: TableSpec = {
  name: 'firings',
  version: 2,
  create: [
    `CREATE TABLE firings (
      event_id TEXT NOT NULL UNIQUE, app_id TEXT NOT NULL, user_id TEXT NOT NULL, trigger_id TEXT NOT NULL, place_id TEXT NOT NULL,
      layer_id TEXT NOT NULL, type TEXT NOT NULL, triggered_on TEXT NOT NULL, delay_s REAL NOT NULL, date INTEGER NOT NULL, received_at INTEGER,
      run INTEGER NOT NULL DEFAULT 0, unlisted INTEGER NOT NULL DEFAULT 0, gate TEXT,
      url TEXT, status TEXT, attempts INTEGER NOT NULL DEFAULT 0, rounds INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER, lease_owner TEXT,
      last_status INTEGER, last_error TEXT, delivered_at INTEGER, last_duration_ms INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
      payload TEXT, redelivery_at INTEGER, redelivery_by TEXT)`,
    'CREATE INDEX firings_due ON firings (next_attempt_at) WHERE next_attempt_at IS NOT NULL',
    'CREATE INDEX firings_app ON firings (app_id, date)',
    'CREATE INDEX firings_user ON firings (user_id, date)',
    'CREATE INDEX firings_place ON firings (place_id, date)',
    "CREATE INDEX firings_dead_kept ON firings (updated_at) WHERE status = 'dead' AND payload IS NOT NULL",
  ],
  upgrade: {
    // Layout 1 was the first typed one (moveOldFirings writes it); 2 adds the redelivery marker.
    1: (db) => {
      db.exec('ALTER TABLE firings ADD COLUMN redelivery_at INTEGER');
      db.exec('ALTER TABLE firings ADD COLUMN redelivery_by TEXT');
    },
  },
};

/** The attempt log as layout 1 made it: an older release's attempts move into it, then it is upgraded. */
const LAYOUT_1_ATTEMPTS = [
  `CREATE TABLE delivery_attempts (
    event_id TEXT NOT NULL, attempt INTEGER NOT NULL, app_id TEXT NOT NULL, at INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
    status_code INTEGER, error_class TEXT, error TEXT, body TEXT, outcome TEXT NOT NULL,
    PRIMARY KEY (event_id, attempt)) WITHOUT ROWID`,
  'CREATE INDEX delivery_attempts_at ON delivery_attempts (at)',
];

export const ATTEMPTS_TABLE: TableSpec = {
  name: 'delivery_attempts',
  version: 2,
  create: [
    `CREATE TABLE delivery_attempts (
      event_id TEXT NOT NULL, attempt INTEGER NOT NULL, app_id TEXT NOT NULL, at INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
      status_code INTEGER, error_class TEXT, error TEXT, body TEXT, outcome TEXT NOT NULL, requested_by TEXT,
      PRIMARY KEY (event_id, attempt)) WITHOUT ROWID`,
    'CREATE INDEX delivery_attempts_at ON delivery_attempts (at)',
  ],
  upgrade: {
    0: (db) => {
      const old = documentTable(db, 'delivery_attempts');
      for (const sql of LAYOUT_1_ATTEMPTS) db.exec(sql);
      moveAttempts(db, old.table);
      old.drop();
    },
    1: (db) => db.exec('ALTER TABLE delivery_attempts ADD COLUMN requested_by TEXT'),
  },
};

/**
 * Moves an older release's firings into the firings table, if its tables are there: one
 * transaction, so a crash leaves them as they were and the next start moves them again.
 */
export function moveOldFirings(db: Database.Database): void {
  const has = (name: string) => tableExists(db, name);
  if (!has('outbox') && !has('trigger_history')) return;
  db.transaction(() => {
    const h = has('trigger_history') ? documentTable(db, 'trigger_history') : undefined;
    const o = has('outbox') ? documentTable(db, 'outbox') : undefined;
    // A field of an old document, qualified by its table's alias: its own column where that
    // release kept one, else the JSON. Only names from the fixed lists below reach the SQL text.
    const aliased = (t: { table: string } | undefined, alias: string) => {
      if (!t) return () => 'NULL';
      const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t.table) as string[]);
      return (name: string) => {
        const json = `json_extract(${alias}.doc, '$.${name}')`;
        return columns.has(name) ? `coalesce(${alias}.${name}, ${json})` : json;
      };
    };
    const hf = aliased(h, 'h');
    const of = aliased(o, 'o');
    const hd = (path: string) => (h ? `json_extract(h.doc, '$.${path}')` : 'NULL');
    const status = of('status');
    // The outbox row is the truth of a callback's delivery; the history row's copy remains where
    // retention took the outbox row. json_extract gives an object payload (rows written before
    // payloads were text) as its JSON text.
    const select = (from: string) => `
      SELECT
        coalesce(${h ? 'h._id' : 'NULL'}, ${o ? 'o._id' : 'NULL'}),
        coalesce(${hf('app_id')}, ${of('app_id')}), coalesce(${hf('user_id')}, ${of('user_id')}),
        coalesce(${hf('trigger_id')}, ${of('trigger_id')}), coalesce(${hf('place_id')}, ${of('place_id')}),
        coalesce(${hf('layer_id')}, ${of('layer_id')}, ''),
        coalesce(${hf('type')}, 'callback'), coalesce(${hf('triggered_on')}, 'enter'), coalesce(${hf('delay_s')}, 0),
        coalesce(${hf('date')}, ${of('created_at')}, 0),
        CASE WHEN ${hf('run')} THEN 1 ELSE 0 END,
        ${h ? 'CASE WHEN h._id IS NULL THEN 1 ELSE 0 END' : '1'},
        ${hf('gate')},
        ${of('url')},
        CASE WHEN ${hf('gate')} IS NOT NULL OR coalesce(${hf('type')}, 'callback') <> 'callback' THEN NULL
             ELSE coalesce(${status}, ${hd('delivery.status')}, 'pending') END,
        coalesce(${of('attempts')}, ${hd('delivery.attempts')}, 0),
        coalesce(${of('rounds')}, 0),
        CASE WHEN ${status} = 'pending' THEN ${of('next_attempt_at')}
             WHEN ${status} = 'delivering' THEN coalesce(${of('lease_until')}, ${of('next_attempt_at')}) END,
        CASE WHEN ${status} = 'delivering' THEN ${of('lease_owner')} END,
        ${of('last_status')},
        CASE WHEN coalesce(${status}, '') <> 'delivered' THEN coalesce(${of('last_error')}, ${hd('delivery.last_error')}) END,
        ${of('delivered_at')}, ${of('last_duration_ms')},
        coalesce(${of('created_at')}, ${hf('date')}, 0),
        coalesce(${of('updated_at')}, ${hd('delivery.updated_at')}, ${hf('date')}, 0),
        CASE WHEN coalesce(${status}, '') = 'delivered' THEN NULL ELSE ${of('payload')} END
      ${from}`;
    const cols = `event_id, app_id, user_id, trigger_id, place_id, layer_id, type, triggered_on, delay_s, date, run, unlisted, gate, url, status,
      attempts, rounds, next_attempt_at, lease_owner, last_status, last_error, delivered_at, last_duration_ms, created_at, updated_at, payload`;
    if (h) db.exec(`INSERT OR IGNORE INTO firings (${cols}) ${select(`FROM ${h.table} h ${o ? `LEFT JOIN ${o.table} o ON o._id = h._id` : ''}`)}`);
    // Callbacks without a history row: trigger/run's stand-in user, or a user deleted since.
    if (o) db.exec(`INSERT OR IGNORE INTO firings (${cols}) ${select(`FROM ${o.table} o ${h ? `LEFT JOIN ${h.table} h ON h._id = o._id WHERE h._id IS NULL` : ''}`)}`);
    if (o) {
      // The attempt that delivered was not logged on its own then: the row's outcome held it.
      db.exec(`INSERT OR IGNORE INTO delivery_attempts (event_id, attempt, app_id, at, duration_ms, status_code, outcome)
        SELECT event_id, attempts, app_id, delivered_at, coalesce(last_duration_ms, 0), last_status, 'delivered'
        FROM firings WHERE status = 'delivered' AND delivered_at IS NOT NULL AND attempts > 0`);
    }
    h?.drop();
    o?.drop();
  })();
}

function moveAttempts(db: Database.Database, table: string): void {
  // A page at a time: a statement cannot write while another reads on the same connection.
  const read = db.prepare(`SELECT rowid, doc FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT 5000`);
  const insert = db.prepare(`INSERT OR IGNORE INTO delivery_attempts (event_id, attempt, app_id, at, duration_ms, status_code, error_class, error, outcome)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (let page = read.all(0) as Array<{ rowid: number; doc: string }>; page.length > 0; page = read.all(page[page.length - 1]!.rowid) as typeof page) {
    for (const row of page) moveAttempt(insert, row.doc);
  }
}

function moveAttempt(insert: Database.Statement, text: string): void {
  const a = JSON.parse(text) as { event_id?: unknown; attempt?: unknown; app_id?: unknown; at?: unknown; duration_ms?: unknown; status_code?: unknown; error?: unknown; outcome?: unknown };
  if (typeof a.event_id !== 'string' || typeof a.attempt !== 'number') return;
  const error = typeof a.error === 'string' ? a.error : null;
  const status = typeof a.status_code === 'number' ? a.status_code : null;
  insert.run(
    a.event_id, a.attempt, typeof a.app_id === 'string' ? a.app_id : '', typeof a.at === 'number' ? a.at : 0,
    typeof a.duration_ms === 'number' ? a.duration_ms : 0, status, error !== null && status === null ? errorClassFromText(error) : null,
    error, a.outcome === 'delivered' || a.outcome === 'dead' ? a.outcome : 'retry',
  );
}
