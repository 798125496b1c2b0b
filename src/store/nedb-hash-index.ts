// NeDB's indexes on hash maps instead of AVL trees. NeDB files every document under each index key
// in a tree that compares keys with its generic compareThings at each level, and keeps the
// documents of a shared key in an array that every removal filters into a new one: taking an
// outbox row out of the 'delivering' key costs as much as there are rows in flight, a machine
// record out of its trigger as many as that trigger has records. Here a key is one Map lookup and a
// removal at most one Set delete (measured with 100,000 documents: insert 9.6 → 6 µs, findOne by
// _id 4.4 → 2.6 µs, an update moving a row out of a key all of them share 1,400 → 11 µs). No query
// here asks an indexed field for a range, so no order is needed; a range query still works, by a
// scan of the keys. NeDB's Index class stays (its handling of sparse and array keys, `$in`, and
// the rollback of a failed update); only the structure under it changes.
import { createRequire } from 'node:module';
import { valuesOf, withoutValue, withValue, type OneOrSet } from './one-or-set.js';

type Doc = Record<string, unknown>;
type Bounds = { $lt?: unknown; $lte?: unknown; $gt?: unknown; $gte?: unknown };
interface IndexOptions {
  fieldName: string;
  unique?: boolean;
  sparse?: boolean;
}

const nedbRequire = createRequire(import.meta.url);
const Index = nedbRequire('@seald-io/nedb/lib/indexes.js') as new (options: IndexOptions) => {
  tree: unknown;
  fieldName: string;
  unique: boolean;
  insert(doc: Doc | Doc[]): void;
};
const { compareThings, getDotValue } = nedbRequire('@seald-io/nedb/lib/model.js') as {
  compareThings: (a: unknown, b: unknown) => number;
  getDotValue: (doc: unknown, field: string[]) => unknown;
};

/**
 * The Map key of an index value. Strings, numbers, booleans, null and undefined are their own
 * keys (Map tells 1 from '1', as compareThings does); a Date or another object gets a string that
 * no plain string key can take, since those are kept apart in `exotic`.
 */
function exoticKey(k: object): string {
  return k instanceof Date ? `date:${k.getTime()}` : `json:${JSON.stringify(k)}`;
}

/** One document under a key (most keys: ids, event ids) or, from the second on, a Set of them. */
type Slot = OneOrSet<Doc>;

/** The part of binary-search-tree's API that NeDB's Index uses, over Maps from key to documents. */
class HashTree {
  /** Plain keys map straight to their documents: no wrapper object per key (GC counts every one). */
  private readonly plain = new Map<unknown, Slot>();
  private readonly exotic = new Map<string, { key: unknown; slot: Slot }>();

  constructor(private readonly unique: boolean) {}

  private get(key: unknown): Slot | undefined {
    return typeof key === 'object' && key !== null ? this.exotic.get(exoticKey(key))?.slot : this.plain.get(key);
  }

  private put(key: unknown, slot: Slot | undefined): void {
    const isExotic = typeof key === 'object' && key !== null;
    if (slot === undefined) {
      if (isExotic) this.exotic.delete(exoticKey(key));
      else this.plain.delete(key);
    } else if (isExotic) {
      this.exotic.set(exoticKey(key), { key, slot });
    } else {
      this.plain.set(key, slot);
    }
  }

  insert(key: unknown, doc: Doc): void {
    const slot = this.get(key);
    if (slot === undefined) return this.put(key, doc);
    if (this.unique) {
      // The error binary-search-tree throws: NeDB and isDuplicateKeyError() recognise it by errorType.
      const err = new Error(`Can't insert key ${JSON.stringify(key)}, it violates the unique constraint`) as Error & { key: unknown; errorType: string };
      err.key = key;
      err.errorType = 'uniqueViolated';
      throw err;
    }
    const next = withValue(slot, doc);
    if (next !== slot) this.put(key, next);
  }

  /** That very document only (NeDB compares documents by identity here too). */
  delete(key: unknown, doc: Doc): void {
    const slot = this.get(key);
    const next = withoutValue(slot, doc);
    if (next !== slot) this.put(key, next);
  }

