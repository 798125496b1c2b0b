// Query shapes that let NeDB use its best index. NeDB takes a query's candidates from the *last*
// field (in key order) that has an index and a plain value (Datastore._getRawCandidates pops that
// list), so a scoped lookup `{_id, app_id}` scanned and matched every document of the application
// (measured with 100,000 places: 52 ms for one `$inc` by id, 100% in candidate matching). Here a
// plain-value condition on `_id`, or else on a unique field, is moved last: one document is read.

type Query = Record<string, unknown>;

const isPlain = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `filter` with its most selective plain-value condition last (the same filter when it already is). */
export function selectiveLast(filter: Query, unique: ReadonlySet<string>): Query {
  const keys = Object.keys(filter);
  if (keys.length < 2) return filter;
  let best: string | undefined;
  if (isPlain(filter._id)) best = '_id';
  else best = keys.find((k) => unique.has(k) && isPlain(filter[k]));
  if (best === undefined || keys[keys.length - 1] === best) return filter;
  const out: Query = {};
  for (const k of keys) if (k !== best) out[k] = filter[k];
  out[best] = filter[best];
  return out;
}
