// MongoDB-style filters on the SQLite engine: the conditions on indexed fields become SQL (so the
// declared indexes serve them), and whatever SQL does not express exactly is matched by mingo on
// the rows SQL returns. SQL only ever narrows to a superset of the matches; mingo has the last word.
import { Query } from 'mingo';

type Filter = Record<string, unknown>;
type Scalar = string | number;

export interface SqlFilter {
  /** A WHERE clause (without the keyword), or '' for every row. */
  where: string;
  params: Scalar[];
  /** Matches what SQL cannot decide, or undefined when the SQL is exact. */
  residual: ((doc: object) => boolean) | undefined;
}

const COMPARISONS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** The SQL expression of a document field: the `_id` column, or the field in the JSON text. */
export function fieldExpr(field: string): string {
  if (field === '_id') return '_id';
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(field)) throw new Error(`unsupported field name ${JSON.stringify(field)}`);
  return `json_extract(doc, '$.${field}')`;
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Translates `filter`. `scalarFields` are the fields known to hold one scalar in every document
 * (the indexed ones): only conditions on them go to SQL, since a field holding an array matches an
 * equality on any of its elements in MongoDB, which a SQL comparison would miss.
 */
export function translateFilter(filter: Filter, scalarFields: ReadonlySet<string>): SqlFilter {
  const clauses: string[] = [];
  const params: Scalar[] = [];
  let exact = true;
  for (const [field, cond] of Object.entries(filter)) {
    if (field.startsWith('$') || (field !== '_id' && !scalarFields.has(field))) {
      exact = false;
      continue;
    }
    const expr = fieldExpr(field);
    if (isScalar(cond)) {
      clauses.push(`${expr} = ?`);
      params.push(cond);
      continue;
    }
    if (cond === null || typeof cond !== 'object' || Array.isArray(cond)) {
      exact = false;
      continue;
    }
    for (const [op, arg] of Object.entries(cond as Record<string, unknown>)) {
      if (op === '$in' && Array.isArray(arg) && arg.every(isScalar)) {
        if (arg.length === 0) clauses.push('0');
        else clauses.push(`${expr} IN (${arg.map(() => '?').join(',')})`);
        params.push(...arg);
      } else if (op === '$eq' && isScalar(arg)) {
        clauses.push(`${expr} = ?`);
        params.push(arg);
      } else if (op in COMPARISONS && isScalar(arg)) {
        // Exact for fields that hold one type, as the indexed ones do (documents.ts).
        clauses.push(`${expr} ${COMPARISONS[op]} ?`);
        params.push(arg);
      } else {
        exact = false;
      }
    }
  }
  let residual: SqlFilter['residual'];
  if (!exact) {
    const query = new Query(filter, {});
    residual = (doc) => query.test(doc as Record<string, unknown>);
  }
  return { where: clauses.join(' AND '), params, residual };
}

/** ORDER BY for a `{ field: 1 | -1 }` sort: missing fields sort first ascending, as null in MongoDB. */
export function orderBy(sort: Array<[string, 1 | -1]> | undefined): string {
  if (!sort || sort.length === 0) return 'rowid';
  return sort.map(([field, dir]) => `${fieldExpr(field)} ${dir === 1 ? 'ASC' : 'DESC'}`).join(', ');
}
