// Whole-document writes of a batch in as few store calls as possible: one bulk replacement of the
// documents already stored, then the inserts of the others. (A bulk of upserts would do it in one
// call, but on MongoDB an upsert whose filter also tests a field fails with a duplicate key.)
import type { Filter } from 'mongodb';
import type { DocCollection } from './collection.js';
import { isDuplicateKeyError } from './duplicate-key.js';

/**
 * Stores each document whole where `filterOf` matches the stored one, and inserts those with no
 * stored document at all. A stored one the filter does not match stays (an older point never
 * replaces a newer one), and so does one another writer inserted in between.
 */
export async function replaceOrInsert<T extends { _id: string }>(
  col: DocCollection<T>,
  docs: readonly T[],
  filterOf: (doc: T) => Filter<T> = (doc) => ({ _id: doc._id }) as Filter<T>,
): Promise<void> {
  if (docs.length === 0) return;
  const { matchedCount } = await col.bulkWrite(docs.map((doc) => ({ replaceOne: { filter: filterOf(doc), replacement: doc } })), { ordered: false });
  if (matchedCount === docs.length) return;
  const stored = await col.find({ _id: { $in: docs.map((d) => d._id) } } as Filter<T>, { projection: { _id: 1 } }).toArray();
  const present = new Set(stored.map((d) => d._id));
  const missing = docs.filter((d) => !present.has(d._id));
  if (missing.length === 0) return; // (MongoDB refuses an empty insertMany)
  try {
    await col.insertMany(missing);
    return;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  // Another writer got one of them in first: each on its own, so that only that one stays.
  await Promise.all(missing.map(async (doc) => {
    try {
      await col.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }));
}
