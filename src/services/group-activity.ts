// What happens in a group (reference §4.7): messages posted to it (group/message, group/messages)
// and its members' locations (group/locations, the undocumented group/last). A message goes to
// the group's stream (Socket.IO subscribers of `group-<token>`, plugins/streaming.ts) and to every
// member's inbox like a message/send: message/list, their open /1/stream sockets, and a push to
// the members the `push` field names.
import type { AuthContext } from '../auth/authenticate.js';
import { deliverMessage } from '../delivery/inbox.js';
import { apiError } from '../errors.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { GroupMessageDoc, LocationDoc, UserDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { ServiceContext } from './context.js';
import { mayPublish, membersOf, publicProfile, visibleGroup } from './groups.js';
import { pointView } from './locations.js';
import { pageRequest, pagingObject } from './paging.js';

/** A message is meant to be small (a game's state change); this bounds what every member stores. */
export const MAX_MESSAGE_CHARS = 16_384;

/** Fields of a group/message body that are not the message. */
const NOT_MESSAGE = new Set(['push', 'access_token', 'oauth_token']);

/** `push`: true for every member, a user id, or a list of them (reference §4.7). */
export type PushTargets = boolean | string | string[];

/** A user's point as the streaming API and group/last show it: who, where (flat, as MapAttack reads it), and the stored point. */
export function livePoint(user: Pick<UserDoc, '_id' | 'username'>, d: LocationDoc, timeZone = 'UTC') {
  return { user_id: user._id, username: user.username, latitude: d.latitude, longitude: d.longitude, ...pointView(d, timeZone) };
}

/** The streaming API's `location` event for a user's last point, or null when there is none. */
export async function lastLivePoint(ctx: ServiceContext, appId: string, userId: string) {
  const [user, last] = await Promise.all([ctx.store.users.get(appId, userId), ctx.store.lastLocations.of(appId, userId)]);
  return user && last ? livePoint(user, last) : null;
}

/**
 * group/message/:token. Every field but `push` and the credentials is the message, delivered as
 * posted through the streaming API; `text` (required with `push`) and `url` also make it a
 * notification in each member's inbox, and a push to the members `push` names.
 */
export async function postGroupMessage(ctx: ServiceContext, auth: AuthContext, token: string, body: Record<string, unknown>) {
  const g = await visibleGroup(ctx, auth, token);
  if (!(await mayPublish(ctx, auth, g))) throw apiError('access_denied', 'Only publishing members may post to this group');
  const message = Object.fromEntries(Object.entries(body).filter(([k]) => !NOT_MESSAGE.has(k)));
  const push = (body.push ?? false) as PushTargets;
  const text = typeof message.text === 'string' ? message.text.trim() : '';
  const url = typeof message.url === 'string' ? message.url : undefined;
  if (push !== false && text === '') throw apiError('missing_input', 'text is required when push is set');
  if (Object.keys(message).length === 0) throw apiError('missing_input', 'Nothing to send: post text or any other fields as the message');
  if (JSON.stringify(message).length > MAX_MESSAGE_CHARS) throw apiError('invalid_input', `The message must be at most ${MAX_MESSAGE_CHARS} characters of JSON`);

  const userId = auth.kind === 'user' ? auth.user!._id : undefined;
  const doc: GroupMessageDoc = { _id: newId(), app_id: g.app_id, group_token: g._id, message, date: ctx.now(), ...(userId ? { user_id: userId } : {}) };
  await ctx.store.groupMessages.insert(doc);

  const named = new Set(typeof push === 'string' ? [push] : Array.isArray(push) ? push : []);
  const { text: _t, url: _u, ...data } = message;
  const members = await membersOf(ctx, g);
  for (const { user } of members) {
    await deliverMessage(ctx.delivery, {
      app_id: g.app_id, user_id: user._id, text, url, group_token: g._id,
      ...(Object.keys(data).length ? { data } : {}),
      push: text !== '' && (push === true || named.has(user._id)),
    });
  }
  await ctx.streams.publish({ kind: 'group_message', appId: g.app_id, groupToken: g._id, message, ...(userId ? { userId } : {}) });
  return { result: 'ok' as const, message_id: doc._id, total: members.length };
}

/** group/messages/:token: newest first, paged (reference §4.7). */
export async function groupMessages(ctx: ServiceContext, auth: AuthContext, token: string, q: { offset?: number; limit?: number }, timeZone: string) {
  const g = await visibleGroup(ctx, auth, token);
  const page = pageRequest(q);
  const { items, total } = await ctx.store.groupMessages.page(g.app_id, g._id, page);
  const senders = await ctx.store.users.many(g.app_id, [...new Set(items.flatMap((m) => (m.user_id ? [m.user_id] : [])))]);
  const byId = new Map(senders.map((u) => [u._id, u]));
  return {
    messages: items.map((m) => {
      const u = m.user_id ? byId.get(m.user_id) : undefined;
      return {
        date: isoDate(m.date, timeZone), date_ts: unixSeconds(m.date), message: m.message, type: 'message' as const,
        // Posted by the application (or by a user since deleted): no user.
        user: u ? { user_id: u._id, username: u.username } : null,
      };
    }),
    paging: pagingObject(page, total, items.length),
  };
}

/** group/last/:token (MapAttack): each member's last location, for members that have one. */
export async function groupLast(ctx: ServiceContext, auth: AuthContext, token: string, timeZone: string) {
  const g = await visibleGroup(ctx, auth, token);
  const members = await membersOf(ctx, g);
  const lasts = await ctx.store.lastLocations.ofUsers(g.app_id, members.map((m) => m.user._id));
  const byUser = new Map(lasts.map((d) => [d.user_id, d]));
  return { locations: members.flatMap(({ user }) => {
    const d = byUser.get(user._id);
    return d ? [livePoint(user, d, timeZone)] : [];
  }) };
}

/**
 * group/locations/:token: paged by member; each member's `count` latest points (default 10), in
 * time order, from the history when the application keeps it, else their last location.
 */
export async function groupLocations(ctx: ServiceContext, auth: AuthContext, token: string, q: { offset?: number; limit?: number; count?: number }, timeZone: string) {
  const g = await visibleGroup(ctx, auth, token);
  const page = pageRequest(q);
  const all = await membersOf(ctx, g);
  const shown = all.slice(page.offset, page.offset + page.limit);
  const locations = [];
  for (const { user } of shown) {
    const history = await ctx.store.locations.newest(g.app_id, user._id, {}, q.count ?? 10);
    const points = history.length > 0 ? history.reverse() : [await ctx.store.lastLocations.of(g.app_id, user._id)].filter((d): d is LocationDoc => d !== null);
    locations.push({ user: publicProfile(user), history: points.map((d) => pointView(d, timeZone)) });
  }
  return { locations, paging: pagingObject(page, all.length, shown.length) };
}
