// Who is inside which place of a layer right now (layer/users, reference §6.9), read from the
// trigger engine's persisted machines: a user is inside a place while one of its (trigger, place)
// machines is `inside` or `dwelling`. A place with no trigger has no machine, so nobody is reported
// there; a pair that went `firedOnce` no longer tracks presence.
import type { PlaceDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

export interface PresenceEntry {
  user_id: string;
  place_id: string;
  /** Epoch ms of the point that put the user inside. */
  since: number;
}

/** Every (user, place) pair of the layer whose user is currently inside the place. */
export async function usersInsideLayer(ctx: ServiceContext, appId: string, layerId: string): Promise<PresenceEntry[]> {
  const places = await ctx.store.places.onLayer(appId, layerId);
  return usersInsidePlaces(ctx, appId, places);
}

export async function usersInsidePlaces(ctx: ServiceContext, appId: string, places: readonly Pick<PlaceDoc, '_id'>[]): Promise<PresenceEntry[]> {
  if (places.length === 0) return [];
  const inside = await ctx.store.machines.insideOf(appId, places.map((p) => p._id));
  // Several triggers on one place: one entry per (user, place), the earliest entry.
  const byPair = new Map<string, PresenceEntry>();
  for (const s of inside) {
    const key = `${s.user_id}:${s.place_id}`;
    const since = s.entered_at;
    const seen = byPair.get(key);
    if (!seen || since < seen.since) byPair.set(key, { user_id: s.user_id, place_id: s.place_id, since });
  }
  return [...byPair.values()].sort((a, b) => a.since - b.since);
}
