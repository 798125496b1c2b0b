// A faster index update for NeDB, for documents whose indexed keys do not change (a `$inc` of a
// place's visits, an outbox row's attempt count, a replaced last location): the stored document
// object is changed in place, so no index has to find it. NeDB would take every such document out
// of every index and put it back. Anything else (a changed key, array keys, a sparse field coming
// or going) takes NeDB's own path, with its own rollback, over the hash indexes of
// nedb-hash-index.ts.
import { createRequire } from 'node:module';

type Doc = Record<string, unknown>;
type Pair = { oldDoc: Doc; newDoc: Doc };

interface NedbIndex {
  _fields: string[];
}

const nedbRequire = createRequire(import.meta.url);
const { getDotValues, compareThings } = nedbRequire('@seald-io/nedb/lib/model.js') as {
  getDotValues: (doc: unknown, fields: string[]) => unknown;
  compareThings: (a: unknown, b: unknown) => number;
};

const PATCHED = Symbol.for('geotrigger.nedbKeepIdentity');

interface NedbDatastore {
  indexes: Record<string, NedbIndex>;
  _updateIndexes(oldDoc: Doc | Pair[], newDoc?: Doc): void;
}
const Datastore = nedbRequire('@seald-io/nedb/lib/datastore.js') as { prototype: NedbDatastore };

/**
 * NeDB's getDotValues, read directly for the usual index of one plain field: NeDB splits the
 * field name into a new array on every call, and this runs for every index on every update.
 */
function fieldValues(doc: Doc, fields: string[]): unknown {
  if (fields.length === 1 && !fields[0]!.includes('.')) return doc[fields[0]!];
  return getDotValues(doc, fields);
}

/** True when every index files newDoc under the same key as oldDoc (plain, non-array keys). */
function keysUnchanged(ds: NedbDatastore, oldDoc: Doc, newDoc: Doc): boolean {
  for (const name in ds.indexes) {
    const fields = ds.indexes[name]!._fields;
    const a = fieldValues(oldDoc, fields);
    const b = fieldValues(newDoc, fields);
    if (Array.isArray(a) || Array.isArray(b)) return false;
    if (a === undefined || b === undefined ? a !== b : compareThings(a, b) !== 0) return false;
  }
  return true;
}

/** Makes `target` hold exactly the fields of `source` (the document object keeps its identity). */
function becomeCopy(target: Doc, source: Doc): void {
  for (const k of Object.keys(target)) if (!(k in source)) delete target[k];
  Object.assign(target, source);
}

/**
 * Nothing outside the store holds the stored objects (reads hand out copies), and each operation
 * runs to its end before the next (nedb-sync.ts), so an in-place change is seen as the same update
 * NeDB would have made.
 */
export function patchNedbIndexUpdate(): void {
  const proto = Datastore.prototype as NedbDatastore & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const original = proto._updateIndexes;
  proto._updateIndexes = function _updateIndexes(this: NedbDatastore, oldDoc: Doc | Pair[], newDoc?: Doc) {
    const pairs: Pair[] = Array.isArray(oldDoc) ? oldDoc : [{ oldDoc, newDoc: newDoc! }];
    const inPlace: Pair[] = [];
    const rest: Pair[] = [];
    for (const pair of pairs) (keysUnchanged(this, pair.oldDoc, pair.newDoc) ? inPlace : rest).push(pair);
    // The others first: if one breaks a unique index, NeDB rolls them back and nothing has changed.
    if (rest.length > 0) original.call(this, rest);
    for (const pair of inPlace) becomeCopy(pair.oldDoc, pair.newDoc);
  };
  proto[PATCHED] = true;
}
