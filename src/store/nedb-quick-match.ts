// NeDB's own query matching, decided directly for the plainest queries: top-level fields compared
// with a primitive (`{ _id: 'x', status: 'pending' }`) or by $lt/$lte/$gt/$gte/$ne against a
// number or string, $in of primitives and $exists. NeDB reads each field through getDotValue,
// which splits the field name into a new array on every document tested: the largest self time of
// the store under load after JSON (measured with --cpu-prof on the location and callback paths).
// Anything else (dotted fields, array values, dates, regular expressions, logical operators) is
// undecided here and goes to NeDB's `match`, so results are NeDB's in every case.
// A query is read once into a list of tests (quickMatcher), then each candidate document costs only
// those tests: read per document, the query's own keys and operators were half of a scan's time.

type Query = Record<string, unknown>;
type Doc = Record<string, unknown>;
/** NeDB's verdict on one part of a query for a stored value that is not an array; undefined: NeDB's to say. */
type Test = (have: unknown) => boolean | undefined;

const isPrimitive = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A long `$in` list is tested through a set: the live stream's poll names up to 500 users and is
 * tested against every message of them (NeDB's match compared each document with each id).
 */
const LONG_IN = 16;

/** The test of one comparison operator, or undefined when NeDB must decide (whatever the document). */
function operatorTest(op: string, want: unknown): Test | undefined {
  // NeDB: missing, or not equal (=== when either side is a primitive).
  if (op === '$ne') return isPrimitive(want) ? (have) => have !== want : undefined;
  if (op === '$in') {
    if (!Array.isArray(want) || !want.every(isPrimitive)) return undefined;
    // NeDB's equality on a primitive side is ===, so a non-primitive `have` matches none. Set
    // membership is SameValueZero: it would find NaN, which === never equals.
    if (want.length >= LONG_IN) {
      const set = new Set<unknown>(want);
      return (have) => set.has(have) && have === have;
    }
    return (have) => {
      for (const el of want) if (have === el) return true;
      return false;
    };
  }
  // NeDB: any truthy operand (or '') asks for a value, anything else for none.
  if (op === '$exists') return want || want === '' ? (have) => have !== undefined : (have) => have === undefined;
  // $lt and the like: NeDB's areComparable wants both numbers or both strings (or dates).
  if (typeof want !== 'number' && typeof want !== 'string') return undefined;
  const kind = typeof want;
  const cmp = (have: unknown): boolean | undefined => (have instanceof Date ? undefined : typeof have === kind);
  switch (op) {
    case '$lt': return (have) => cmp(have) && (have as number) < (want as number);
    case '$lte': return (have) => cmp(have) && (have as number) <= (want as number);
    case '$gt': return (have) => cmp(have) && (have as number) > (want as number);
    case '$gte': return (have) => cmp(have) && (have as number) >= (want as number);
    default: return undefined;
  }
}

/** Every operator of one field's condition, all of which must hold. */
function allOf(tests: Test[]): Test {
  if (tests.length === 1) return tests[0]!;
  return (have) => {
    let result = true;
    for (const t of tests) {
      const v = t(have);
      if (v === undefined) return undefined;
      if (!v) result = false;
    }
    return result;
  };
}

/**
 * A function saying whether a document matches `query` as NeDB's model.match would (undefined for
 * a document it cannot decide: an array or date where the query compares); undefined when no
 * document can be decided here (the query's shape is NeDB's to read, or to refuse).
 */
export function quickMatcher(query: Query): ((doc: Doc) => boolean | undefined) | undefined {
  const keys: string[] = [];
  const tests: Test[] = [];
  for (const key in query) {
    if (!own(query, key)) continue;
    if (key.charCodeAt(0) === 36 /* $ */ || key.includes('.')) return undefined;
    const want = query[key];
    let test: Test | undefined;
    if (isPrimitive(want)) test = (have) => have === want;
    else {
      if (typeof want !== 'object' || Array.isArray(want) || want instanceof Date || want instanceof RegExp) return undefined;
      const ops: Test[] = [];
      for (const op in want) {
        if (!own(want, op)) continue;
        if (op.charCodeAt(0) !== 36) return undefined; // a sub-document (or a mix NeDB refuses)
        const t = operatorTest(op, (want as Query)[op]);
        if (!t) return undefined;
        ops.push(t);
      }
      if (ops.length === 0) return undefined; // `{}`: NeDB compares documents
      test = allOf(ops);
    }
    keys.push(key);
    tests.push(test);
  }
  return (doc) => {
    let result = true;
    for (let i = 0; i < keys.length; i++) {
      const have = doc[keys[i]!];
      // An array value matches if any element does: NeDB's rule, left to NeDB.
      if (Array.isArray(have)) return undefined;
      const v = tests[i]!(have);
      if (v === undefined) return undefined;
      if (!v) result = false;
    }
    return result;
  };
}

/** Whether `doc` matches `query` as NeDB's model.match says; undefined when not decided here. */
export function quickMatch(doc: Doc, query: Query): boolean | undefined {
  return quickMatcher(query)?.(doc);
}
