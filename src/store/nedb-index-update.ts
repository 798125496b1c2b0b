// A faster index update for NeDB, for documents whose indexed key does not change. NeDB updates
// every index on every update by removing the old document and inserting the new one; removing a
// value from a key shared by many documents rebuilds that key's whole array (binary-search-tree's
// delete filters it into a new one). Every place of an application shares its `app_id` key, so one
// `$inc: {visits: 1}` on a place cost 7.6 ms of CPU with 100,000 places (measured). When the key is
// unchanged, the old document is replaced by the new one where it stands in its key's array: the
// same index content, found with one scan and no allocation. Anything else (a changed key, array
// keys, a sparse field coming or going) takes NeDB's own path, with its own rollback.
import { createRequire } from 'node:module';

type Doc = Record<string, unknown>;
type Pair = { oldDoc: Doc; newDoc: Doc };

interface NedbIndex {
  _fields: string[];
  sparse: boolean;
  tree: { search(key: unknown): Doc[] };
  update(oldDoc: Doc | Pair[], newDoc?: Doc): void;
}

const nedbRequire = createRequire(import.meta.url);
const Index = nedbRequire('@seald-io/nedb/lib/indexes.js') as { prototype: NedbIndex };
const { getDotValues, compareThings } = nedbRequire('@seald-io/nedb/lib/model.js') as {
  getDotValues: (doc: unknown, fields: string[]) => unknown;
  compareThings: (a: unknown, b: unknown) => number;
};

const PATCHED = Symbol.for('geotrigger.nedbIndexUpdate');
const PATCHED_DS = Symbol.for('geotrigger.nedbKeepIdentity');

interface NedbDatastore {
  indexes: Record<string, NedbIndex>;
  _updateIndexes(oldDoc: Doc | Pair[], newDoc?: Doc): void;
}
const Datastore = nedbRequire('@seald-io/nedb/lib/datastore.js') as { prototype: NedbDatastore };

/** True when every index files newDoc under the same key as oldDoc (plain, non-array keys). */
function keysUnchanged(ds: NedbDatastore, oldDoc: Doc, newDoc: Doc): boolean {
  for (const name in ds.indexes) {
    const fields = ds.indexes[name]!._fields;
    const a = getDotValues(oldDoc, fields);
    const b = getDotValues(newDoc, fields);
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

/** Replaces oldDoc by newDoc in place when their key is the same; false when NeDB must do it. */
function replaceInPlace(index: NedbIndex, oldDoc: Doc, newDoc: Doc): boolean {
  const a = getDotValues(oldDoc, index._fields);
  const b = getDotValues(newDoc, index._fields);
  if (Array.isArray(a) || Array.isArray(b)) return false;
  if (index.sparse && (a === undefined || b === undefined)) return a === undefined && b === undefined;
  if (compareThings(a, b) !== 0) return false;
  const bucket = index.tree.search(a);
  const i = bucket.indexOf(oldDoc);
  if (i < 0) return false;
  bucket[i] = newDoc;
  return true;
}

/**
 * An update that keeps every indexed key (a `$inc` of a place's visits, an outbox row's attempt
 * count, a replaced last location) changes the stored document object in place, so no index has
 * to find it: even replacing it where it stands scanned its key's whole bucket (indexOf), and
 * every place of an application shares one app_id bucket, every outbox row too (measured in the
 * load harness: ~15 % of the main thread with 100,000 places, growing with the outbox during a
 * run). Nothing outside NeDB holds these objects (reads hand out copies), and the executor runs one
 * operation at a time, so the change is seen as the same update NeDB would have made.
 */
function patchKeepIdentity(): void {
  const proto = Datastore.prototype as NedbDatastore & { [PATCHED_DS]?: true };
  if (proto[PATCHED_DS]) return;
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
  proto[PATCHED_DS] = true;
}

export function patchNedbIndexUpdate(): void {
  patchKeepIdentity();
  const proto = Index.prototype as NedbIndex & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const original = proto.update;
  proto.update = function update(this: NedbIndex, oldDoc: Doc | Pair[], newDoc?: Doc) {
    if (!Array.isArray(oldDoc)) {
      if (!replaceInPlace(this, oldDoc, newDoc!)) original.call(this, oldDoc, newDoc);
      return;
    }
    const done: Pair[] = [];
    const rest: Pair[] = [];
    for (const pair of oldDoc) (replaceInPlace(this, pair.oldDoc, pair.newDoc) ? done : rest).push(pair);
    if (rest.length === 0) return;
    try {
      original.call(this, rest);
    } catch (err) {
      // NeDB rolled back its part; roll back ours, so the datastore's revert finds the old documents.
      for (const pair of done) replaceInPlace(this, pair.newDoc, pair.oldDoc);
      throw err;
    }
  };
  proto[PATCHED] = true;
}
