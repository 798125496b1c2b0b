// The names beside the ids of a page of timeline entries (places, layers, triggers' keys), and the
// earlier firing each rate-limit gate counted from. Resolved when read, once per page: a few reads
// by id for the distinct objects of the page, never a name stored per entry on the engine's path.
// A deleted trigger has no key any more (its entries still say it was deleted); a deleted place or
// layer has no name (null).
import type { TimelineDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import type { EarlierFiring } from './timeline-reasons.js';

export interface PageNames {
  triggers: Map<string, string | null>;
  places: Map<string, string | null>;
  layers: Map<string, string | null>;
  /** By entry id: the firing a rate-limit gate counted from (null: no longer in the timeline). */
  earlier: Map<string, EarlierFiring | null>;
}

/** Distinct triggers, places and layers a page may name at most (a page holds at most 1000 entries). */
const MAX_DISTINCT = 1000;

const distinct = (ids: Iterable<string | null>) => [...new Set([...ids].filter((x): x is string => x !== null))].slice(0, MAX_DISTINCT);

/** The firing of `d`'s rate limit: the timeline's fired entry of that user and trigger at that time. */
async function earlierFiring(ctx: ServiceContext, appId: string, d: TimelineDoc): Promise<{ place_id: string; firing_id: string | null } | null> {
  if (d.detail?.kind !== 'rate_limit') return null;
  const at = d.detail.last_fired_at;
  const { entries } = await ctx.store.timeline.ofUser(appId, d.user_id, { trigger_id: d.trigger_id, after: at - 1, before: at + 1 }, { offset: 0, limit: 10 });
  const fired = entries.find((e) => e.kind === 'fired' && e.at === at);
  return fired ? { place_id: fired.place_id, firing_id: fired.firing_id } : null;
}

/** The names of a page's objects, in one read per distinct object (places and layers in one read each). */
export async function pageNames(ctx: ServiceContext, appId: string, docs: readonly TimelineDoc[]): Promise<PageNames> {
  const gated = docs.filter((d) => d.detail?.kind === 'rate_limit');
  // One read per earlier firing: the gates of a user that counted from the same firing share it.
  const firingKey = (d: TimelineDoc) => `${d.user_id}:${d.trigger_id}:${d.detail?.kind === 'rate_limit' ? d.detail.last_fired_at : ''}`;
  const firstOf = new Map<string, TimelineDoc>();
  for (const d of gated) if (firstOf.size < MAX_DISTINCT && !firstOf.has(firingKey(d))) firstOf.set(firingKey(d), d);
  const byKey = new Map(await Promise.all([...firstOf].map(async ([k, d]) => [k, await earlierFiring(ctx, appId, d)] as const)));
  const found = gated.map((d) => byKey.get(firingKey(d)) ?? null);
  const placeIds = distinct([...docs.map((d) => d.place_id), ...found.map((f) => f?.place_id ?? null)]);
  const [triggers, places, layers] = await Promise.all([
    Promise.all(distinct(docs.map((d) => d.trigger_id)).map(async (id) => [id, (await ctx.store.triggers.get(appId, id)) ?? null] as const)),
    ctx.store.places.many(appId, placeIds),
    ctx.store.layers.many(appId, distinct(docs.map((d) => d.layer_id))),
  ]);
  const names: PageNames = {
    triggers: new Map(triggers.filter(([, t]) => t !== null).map(([id, t]) => [id, t!.key ?? null])),
    places: new Map(places.map((p) => [p._id, p.name ?? null])),
    layers: new Map(layers.map((l) => [l._id, l.name ?? null])),
    earlier: new Map(),
  };
  gated.forEach((d, i) => {
    const f = found[i];
    names.earlier.set(d._id, f ? { place_id: f.place_id, place_name: names.places.get(f.place_id) ?? null, firing_id: f.firing_id } : null);
  });
  return names;
}
