// Retention of a table keyed by rowid, without an index on its date: rows are stored about in the
// order of their date, so the sweep walks them from the first stored, a window at a time, removing
// those dated before the cutoff, and stops at a window with none. A row dated before the cutoff but
// stored after younger ones (a phone's backlog sent days late) goes once those before it have gone.
import type { SqliteDb } from './sqlite-db.js';

const NAME = /^[a-z_]+$/;

/** Removes up to about `max` rows of `table` dated (`dateColumn`) before `cutoff`; how many went. */
export function walkStored(sql: SqliteDb, table: string, dateColumn: string): (cutoff: number, max: number) => Promise<number> {
  if (!NAME.test(table) || !NAME.test(dateColumn)) throw new Error('bad table or column name');
  // The last rowid of the window of `n` rows after `id` (the table's last when fewer remain).
  const windowEnd = sql.prepare<[number, number], number>(`SELECT max(rowid) FROM (SELECT rowid FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?)`).pluck();
  const remove = sql.prepare<[number, number, number]>(`DELETE FROM ${table} WHERE rowid > ? AND rowid <= ? AND ${dateColumn} < ?`);
  return (cutoff, max) =>
    sql.run(() => {
      let removed = 0;
      let after = -1;
      while (removed < max) {
        const end = windowEnd.get(after, Math.max(1, max - removed));
        if (end === null || end === undefined) break;
        const n = remove.run(after, end, cutoff).changes;
        if (n === 0) break;
        removed += n;
        after = end;
      }
      return removed;
    });
}
