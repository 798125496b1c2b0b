// MongoDB-style filters on the SQLite engine. What SQL can decide exactly becomes SQL: equality,
// $in, $ne, $nin, ranges and $exists on strings and numbers, $and and $or of those. An indexed
// field holds one scalar in every document, so its conditions compare json_extract directly and
// the declared indexes serve them; any other field may hold an array, whose elements MongoDB
// matches one by one, so its conditions look into json_each, typed as MongoDB compares (a number
// never equals a string). Whatever SQL does not express exactly is left to mingo on the rows SQL
// returns: SQL then only narrows to a superset of the matches.
import { Query } from 'mingo';
import type { FindOptions } from '../collection.js';

type Filter = Record<string, unknown>;
type Scalar = string | number;

export interface SqlFilter {
  /** A WHERE clause (without the keyword), or '' for every row. */
  where: string;
  params: Scalar[];
  /** Matches what SQL cannot decide, or undefined when the SQL is exact. */
  residual: ((doc: object) => boolean) | undefined;
}

const COMPARISONS: Record<string, string> = { $eq: '=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Fields a collection keeps in columns of their own (engine.ts), beside the JSON text. */
export type Columns = ReadonlySet<string>;

const NO_COLUMNS: Columns = new Set();

/** The SQL expression of a document field: the `_id` column, a field's own column, or the field in the JSON text. */
export function fieldExpr(field: string, columns: Columns = NO_COLUMNS): string {
  if (field === '_id') return '_id';
  if (columns.has(field)) return field;
  if (!FIELD.test(field)) throw new Error(`unsupported field name ${JSON.stringify(field)}`);
  return `json_extract(doc, '$.${field}')`;
}

export const jsonPath = (field: string) => {
  if (!FIELD.test(field)) throw new Error(`unsupported field name ${JSON.stringify(field)}`);
  return `'$.${field}'`;
};

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

interface Built {
  sql: string;
  params: Scalar[];
}

/** Conditions on one field, or undefined when SQL cannot decide them exactly. */
function fieldClause(field: string, cond: unknown, indexed: boolean, columns: Columns): Built | undefined {
  const ops: Array<[string, unknown]> =
    cond !== null && typeof cond === 'object' && !Array.isArray(cond) && Object.keys(cond).length > 0 && Object.keys(cond).every((k) => k.startsWith('$'))
      ? Object.entries(cond as Record<string, unknown>)
      : [['$eq', cond]];
  const parts: Built[] = [];
  for (const [op, arg] of ops) {
    const part = opClause(field, op, arg, indexed, columns);
    if (!part) return undefined;
    parts.push(part);
  }
  return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
}

function opClause(field: string, op: string, arg: unknown, indexed: boolean, columns: Columns): Built | undefined {
  const expr = fieldExpr(field, columns);
  if (op === '$exists' && typeof arg === 'boolean') {
    if (field === '_id') return { sql: arg ? '1' : '0', params: [] };
    // A column holds the field's strings and numbers; any other value stays in the JSON text.
    if (columns.has(field)) return { sql: arg ? `(${field} IS NOT NULL OR json_type(doc, ${jsonPath(field)}) IS NOT NULL)` : `(${field} IS NULL AND json_type(doc, ${jsonPath(field)}) IS NULL)`, params: [] };
    return { sql: `json_type(doc, ${jsonPath(field)}) IS ${arg ? 'NOT ' : ''}NULL`, params: [] };
  }
  if (op === '$eq' && arg === null && indexed) return { sql: `${expr} IS NULL`, params: [] };
  if (op in COMPARISONS && isScalar(arg)) {
    if (indexed) return { sql: `${expr} ${COMPARISONS[op]} ?`, params: [arg] };
    // Dotted paths through arrays match differently in MongoDB: left to mingo.
    if (field.includes('.')) return undefined;
    return { sql: `EXISTS (SELECT 1 FROM json_each(doc, ${jsonPath(field)}) WHERE ${element(arg)} AND value ${COMPARISONS[op]} ?)`, params: [arg] };
  }
  if ((op === '$in' || op === '$nin') && Array.isArray(arg) && arg.every(isScalar)) {
    const not = op === '$nin' ? 'NOT ' : '';
    if (arg.length === 0) return { sql: op === '$in' ? '0' : '1', params: [] };
    const marks = arg.map(() => '?').join(',');
    if (indexed) return { sql: op === '$in' ? `${expr} IN (${marks})` : `(${expr} IS NULL OR ${expr} NOT IN (${marks}))`, params: [...arg] };
    if (field.includes('.')) return undefined;
    // Typed like equality: each value matches elements of its own type only.
    const strings = arg.filter((v) => typeof v === 'string');
    const numbers = arg.filter((v) => typeof v === 'number');
    const any: string[] = [];
    if (strings.length) any.push(`(type = 'text' AND value IN (${strings.map(() => '?').join(',')}))`);
    if (numbers.length) any.push(`(type IN ('integer', 'real') AND value IN (${numbers.map(() => '?').join(',')}))`);
    return { sql: `${not}EXISTS (SELECT 1 FROM json_each(doc, ${jsonPath(field)}) WHERE typeof(key) != 'text' AND (${any.join(' OR ')}))`, params: [...strings, ...numbers] };
  }
  if (op === '$ne' && isScalar(arg)) {
    if (indexed) return { sql: `${expr} IS NOT ?`, params: [arg] };
    if (field.includes('.')) return undefined;
    return { sql: `NOT EXISTS (SELECT 1 FROM json_each(doc, ${jsonPath(field)}) WHERE ${element(arg)} AND value = ?)`, params: [arg] };
  }
  return undefined;
}

/** An element of the field (itself, or an array's member, not an object's) of the argument's type. */
const element = (arg: Scalar) => `typeof(key) != 'text' AND type ${typeof arg === 'string' ? "= 'text'" : "IN ('integer', 'real')"}`;

function build(filter: Filter, indexed: ReadonlySet<string>, columns: Columns): { exact: Built[]; inexact: boolean } {
  const exact: Built[] = [];
  let inexact = false;
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(cond)) {
        inexact = true;
        continue;
      }
      const branches = cond.map((c) => build(c as Filter, indexed, columns));
      const all = branches.every((b) => !b.inexact);
      const joined = branches.map((b) => ({ sql: b.exact.length ? `(${b.exact.map((e) => e.sql).join(' AND ')})` : '1', params: b.exact.flatMap((e) => e.params) }));
      if (key === '$and') {
        exact.push(...joined);
        if (!all) inexact = true;
      } else if (all && joined.length > 0) {
        exact.push({ sql: `(${joined.map((j) => j.sql).join(' OR ')})`, params: joined.flatMap((j) => j.params) });
      } else {
        inexact = true;
      }
      continue;
    }
    if (key.startsWith('$') || !FIELD.test(key)) {
      inexact = true;
      continue;
    }
    const clause = fieldClause(key, cond, key === '_id' || indexed.has(key) || columns.has(key), columns);
    if (clause) exact.push(clause);
    else inexact = true;
  }
  return { exact, inexact };
}

