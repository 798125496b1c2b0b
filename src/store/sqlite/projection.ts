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

/** The fields an inclusion projection keeps when every one (but `_id`) is a column; else null. */
export function columnsOnly(projection: Projection, columns: readonly string[]): string[] | null {
  if (columns.length === 0) return null;
  const keep: string[] = [];
  for (const [k, v] of Object.entries(projection)) {
    if (k === '_id') continue;
    if (!v || !columns.includes(k)) return null;
    keep.push(k);
  }
  return keep.length > 0 ? keep : null;
}

export function onlyId(projection: Projection): boolean {
  const keys = Object.keys(projection);
  return keys.length === 1 && keys[0] === '_id' && Boolean(projection._id);
}
