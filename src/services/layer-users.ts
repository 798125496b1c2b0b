// layer/users/:id (reference §6.9): two maps keyed by id, `users` (profile plus the places each is
// inside) and `places` (every place of the layer plus who is inside). Presence comes from the
// trigger engine through usersInsideLayer; everything else is read from the store here.
import type { PlaceDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import { placeObject } from './geo-objects.js';
import { usersInsideLayer, type PresenceEntry } from './presence.js';
import { userRecord } from './profile.js';
import { requireLayer } from './subscriptions.js';

interface Stamp {
  date: string;
  date_ts: number;
}

const stamp = (at: number, timeZone: string): Stamp => ({ date: isoDate(at, timeZone), date_ts: unixSeconds(at) });

/** The public profile fields §6.9 lists (no email, phone or devices). */
function layerUserProfile(u: UserDoc, now: number) {
  const r = userRecord(u, now);
  return {
    user_id: r.user_id, username: r.username, name: r.name, display_name: r.display_name, bio: r.bio, website: r.website,
    timezone: r.timezone, twitter: r.twitter || false, profile_image: r.profile_image, is_anonymous: r.is_anonymous,
    has_custom_username: r.has_custom_username, has_push_token: r.has_push_token, public_location: r.public_location,
    public_geonotes: r.public_geonotes, public_geonote_email: r.public_geonote_email, timezone_offset: r.timezone_offset, extra: r.extra,
  };
}

/** Pure shaping: presence entries naming an unknown user or place are dropped, so both maps agree. Dates in `timeZone`. */
export function layerUsersView(places: PlaceDoc[], users: UserDoc[], inside: PresenceEntry[], now: number, timeZone = 'UTC') {
  const placeMap: Record<string, { place: Record<string, unknown>; users_inside: Array<{ user_id: string } & Stamp> }> = {};
  for (const p of places) {
    const o = placeObject(p, now);
    placeMap[p._id] = {
      place: {
        place_id: o.place_id, name: o.name, latitude: o.latitude, longitude: o.longitude, radius: o.radius,
        ...(o.geometry !== undefined ? { geometry: o.geometry, ...(o.width !== undefined ? { width: o.width } : {}) } : {}),
        display_name: o.display_name, active: o.active, extra: o.extra, description: o.description, visits: o.visits,
      },
      users_inside: [],
    };
  }
  const known = new Map(users.map((u) => [u._id, u]));
  const userMap: Record<string, ReturnType<typeof layerUserProfile> & { inside: Array<{ place_id: string } & Stamp> }> = {};
  for (const e of [...inside].sort((a, b) => a.since - b.since)) {
    const user = known.get(e.user_id);
    const place = placeMap[e.place_id];
    if (!user || !place) continue;
    userMap[e.user_id] ??= { ...layerUserProfile(user, now), inside: [] };
    userMap[e.user_id].inside.push({ place_id: e.place_id, ...stamp(e.since, timeZone) });
    place.users_inside.push({ user_id: e.user_id, ...stamp(e.since, timeZone) });
  }
  return { users: userMap, places: placeMap };
}

/** layer/users/:id; an application's view of many users: dates in `timeZone`, the Timezone header's or UTC. */
export async function layerUsers(ctx: ServiceContext, appId: string, layerId: string, timeZone = 'UTC') {
  await requireLayer(ctx, appId, layerId);
  const places = await ctx.store.places.onLayer(appId, layerId);
  const inside = await usersInsideLayer(ctx, appId, layerId);
  const userIds = [...new Set(inside.map((e) => e.user_id))];
  const users = await ctx.store.users.many(appId, userIds);
  return layerUsersView(places, users, inside, ctx.now(), timeZone);
}