/**
 * Translates `filter`. `indexedFields` hold one scalar in every document (documents.ts), so
 * their conditions compare directly and can use the indexes.
 */
export function translateFilter(filter: Filter, indexedFields: ReadonlySet<string>, columns: Columns = NO_COLUMNS): SqlFilter {
  const { exact, inexact } = build(filter, indexedFields, columns);
  let residual: SqlFilter['residual'];
  if (inexact) {
    const query = new Query(filter, {});
    residual = (doc) => query.test(doc as Record<string, unknown>);
  }
  return { where: exact.map((e) => e.sql).join(' AND '), params: exact.flatMap((e) => e.params), residual };
}

/** ORDER BY for a `{ field: 1 | -1 }` sort: missing fields sort first ascending, as null in MongoDB. */
export function orderBy(sort: Array<[string, 1 | -1]> | undefined, columns: Columns = NO_COLUMNS): string {
  if (!sort || sort.length === 0) return 'rowid';
  return sort.map(([field, dir]) => `${fieldExpr(field, columns)} ${dir === 1 ? 'ASC' : 'DESC'}`).join(', ');
}

/** Object sorts (1 / -1, or their names); any other form is refused, not guessed at. */
export function sortKeys(sort: FindOptions['sort']): Array<[string, 1 | -1]> | undefined {
  if (sort === undefined) return undefined;
  if (typeof sort !== 'object' || Array.isArray(sort) || sort instanceof Map) throw new Error('the embedded store takes sorts as { field: 1 | -1 }');
  const keys: Array<[string, 1 | -1]> = [];
  for (const [field, dir] of Object.entries(sort)) {
    if (dir === 1 || dir === 'asc' || dir === 'ascending') keys.push([field, 1]);
    else if (dir === -1 || dir === 'desc' || dir === 'descending') keys.push([field, -1]);
    else throw new Error(`the embedded store cannot sort by ${JSON.stringify(dir)}`);
  }
  return keys;
}
