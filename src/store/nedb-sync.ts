// Synchronous operations on a loaded NeDB datastore. NeDB runs every call as a task of its
// executor: a chain of promises per call, candidates fetched asynchronously, the in-memory change
// made several turns after the call. Here the change is made at once, in call order, with NeDB's
// own candidate selection, matching, key checks and index maintenance (with its rollback), and its
// modifiers (the plainest of them applied directly: nedb-modify.ts); the lines of what changed go
// to `write` (the group commit), which callers await.
// Reads see every write made before them, as they did behind NeDB's queue.
import { createRequire } from 'node:module';
import { modify } from './nedb-modify.js';
import { quickMatch } from './nedb-quick-match.js';

export type Doc = Record<string, unknown> & { _id?: unknown };
type Query = Record<string, unknown>;
type Pair = { oldDoc: Doc; newDoc: Doc };

/** The parts of NeDB's Datastore used here (all synchronous). */
export interface NedbCore {
  getAllData(): Doc[];
  _getRawCandidates(query: Query): Doc[];
  _prepareDocumentForInsertion(docs: Doc[]): Doc[];
  _insertInCache(docs: Doc[]): void;
  _updateIndexes(pairs: Pair[]): void;
  _removeFromIndexes(doc: Doc): void;
}

const nedbRequire = createRequire(import.meta.url);
const model = nedbRequire('@seald-io/nedb/lib/model.js') as {
  match: (doc: unknown, query: Query) => boolean;
  checkObject: (doc: unknown) => void;
  deepCopy: <D>(doc: D, strictKeys?: boolean) => D;
  compareThings: (a: unknown, b: unknown) => number;
  getDotValue: (doc: unknown, field: string | string[]) => unknown;
};
const Cursor = nedbRequire('@seald-io/nedb/lib/cursor.js') as { prototype: { _project(this: { _projection: Query }, docs: Doc[]): Doc[] } };

export interface SyncFindOptions {
  sort?: Array<[field: string, direction: 1 | -1]>;
  skip?: number;
  limit?: number;
  projection?: Query;
}

export class SyncOps {
  constructor(
    private readonly ds: NedbCore,
    /** Appends the lines of these documents (or deletion markers) to the datafile. */
    private readonly write: (docs: Doc[]) => void,
  ) {}

