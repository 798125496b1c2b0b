// Synchronous operations on a loaded NeDB datastore. NeDB runs every call as a task of its
// executor: a chain of promises per call, candidates fetched asynchronously, the in-memory change
// made several turns after the call. Here the change is made at once, in call order, with NeDB's
// own candidate selection, matching, key checks and index maintenance (with its rollback), and its
// modifiers (the plainest of them applied directly: nedb-modify.ts); the lines of what changed go
// to `write` (the group commit), which callers await.
// Reads see every write made before them, as they did behind NeDB's queue.
import { createRequire } from 'node:module';
import { modify } from './nedb-modify.js';
import { quickMatcher } from './nedb-quick-match.js';

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
    // NeDB's match only where the direct check cannot decide (the query, or this document).
    const quick = quickMatcher(query);
    for (const doc of this.ds._getRawCandidates(query)) {
      let hit = quick?.(doc);
      if (hit === undefined) hit = model.match(doc, query);
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
      docs = sortDocs(this.matching(query), o.sort, o.limit ? skip + o.limit : undefined).slice(skip, o.limit ? skip + o.limit : undefined);
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

interface Entry {
  doc: Doc;
  values: unknown[];
  /** Position among the matches: ties keep it, as the stable full sort does. */
  at: number;
}

/** Entry order: the sort keys, then the position among the matches. */
function compareEntries(x: Entry, y: Entry, keys: Array<[string, 1 | -1]>): number {
  for (let i = 0; i < keys.length; i++) {
    const c = compareValues(x.values[i], y.values[i]);
    if (c !== 0) return keys[i]![1] * c;
  }
  return x.at - y.at;
}

/**
 * The documents in sort order; with `take`, only the first `take` of that order. NeDB's cursor
 * re-reads each key through getDotValue on every comparison: with 10k users that was most of
 * user/list's time (measured with --cpu-prof), so each document's keys are read once. A page of a
 * long list (the 10 newest of a user's 180,000 history points: 60-140 ms sorting them all) keeps
 * only the best `take` as it goes, in a heap: n log take comparisons instead of n log n.
 */
function sortDocs(docs: Doc[], keys: Array<[string, 1 | -1]>, take?: number): Doc[] {
  const paths = keys.map(([field]) => field.split('.'));
  const valuesOf = (doc: Doc) => paths.map((p) => (p.length === 1 ? doc[p[0]!] : model.getDotValue(doc, p)));
  if (take !== undefined && take < docs.length / 4) {
    const top = topEntries(docs, keys, valuesOf, take);
    if (top) return top.map((e) => e.doc);
  }
  const entries = docs.map((doc, at): Entry => ({ doc, values: valuesOf(doc), at }));
  entries.sort((x, y) => compareEntries(x, y, keys));
  return entries.map((e) => e.doc);
}

const isNaNValue = (v: unknown) => typeof v === 'number' && v !== v;

/**
 * The first `take` entries in sort order, kept in a heap whose root is the last of them; undefined
 * when a sort value is NaN, which compares equal to every number (no consistent order): the full
 * sort's answer is then whatever its algorithm makes of it, and only it can give the same.
 */
function topEntries(docs: Doc[], keys: Array<[string, 1 | -1]>, valuesOf: (doc: Doc) => unknown[], take: number): Entry[] | undefined {
  const heap: Entry[] = [];
  if (take <= 0) return heap;
  // "Later in the order" is "greater": the root is the greatest kept entry.
  const greater = (i: number, j: number) => compareEntries(heap[i]!, heap[j]!, keys) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const [first, dir] = keys[0]!;
  const firstPath = first.split('.');
  // Documents are matched in the order they were stored, which for histories, queues and lists is
  // the order of their dates: read newest-first sorts from the end, so the first `take` read are
  // kept and the rest fail the cheap test below. The result does not depend on it (ties go by `at`).
  const fromEnd = dir === -1;
  for (let n = 0; n < docs.length; n++) {
    const at = fromEnd ? docs.length - 1 - n : n;
    const doc = docs[at]!;
    if (heap.length === take) {
      // Past the greatest kept entry on the first key alone: not among the first, nothing built.
      const v = firstPath.length === 1 ? doc[first] : model.getDotValue(doc, firstPath);
      if (isNaNValue(v)) return undefined;
      if (dir * compareValues(v, heap[0]!.values[0]) > 0) continue;
    }
    const entry: Entry = { doc, values: valuesOf(doc), at };
    if (entry.values.some(isNaNValue)) return undefined;
    if (heap.length < take) {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0 && greater(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
      continue;
    }
    if (compareEntries(entry, heap[0]!, keys) > 0) continue;
    heap[0] = entry;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && greater(l, m)) m = l;
      if (r < heap.length && greater(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  }
  return heap.sort((x, y) => compareEntries(x, y, keys));
}
