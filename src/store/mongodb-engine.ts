// MongoDB engine: the official driver's collections, passed through as they are (DocCollection is
// a subset of Collection). The Db comes from @fastify/mongodb, or from a MongoClient for scripts.
import type { Db } from 'mongodb';
import type { DocCollection, IndexSpec, StoreEngine } from './collection.js';

export function mongoEngine(db: Db, close: () => Promise<void>): StoreEngine {
  return {
    kind: 'mongodb',
    collection<T extends { _id: string }>(name: string): DocCollection<T> {
      // Sound because Collection<T> is assignable to DocCollection<T> (see collection.ts).
      return db.collection(name) as unknown as DocCollection<T>;
    },
    async ensureIndexes(name: string, specs: IndexSpec[]) {
      if (specs.length === 0) return;
      await db.collection(name).createIndexes(
        specs.map((s) => ({
          key: Object.fromEntries(s.fields.map((f) => [f, 1 as const])),
          unique: s.unique ?? false,
          sparse: s.sparse ?? false,
        })),
      );
    },
    // The driver reports its own failures per call; nothing here watches them.
    health: () => ({ writable: true }),
    close,
  };
}
