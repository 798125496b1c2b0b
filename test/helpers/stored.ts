// What the embedded store holds, read straight from its database file's tables (whatever their
// layout: a JSON `doc`, columns, or both), for tests that check what is stored beyond the API:
// nothing left of a deleted application, nothing of one tenant changed by another.
import type { SqliteEngine } from '../../src/store/sqlite/engine.js';
import type { TestService } from './server.js';

type Stored = Record<string, unknown> & { _id?: unknown };

function rowsOf(service: TestService, table: string): Stored[] {
  const db = (service.app.ctx.store.engine as SqliteEngine).db;
  // In storage order (tables without a rowid: their key's).
  const hasRowid = db.prepare(`SELECT 1 FROM pragma_table_list WHERE name = ? AND wr = 0`).get(table) !== undefined;
  return (db.prepare(`SELECT * FROM ${table}${hasRowid ? ' ORDER BY rowid' : ''}`).all() as Array<Record<string, unknown>>).map((row) => {
    const { doc, ...columns } = row;
    const fromDoc = typeof doc === 'string' ? (JSON.parse(doc) as Stored) : {};
    for (const [k, v] of Object.entries(columns)) if (v !== null && fromDoc[k] === undefined) fromDoc[k] = v;
    return fromDoc;
  });
}

/**
 * Sets a field of a stored document (a cold object's JSON `doc`) straight in the database: a write
 * another process made, which this process's store reported to no one.
 */
export function setStoredField(service: TestService, table: 'users', id: string, field: string, value: string | number): void {
  if (!/^[a-z_]+$/.test(field)) throw new Error(`bad field ${field}`);
  const db = (service.app.ctx.store.engine as SqliteEngine).db;
  db.prepare(`UPDATE ${table} SET doc = json_set(doc, '$.${field}', ?) WHERE _id = ?`).run(value, id);
}

/** Every table of the database, by name. */
export function storedTables(service: TestService): string[] {
  const db = (service.app.ctx.store.engine as SqliteEngine).db;
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
}

/** The stored objects of `table` whose fields equal `where`'s. */
export function storedRows(service: TestService, table: string, where: Record<string, unknown>): number {
  return rowsOf(service, table).filter((o) => Object.entries(where).every(([k, v]) => o[k] === v)).length;
}

/** Every stored object of the application, table by table, by id. */
export function storedOfApp(service: TestService, appId: string): Array<[string, Stored[]]> {
  return storedTables(service).map((table) => [
    table,
    rowsOf(service, table).filter((o) => o.app_id === appId || (table === 'applications' && o._id === appId))
      .sort((a, b) => String(a._id).localeCompare(String(b._id))),
  ]);
}
