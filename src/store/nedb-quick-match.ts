// NeDB's own query matching, decided directly for the plainest queries: top-level fields compared
// with a primitive (`{ _id: 'x', status: 'pending' }`) or by $lt/$lte/$gt/$gte/$ne against a
// number or string, $in of primitives and $exists. NeDB reads each field through getDotValue, which
// splits the field name into a new array on every document tested: the largest self time of the
// store under load after JSON (measured with --cpu-prof on the location and callback paths).
// Anything else (dotted fields, array values, dates, regular expressions, logical operators) is
// undecided here and goes to NeDB's `match`, so results are NeDB's in every case.

type Query = Record<string, unknown>;

const isPrimitive = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * A long `$in` list of primitives as a set, made once per list: the live stream's poll names up to
 * 500 users and is tested against every message of them (NeDB's match compared each document with
 * each id: 2.4 s per poll for 1,000 users with 1,000 messages each). undefined: not all primitives.
 */
const inSets = new WeakMap<unknown[], Set<unknown> | undefined>();
const LONG_IN = 16;

function inSet(list: unknown[]): Set<unknown> | undefined {
  if (inSets.has(list)) return inSets.get(list);
  const set = list.every(isPrimitive) ? new Set(list) : undefined;
  inSets.set(list, set);
  return set;
}

/** NeDB's verdict on one comparison operator, for a stored value that is not an array. */
function compare(op: string, have: unknown, want: unknown): boolean | undefined {
  // NeDB: missing, or not equal (=== when either side is a primitive).
  if (op === '$ne') return isPrimitive(want) ? have !== want : undefined;
  if (op === '$in') {
    if (!Array.isArray(want)) return undefined;
    if (want.length >= LONG_IN) {
      const set = inSet(want);
      // Set membership is SameValueZero: it would find NaN, which === never equals.
      return set === undefined ? undefined : set.has(have) && have === have;
    }
    for (const el of want) {
      if (!isPrimitive(el)) return undefined;
      if (have === el) return true;
    }
    // NeDB's equality on a primitive side is ===, so a non-primitive `have` matches none.
    return false;
  }
  // NeDB: any truthy operand (or '') asks for a value, anything else for none.
  if (op === '$exists') return (want || want === '') ? have !== undefined : have === undefined;
  // $lt and the like: NeDB's areComparable wants both numbers or both strings (or dates).
  if (typeof want !== 'number' && typeof want !== 'string') return undefined;
  if (have instanceof Date) return undefined;
  const comparable = typeof have === typeof want;
  switch (op) {
    case '$lt': return comparable && (have as number) < (want as number);
    case '$lte': return comparable && (have as number) <= (want as number);
    case '$gt': return comparable && (have as number) > (want as number);
    case '$gte': return comparable && (have as number) >= (want as number);
    default: return undefined;
  }
}

/** Whether `doc` matches `query` as NeDB's model.match says; undefined when not decided here. */
export function quickMatch(doc: Record<string, unknown>, query: Query): boolean | undefined {
  let result = true;
  for (const key in query) {
    if (!Object.prototype.hasOwnProperty.call(query, key)) continue;
    if (key.charCodeAt(0) === 36 /* $ */ || key.includes('.')) return undefined;
    const have = doc[key];
    // An array value matches if any element does: NeDB's rule, left to NeDB.
    if (Array.isArray(have)) return undefined;
    const want = query[key];
    if (isPrimitive(want)) {
      if (have !== want) result = false;
      continue;
    }
    if (typeof want !== 'object' || Array.isArray(want) || want instanceof Date || want instanceof RegExp) return undefined;
    let operators = 0;
    for (const op in want) {
      if (!Object.prototype.hasOwnProperty.call(want, op)) continue;
      if (op.charCodeAt(0) !== 36) return undefined; // a sub-document (or a mix NeDB refuses)
      const verdict = compare(op, have, (want as Query)[op]);
      if (verdict === undefined) return undefined;
      if (!verdict) result = false;
      operators++;
    }
    if (operators === 0) return undefined; // `{}`: NeDB compares documents
  }
  // Every part was decided: a failing part still waits for the rest to be decided, so that a
  // query NeDB would refuse (an unknown operator further on) is refused by NeDB, not answered.
  return result;
}
