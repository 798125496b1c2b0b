// What the run left in the embedded store: the data directory's bytes, and the decision timeline's
// rows and bytes (issue 31: the timeline's cost per point). Read after the service has stopped.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/store/sqlite/driver.js';

export interface StoreSize {
  data_dir_bytes: number;
  timeline_rows: number;
  timeline_bytes: number;
}

export function storeSize(dataDir: string, dbFile: string): StoreSize | null {
  let total = 0;
  for (const name of readdirSync(dataDir)) {
    const s = statSync(path.join(dataDir, name));
    if (s.isFile()) total += s.size;
  }
  try {
    const db = openDatabase(path.join(dataDir, dbFile), { readonly: true, fileMustExist: true });
    try {
      const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'trigger_timeline'").get();
      // Bytes: the pages of the table and of its indexes.
      const row = has
        ? (db.prepare("SELECT (SELECT COUNT(*) FROM trigger_timeline) AS n, (SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = 'trigger_timeline' OR name LIKE 'trigger\\_timeline\\_%' ESCAPE '\\') AS b").get() as { n: number; b: number })
        : { n: 0, b: 0 };
      return { data_dir_bytes: total, timeline_rows: row.n, timeline_bytes: row.b };
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
