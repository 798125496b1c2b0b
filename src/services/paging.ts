// Paging (reference §6.10): offset/limit in, {limit, total, next_offset?} out.
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  offset: number;
  limit: number;
}

/** `limit=0` asks for everything (MapAttack's usage), bounded by MAX_LIMIT. */
export function pageRequest(q: { offset?: number; limit?: number }): PageRequest {
  const limit = q.limit === undefined ? DEFAULT_LIMIT : q.limit === 0 ? MAX_LIMIT : Math.min(q.limit, MAX_LIMIT);
  return { offset: q.offset ?? 0, limit };
}

export function pagingObject(req: PageRequest, total: number, returned: number) {
  const next = req.offset + returned;
  return next < total ? { next_offset: next, limit: req.limit, total } : { limit: req.limit, total };
}
