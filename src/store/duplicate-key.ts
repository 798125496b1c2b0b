// A unique index refused a write. Both engines report it differently; repositories turn either
// into DuplicateKeyError, which is what callers catch.
export class DuplicateKeyError extends Error {}

export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown };
  // MongoDB's E11000; SQLite's unique index and primary key violations.
  return e.code === 11000 || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The error a write failed with, a unique-index violation as DuplicateKeyError. */
export function asDuplicate(err: unknown): unknown {
  return isDuplicateKeyError(err) ? new DuplicateKeyError(err instanceof Error ? err.message : String(err)) : err;
}

/** `write`, with a unique-index violation rejected as DuplicateKeyError. */
export async function unique<R>(write: Promise<R>): Promise<R> {
  try {
    return await write;
  } catch (err) {
    throw asDuplicate(err);
  }
}
