// What a shard is seeded with, read from the store: at start every shard (and every geofence), after
// a crash the one rebuilt. Users with their layers, timezone and last applied point, the pairs'
// records, and the recent firings that can still gate a point.
import type { LastFiredSeed, ShardSeed, UserSeed } from '../../workers/protocol.js';
import { expandAll } from './geofences.js';
import type { HostState } from './host-state.js';

/** Users, records and recent firings from the store (and, `withFences`, every geofence). */
export async function seedFromStore(s: HostState, mine: (userId: string) => boolean, withFences: boolean): Promise<ShardSeed> {
  const { store } = s.ctx;
  const apps = await store.applications.all();
  const defaultLayer = new Map(apps.map((a) => [a._id, a.default_layer_id]));
  const subs = await store.subscriptions.all();
  const layersOf = new Map<string, string[]>();
  for (const sub of subs) (layersOf.get(sub.user_id) ?? layersOf.set(sub.user_id, []).get(sub.user_id)!).push(sub.layer_id);
  const last = await store.lastLocations.seeds();
  const lastOf = new Map(last.map((l) => [l.user_id, l]));
  const users: UserSeed[] = [];
  for (const u of await store.users.all()) {
    if (!mine(u._id) || !defaultLayer.has(u.app_id)) continue;
    s.users.set(u._id, { appId: u.app_id, timezone: u.timezone });
    const seed: UserSeed = { userId: u._id, layers: [defaultLayer.get(u.app_id)!, ...(layersOf.get(u._id) ?? [])], timezone: u.timezone };
    const l = lastOf.get(u._id);
    if (l !== undefined) {
      seed.lastAt = l.date;
      seed.lastPoint = { lat: l.latitude, lon: l.longitude, acc: l.horizontal_accuracy };
    }
    users.push(seed);
  }
  const seed: ShardSeed = { users, records: await s.states.seeds(mine), lastFired: await recentFirings(s, users) };
  if (withFences) {
    const [triggers, places, layers] = await Promise.all([
      store.triggers.all(), store.places.all(), store.layers.all(),
    ]);
    seed.fences = expandAll({ triggers, places, layers: new Map(layers.map((l) => [l._id, l])) });
  }
  return seed;
}

/**
 * Each user's last firing per trigger that can still gate a point, so limits hold across a
 * restart: one within the longest rate limit before the user's last applied point. Measured on
 * the device clock (as the gate is), not the server's: a phone syncing points from hours ago
 * keeps its limits too. Users without an applied point have no firing to remember.
 */
async function recentFirings(s: HostState, users: readonly UserSeed[]): Promise<LastFiredSeed[]> {
  let longest = 0;
  for (const f of s.fences.all()) longest = Math.max(longest, f.rateLimitS);
  if (longest === 0) longest = await s.ports.longestLayerRateLimitS();
  if (longest === 0) return [];
  const since = new Map<string, number>();
  for (const u of users) if (u.lastAt !== undefined) since.set(u.userId, u.lastAt - longest * 1000);
  // Users in order of their window, in chunks: each query's lower bound is close to its users' own.
  const ordered = [...since.entries()].sort((a, b) => a[1] - b[1]);
  const latest = new Map<string, LastFiredSeed>();
  for (let i = 0; i < ordered.length; i += 500) {
    const chunk = ordered.slice(i, i + 500);
    // Neither trigger/run's firings nor gated ones count against the rate limit.
    const rows = await s.ctx.store.firings.recentForUsers(chunk.map(([id]) => id), chunk[0]![1]);
    for (const r of rows) {
      if (r.date < since.get(r.user_id)!) continue;
      const k = `${r.user_id}:${r.trigger_id}`;
      if ((latest.get(k)?.at ?? -Infinity) < r.date) latest.set(k, { userId: r.user_id, triggerId: r.trigger_id, at: r.date });
    }
  }
  return [...latest.values()];
}
