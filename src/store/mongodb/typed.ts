// What every typed repository on MongoDB shares: its collection with typed documents, its indexes
// (declared once, in ../indexes.ts TYPED_INDEXES, and created at start), and the one answer to
// "did an unordered bulk write fail only on repeats".
import { MongoBulkWriteError, type Collection, type Db, type Document, type IndexDescription } from 'mongodb';
import { isDuplicateKeyError } from '../duplicate-key.js';

/** The collection `name`, typed, after its indexes exist. */
export async function typedCollection<T extends Document>(db: Db, name: string, indexes: readonly IndexDescription[]): Promise<Collection<T>> {
  const col = db.collection<T>(name);
  if (indexes.length > 0) await col.createIndexes([...indexes]);
  return col;
}

/**
 * Runs an unordered bulk write (or insertMany) whose duplicate-key failures are expected and
 * ignored (a repeat of a stored document); any other failure is thrown.
 */
export async function ignoringRepeats(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (err instanceof MongoBulkWriteError) {
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      if (errors.length > 0 && errors.every((e) => e.code === 11000) && !err.err) return;
      throw err;
    }
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Top-level fields of a document, without those whose value is null (MongoDB keeps absent what the engine has not). */
export function withoutNulls<T extends object>(doc: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

/** JSON text as stored by this release, or the object an earlier release stored. */
export function objectOf(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : (v as Record<string, unknown>);
}
