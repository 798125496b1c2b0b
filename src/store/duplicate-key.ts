// Both engines report a unique-index violation differently; repositories ask this one question.
export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; errorType?: unknown };
  return e.code === 11000 || e.errorType === 'uniqueViolated';
}
