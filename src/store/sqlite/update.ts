// MongoDB updates that SQLite can apply itself ($set, $unset, $inc on plain paths): the document
// is changed inside SQL with json_set / json_remove, so an update reads and writes no JSON in
// JavaScript. Other operators ($push, $pull, $addToSet...) go through mingo on the parsed document.
import { jsonPath } from './filter.js';

export interface SqlUpdate {
  /** The new `doc`, as an SQL expression over the old one. */
  expr: string;
  params: Array<string | number | bigint>;
}

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export function translateUpdate(update: Record<string, unknown>): SqlUpdate | undefined {
  let expr = 'doc';
  const params: SqlUpdate['params'] = [];
  for (const [op, fields] of Object.entries(update)) {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
    const entries = Object.entries(fields as Record<string, unknown>).filter(([k]) => !(op === '$set' && k === '_id'));
    if (entries.some(([k]) => !PATH.test(k) || k === '_id')) return undefined;
    if (entries.length === 0) continue;
    if (op === '$set') {
      // JSON text for every value: numbers keep their exact text, objects and booleans their type.
      expr = `json_set(${expr}, ${entries.map(([k]) => `${jsonPath(k)}, json(?)`).join(', ')})`;
      for (const [, v] of entries) {
        if (v === undefined) return undefined;
        params.push(JSON.stringify(v));
      }
    } else if (op === '$unset') {
      expr = `json_remove(${expr}, ${entries.map(([k]) => jsonPath(k)).join(', ')})`;
    } else if (op === '$inc') {
      if (!entries.every(([, v]) => typeof v === 'number' && Number.isFinite(v))) return undefined;
      // Each increment reads the document as it was before this update, as MongoDB applies them.
      expr = `json_set(${expr}, ${entries.map(([k]) => `${jsonPath(k)}, coalesce(json_extract(doc, ${jsonPath(k)}), 0) + ?`).join(', ')})`;
      for (const [, v] of entries) params.push(Number.isSafeInteger(v) ? BigInt(v as number) : (v as number));
    } else {
      return undefined;
    }
  }
  return { expr, params };
}