  /** The stored documents matching `query` (not copies: never handed out). */
  matching(query: Query, limit = Infinity): Doc[] {
    const out: Doc[] = [];
    if (limit <= 0) return out;
    // NeDB's match only where the direct check cannot decide (then for the rest of this call too).
    let quick = true;
    for (const doc of this.ds._getRawCandidates(query)) {
      let hit = quick ? quickMatch(doc, query) : undefined;
      if (hit === undefined) {
        quick = false;
        hit = model.match(doc, query);
      }
      if (hit) {
        out.push(doc);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  /** Copies of the matching documents, sorted, paged and projected as NeDB's cursor would. */
  find(query: Query, o: SyncFindOptions = {}): Doc[] {
    const skip = o.skip ?? 0;
    let docs: Doc[];
    if (o.sort && o.sort.length > 0) {
      docs = sortDocs(this.matching(query), o.sort).slice(skip, o.limit ? skip + o.limit : undefined);
    } else {
      docs = this.matching(query, o.limit ? skip + o.limit : Infinity).slice(skip);
    }
    if (o.projection && Object.keys(o.projection).length > 0) {
      const picked = pickTopLevel(docs, o.projection);
      if (picked) return picked;
      docs = Cursor.prototype._project.call({ _projection: { ...o.projection } }, docs);
    }
    return docs.map((d) => model.deepCopy(d));
  }

  count(query: Query): number {
    return this.matching(query).length;
  }

  /** All or nothing: a unique violation of any document leaves none of them stored. */
  insert(docs: Doc[]): void {
    if (docs.length === 0) return;
    const prepared = this.ds._prepareDocumentForInsertion(docs);
    this.ds._insertInCache(prepared);
    this.write(prepared);
  }

  /** NeDB's update: the modifiers, checks and (on a unique violation) rollback are its own. */
  update(query: Query, update: Query, opts: { multi?: boolean; upsert?: boolean } = {}): { matched: number; upserted: boolean } {
    const found = this.matching(query, opts.multi ? Infinity : 1);
    if (found.length === 0 && opts.upsert) {
      this.insert([upsertDoc(query, update)]);
      return { matched: 0, upserted: true };
    }
    const pairs = found.map((oldDoc) => ({ oldDoc, newDoc: modify(oldDoc, update) }));
    this.ds._updateIndexes(pairs);
    this.write(pairs.map((p) => p.newDoc));
    return { matched: pairs.length, upserted: false };
  }

  /** Whole-document replacements, each of the first document matching its filter. */
  replace(ops: Array<{ filter: Query; replacement: Doc }>): number {
    const written: Doc[] = [];
    try {
      for (const { filter, replacement } of ops) {
        const old = this.matching(filter, 1)[0];
        if (!old) continue;
        const doc = model.deepCopy(replacement);
        doc._id = old._id;
        model.checkObject(doc);
        this.ds._updateIndexes([{ oldDoc: old, newDoc: doc }]);
        written.push(doc);
      }
    } finally {
      // Every replacement applied is persisted, also when a later one fails.
      this.write(written);
    }
    return written.length;
  }

  remove(query: Query, multi: boolean): number {
    const gone = this.matching(query, multi ? Infinity : 1);
    for (const doc of gone) this.ds._removeFromIndexes(doc);
    this.write(gone.map((d) => ({ $$deleted: true, _id: d._id })));
    return gone.length;
  }
}

/**
 * A projection that keeps top-level fields (`{ a: 1, b: 1 }`, `_id` kept unless 0), done directly:
 * NeDB's cursor builds each result through its modifier machinery, and a layer's bounds read
 * 90,000 places that way (~150 ms). Copies of the kept values, as NeDB hands out; undefined for
 * any other projection, which NeDB's cursor does.
 */
function pickTopLevel(docs: Doc[], projection: Query): Doc[] | undefined {
  const keys: string[] = [];
  for (const [k, v] of Object.entries(projection)) {
    if (k === '_id') continue;
    if (v !== 1 || k.includes('.')) return undefined;
    keys.push(k);
  }
  if (keys.length === 0) return undefined;
  const keepId = projection._id !== 0;
  return docs.map((doc) => {
    const out: Doc = {};
    for (const k of keys) if (doc[k] !== undefined) out[k] = model.deepCopy(doc[k]);
    if (keepId) out._id = doc._id;
    return out;
  });
}

/**
 * What an upsert inserts (NeDB's rule): a replacement document as it is; for modifiers, the
 * filter's plain fields with the modifiers applied.
 */
function upsertDoc(query: Query, update: Query): Doc {
  try {
    model.checkObject(update);
    return update;
  } catch {
    return modify(model.deepCopy(query, true), update);
  }
}

/** NeDB's order (compareThings), with a fast path for the common same-type primitives. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return model.compareThings(a, b);
}

/**
 * NeDB's cursor re-reads each key through getDotValue on every comparison: with 10k users that
 * was most of user/list's time (measured with --cpu-prof). Each document's keys are read once.
 */
function sortDocs(docs: Doc[], keys: Array<[string, 1 | -1]>): Doc[] {
  const paths = keys.map(([field]) => field.split('.'));
  const entries = docs.map((doc) => ({ doc, values: paths.map((p) => model.getDotValue(doc, p)) }));
  entries.sort((x, y) => {
    for (let i = 0; i < keys.length; i++) {
      const c = compareValues(x.values[i], y.values[i]);
      if (c !== 0) return keys[i]![1] * c;
    }
    return 0;
  });
  return entries.map((e) => e.doc);
}