  /** The documents under `key`, or under none of `seen` (slots by identity): `$in` may name a key twice. */
  searchOnce(key: unknown, seen: Set<Slot>): Doc[] {
    const slot = this.get(key);
    if (slot === undefined || seen.has(slot)) return [];
    seen.add(slot);
    return valuesOf(slot);
  }

  search(key: unknown): Doc[] {
    return valuesOf(this.get(key));
  }

  /** Every key with its documents. */
  private *entries(): Generator<[unknown, Slot]> {
    yield* this.plain;
    for (const { key, slot } of this.exotic.values()) yield [key, slot];
  }

  betweenBounds(query: Bounds): Doc[] {
    const out: Doc[] = [];
    for (const [key, slot] of this.entries()) {
      if (query.$lt !== undefined && !(compareThings(key, query.$lt) < 0)) continue;
      if (query.$lte !== undefined && !(compareThings(key, query.$lte) <= 0)) continue;
      if (query.$gt !== undefined && !(compareThings(key, query.$gt) > 0)) continue;
      if (query.$gte !== undefined && !(compareThings(key, query.$gte) >= 0)) continue;
      out.push(...valuesOf(slot));
    }
    return out;
  }

  /** Index.getAll() collects `node.data` of every node: here one node per key. */
  executeOnEveryNode(fn: (node: { data: Doc[] }) => void): void {
    for (const [, slot] of this.entries()) fn({ data: valuesOf(slot) });
  }
}

/** NeDB's Index with a HashTree under it; `reset` (at load and on reindexing) keeps it one. */
export class HashIndex extends Index {
  constructor(options: IndexOptions) {
    super(options);
    this.tree = new HashTree(this.unique);
  }

  reset(newData?: Doc | Doc[]): void {
    this.tree = new HashTree(this.unique);
    if (newData) this.insert(newData);
  }

  /**
   * `$in`: NeDB's own gathers the documents of every value in an object keyed by `_id` and lists
   * its keys: 120 ms for 100,000 outbox rows under `status: {$in: ['delivered', 'dead']}`. Here
   * each value's documents in turn, each document once (by identity: an `_id` names one).
   */
  getMatching(value: unknown): Doc[] {
    const tree = this.tree as HashTree;
    if (!Array.isArray(value)) return tree.search(value);
    const lists: Doc[][] = [];
    // Each key once, however often `$in` names it (or names it as 0 and -0, or equal dates).
    const slots = new Set<Slot>();
    for (const v of value) {
      const docs = tree.searchOnce(v, slots);
      if (docs.length > 0) lists.push(docs);
    }
    if (lists.length <= 1) return lists[0] ?? [];
    // A document is under two of the values only when its field holds an array (an index entry
    // per element): only those need a set, not every document (the dispatcher's poll, `status`
    // pending or delivering, put 100,000 pending rows through one every second).
    const path = this.fieldName.split('.');
    const out: Doc[] = [];
    let seen: Set<Doc> | undefined;
    for (const docs of lists) {
      for (const d of docs) {
        if (Array.isArray(path.length === 1 ? d[path[0]!] : getDotValue(d, path))) {
          if ((seen ??= new Set()).has(d)) continue;
          seen.add(d);
        }
        out.push(d);
      }
    }
    return out;
  }
}

type Indexed = { indexes: Record<string, { fieldName: string; unique: boolean; sparse: boolean }>; getAllData(): Doc[] };

/** Puts a hash index under a datastore's `_id`, before it loads its file. */
export function useHashIdIndex(ds: unknown): void {
  (ds as Indexed).indexes._id = new HashIndex({ fieldName: '_id', unique: true }) as never;
}

/** Replaces the index NeDB made for `key` by a hash index over the same documents. */
export function rebuildAsHashIndex(ds: unknown, key: string): void {
  const d = ds as Indexed;
  const old = d.indexes[key];
  if (!old || old instanceof HashIndex) return;
  const index = new HashIndex({ fieldName: old.fieldName, unique: old.unique, sparse: old.sparse });
  index.insert(d.getAllData());
  d.indexes[key] = index as never;
}
