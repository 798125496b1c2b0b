// Tells in-process caches that a collection changed. Every update and delete made through the
// store (repositories, raw `collection()` access, any engine) reports its collection once it has
// settled, so a cache of documents (the auth token cache) is dropped exactly when they may have
// changed, whoever made the change in this process. Inserts are not reported: a new document
// cannot make a cached one stale.
import type { DocCollection } from './collection.js';

export type WriteListener = (collection: string) => void;

export class WriteFeed {
  private readonly listeners = new Map<string, WriteListener[]>();

  on(collections: readonly string[], listener: WriteListener): void {
    for (const name of collections) this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  emit(name: string): void {
    for (const l of this.listeners.get(name) ?? []) l(name);
  }
}

/**
 * The collection, reporting its updates and deletes to `feed` after they settle (also when they
 * fail: a failed write may still have changed something). Reads and inserts pass straight through.
 */
export function reportingWrites<T extends { _id: string }>(name: string, col: DocCollection<T>, feed: WriteFeed): DocCollection<T> {
  const after = async <R>(write: Promise<R>): Promise<R> => {
    try {
      return await write;
    } finally {
      feed.emit(name);
    }
  };
  return {
    insertOne: (doc) => col.insertOne(doc),
    insertMany: (docs) => col.insertMany(docs),
    findOne: (filter, options) => col.findOne(filter, options),
    find: (filter, options) => col.find(filter, options),
    countDocuments: (filter) => col.countDocuments(filter),
    updateOne: (filter, update, options) => after(col.updateOne(filter, update, options)),
    updateMany: (filter, update) => after(col.updateMany(filter, update)),
    bulkWrite: (operations, options) => after(col.bulkWrite(operations, options)),
    deleteOne: (filter) => after(col.deleteOne(filter)),
    deleteMany: (filter) => after(col.deleteMany(filter)),
  };
}

/** `write`, reporting once it settled (also when it failed: a failed write may still have changed something). */
export async function settled<R>(write: Promise<R>, changed: () => void): Promise<R> {
  try {
    return await write;
  } finally {
    changed();
  }
}
