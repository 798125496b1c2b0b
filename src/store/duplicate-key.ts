// Both engines report a unique-index violation differently; repositories ask this one question.
export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown };
  // MongoDB's E11000; SQLite's unique index and primary key violations.
  return e.code === 11000 || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
