// MongoDB updates that SQLite can apply itself ($set, $unset, $inc on plain paths): the document
// is changed inside SQL with json_set / json_remove, so an update reads and writes no JSON in
// JavaScript, and a field kept in its own column (engine.ts) is set in that column without
// touching the JSON text at all. Other operators ($push, $pull, $addToSet...) go through mingo on
// the parsed document.
import { update as applyUpdate } from 'mingo';
import { jsonPath, type Columns } from './filter.js';

export interface SqlUpdate {
  /** The new `doc`, as an SQL expression over the old one. */
  expr: string;
  params: Array<string | number | bigint>;
  /** Assignments to columns (`col = …`), after `doc`'s; their parameters follow `params`. */
  columns: string[];
  columnParams: Array<string | number | bigint | null>;
}

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const NO_COLUMNS: Columns = new Set();

const columnValue = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

export function translateUpdate(update: Record<string, unknown>, columns: Columns = NO_COLUMNS): SqlUpdate | undefined {
  let expr = 'doc';
  const params: SqlUpdate['params'] = [];
  const cols: string[] = [];
  const colParams: SqlUpdate['columnParams'] = [];
  const unsetInText: string[] = [];
  for (const [op, fields] of Object.entries(update)) {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
    let entries = Object.entries(fields as Record<string, unknown>).filter(([k]) => !(op === '$set' && k === '_id'));
    if (entries.some(([k]) => !PATH.test(k) || k === '_id')) return undefined;
    if (columns.size > 0) {
      const mine = entries.filter(([k]) => columns.has(k));
      // A column takes strings and numbers; another value for it goes through mingo.
      if (op === '$set' && !mine.every(([, v]) => columnValue(v))) return undefined;
      if (op === '$inc' && !mine.every(([, v]) => typeof v === 'number' && Number.isFinite(v))) return undefined;
      if (op !== '$set' && op !== '$unset' && op !== '$inc' && mine.length > 0) return undefined;
      for (const [k, v] of mine) {
        if (op === '$set') {
          cols.push(`${k} = ?`);
          colParams.push(v as string | number);
        } else if (op === '$unset') {
          cols.push(`${k} = NULL`);
          // A value a column cannot hold (an object) is in the JSON text: removed there too.
          unsetInText.push(k);
        } else if (op === '$inc') {
          cols.push(`${k} = coalesce(${k}, 0) + ?`);
          colParams.push(Number.isSafeInteger(v) ? BigInt(v as number) : (v as number));
        }
      }
      entries = entries.filter(([k]) => !columns.has(k));
    }
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
  if (unsetInText.length > 0) {
    const paths = unsetInText.map(jsonPath);
    // Written only when it holds one (rarely): the text is then left as it is.
    expr = expr === 'doc'
      ? `CASE WHEN ${paths.map((p) => `json_type(doc, ${p}) IS NULL`).join(' AND ')} THEN doc ELSE json_remove(doc, ${paths.join(', ')}) END`
      : `json_remove(${expr}, ${paths.join(', ')})`;
  }
  return { expr, params, columns: cols, columnParams: colParams };
}

/** The SET list of an update: `doc` when it changes, then the columns. */
export function setList(u: SqlUpdate): { sql: string; params: Array<string | number | bigint | null> } {
  const parts = u.expr === 'doc' ? [...u.columns] : [`doc = ${u.expr}`, ...u.columns];
  // An update that changes nothing still matches (and counts) its rows.
  if (parts.length === 0) parts.push('doc = doc');
  return { sql: parts.join(', '), params: [...u.params, ...u.columnParams] };
}

/** The document after a MongoDB update (operators, or a whole replacement). */
export function applied<D extends { _id: string }>(doc: D, update: Record<string, unknown>): D {
  const keys = Object.keys(update);
  if (keys.length > 0 && !keys.some((k) => k.startsWith('$'))) return { ...(update as object), _id: doc._id } as D;
  const set = update.$set as Record<string, unknown> | undefined;
  if (set && '_id' in set) {
    // MongoDB lets $set name the _id it already has (an upsert's document often does); mingo does not.
    const { _id, ...rest } = set;
    if (doc._id !== undefined && _id !== doc._id) throw new Error('an update cannot change _id');
    doc._id = _id as string;
    update = { ...update, $set: rest };
  }
  applyUpdate(doc as Record<string, unknown>, update, undefined, undefined, { cloneMode: 'deep' });
  return doc;
}

/** What an upsert starts from: the filter's plain equalities, as in MongoDB. */
export function seedOf<D extends { _id: string }>(filter: Record<string, unknown>): D {
  const seed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$') || k.includes('.')) continue;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) seed[k] = v;
    else if ('$eq' in (v as object)) seed[k] = (v as { $eq: unknown }).$eq;
  }
  return seed as D;
}
