// Top-level projections, the only kind the repositories ask for: `{ a: 1, b: 1 }` keeps the named
// fields and `_id` (unless `_id: 0`); `{ a: 0 }` drops the named fields.
export type Projection = Record<string, unknown>;

export function project<T extends { _id: string }>(doc: T, projection: Projection | undefined): object {
  if (!projection) return doc;
  const entries = Object.entries(projection);
  const including = entries.some(([k, v]) => k !== '_id' && Boolean(v));
  const src = doc as Record<string, unknown>;
  if (!including) {
    const out = { ...src };
    for (const [k, v] of entries) if (!v) delete out[k];
    return out;
  }
  const out: Record<string, unknown> = {};
  if (projection._id === undefined || projection._id) out._id = doc._id;
  for (const [k, v] of entries) {
    if (k === '_id' || !v) continue;
    if (k.includes('.')) throw new Error(`the embedded store projects top-level fields only, not ${k}`);
    if (k in src) out[k] = src[k];
  }
  return out;
}
