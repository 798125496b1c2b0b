// Pages of a list: where it starts and how long it is, and what comes back. Offset and limit are
// bound as parameters (an offset is no part of a query's text), clamped to what the engines take.
export interface PageRequest {
  offset: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** A 64-bit integer for both engines: past MAX_SAFE_INTEGER no list has anything left to show. */
export function pageBounds(page: PageRequest): { offset: number; limit: number } {
  const whole = (n: number) => (Number.isFinite(n) ? Math.min(Math.max(0, Math.floor(n)), Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER);
  return { offset: whole(page.offset), limit: whole(page.limit) };
}
