// The streaming API's subscriptions (reference §4.8, plugins/streaming.ts): what a socket's
// `token` event (`<type>-<token>`) subscribes it to, as a room name, and who may.
//
// - `group-<group token>`: the group's members' locations and its messages. The token alone is
//   enough for a `public` or `open` group (it is their invitation); an `invite` group needs the
//   socket to carry a token of the application, of the group's owner or of a member.
// - `user-<username>`: that user's locations, when they are public (`public_location`), or to the
//   application's token and the user's own. Usernames are per application, so the socket must name
//   its application: an access token, or the API key (`client_id`).
// - `trip-<token>`: the locations of the user whose share link it is (link/create, trip/create),
//   while the link shows them (active, in its dates and hours); the token alone is enough, as for
//   share/*, and a socket that names its application sees only that application's links. Unknown
//   tokens count against the socket's address like share/*'s (auth/limits.ts).
// The socket's credentials travel in the Socket.IO handshake: `auth` or the query string, as
// `access_token` and `client_id`.
import type { AuthContext } from '../auth/authenticate.js';
import { authenticateToken } from '../auth/authenticate.js';
import { ApiError, notFound } from '../errors.js';
import type { ApplicationDoc, GroupDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { visibleGroup } from './groups.js';
import { openTripLink, shareLinkOpen } from './share-links.js';

/** Who a socket is: nobody, an application (by its API key), or a token's application and user. */
export interface StreamScope {
  app?: ApplicationDoc;
  auth?: AuthContext;
  /** The socket's address, for the share-token guess limit. */
  address?: string;
}

export const groupRoom = (appId: string, token: string) => `group:${appId}:${token}`;
export const userRoom = (appId: string, userId: string) => `${USER_ROOM_PREFIX}${appId}:${userId}`;
export const GROUP_ROOM_PREFIX = 'group:';
export const USER_ROOM_PREFIX = 'user:';
export const tripRoom = (appId: string, userId: string, token: string) => `trip:${appId}:${userId}:${token}`;
export const TRIP_ROOM_PREFIX = 'trip:';

/** A trip room's parts. */
export function tripRoomParts(room: string): { appId: string; userId: string; token: string } {
  const [appId = '', userId = '', token = ''] = room.slice(TRIP_ROOM_PREFIX.length).split(':');
  return { appId, userId, token };
}

/** Whether a trip room's share link still shows its user's location (it may have expired or been deactivated since). */
export async function tripRoomOpen(ctx: ServiceContext, room: string): Promise<boolean> {
  const { appId, token } = tripRoomParts(room);
  return shareLinkOpen(ctx, appId, token);
}

/** The scope of a socket's handshake credentials; a credential that is not valid is refused (401). */
export async function streamScope(ctx: ServiceContext, creds: { access_token?: unknown; client_id?: unknown }, address?: string): Promise<StreamScope> {
  if (typeof creds.access_token === 'string' && creds.access_token !== '') {
    const auth = await authenticateToken(ctx.store, creds.access_token, ctx.now());
    return { app: auth.app, auth, address };
  }
  if (typeof creds.client_id === 'string' && creds.client_id !== '') {
    const app = await ctx.store.applications.byClientId(creds.client_id);
    if (!app) throw new ApiError('invalid_client', 'Unknown client_id');
    return { app, address };
  }
  return { address };
}

/** The room the `token` event's value subscribes to; a 404 ApiError when there is nothing the socket may watch. */
export async function subscriptionRoom(ctx: ServiceContext, scope: StreamScope, value: string): Promise<string> {
  const dash = value.indexOf('-');
  const type = value.slice(0, dash);
  const token = value.slice(dash + 1);
  if (dash <= 0 || token === '' || token.length > 200) throw notFound('Subscription');
  if (type === 'group') {
    const g = await watchableGroup(ctx, scope, token);
    return groupRoom(g.app_id, g._id);
  }
  if (type === 'user') {
    if (!scope.app) throw notFound('User (name the application: connect with an access_token or client_id)');
    const user = await ctx.store.users.byUsername(scope.app._id, token);
    if (!user || !mayWatchUser(scope, user)) throw notFound('User');
    return userRoom(user.app_id, user._id);
  }
  if (type === 'trip') {
    const link = await openTripLink(ctx, { appId: scope.app?._id, address: scope.address }, token);
    if (!link) throw notFound('Share link (or it does not show the location now)');
    return tripRoom(link.app_id, link.user_id, link._id);
  }
  throw notFound('Subscription');
}

/**
 * Checks again that the scope may watch `room`, a group or user room it subscribed to
 * (services/stream-rights.ts): by the room's ids, so a user who changed their username is still
 * the one watched. A 404 ApiError when it may not any more.
 */
export async function checkRoom(ctx: ServiceContext, scope: StreamScope, room: string): Promise<void> {
  if (room.startsWith(USER_ROOM_PREFIX)) {
    const [appId = '', userId = ''] = room.slice(USER_ROOM_PREFIX.length).split(':');
    const user = scope.app?._id === appId ? await ctx.store.users.get(appId, userId) : null;
    if (!user || !mayWatchUser(scope, user)) throw notFound('User');
    return;
  }
  if (room.startsWith(GROUP_ROOM_PREFIX)) {
    const [appId, token = ''] = room.slice(GROUP_ROOM_PREFIX.length).split(':');
    if ((await watchableGroup(ctx, scope, token)).app_id !== appId) throw notFound('Group');
    return;
  }
  throw notFound('Subscription');
}

/** A user's locations are public, or watched with the application's token or the user's own. */
const mayWatchUser = (scope: StreamScope, user: UserDoc) =>
  user.public_location === 1 || scope.auth?.kind === 'app' || scope.auth?.user?._id === user._id;

async function watchableGroup(ctx: ServiceContext, scope: StreamScope, token: string): Promise<GroupDoc> {
  if (scope.auth) return visibleGroup(ctx, scope.auth, token);
  const g = scope.app ? await ctx.store.groups.get(scope.app._id, token) : await ctx.store.groups.byToken(token);
  if (!g || g.visibility === 'invite') throw notFound('Group');
  return g;
}

/** The groups whose watchers see the user's locations: those they publish to. */
export async function publishingGroupsOf(ctx: ServiceContext, appId: string, userId: string): Promise<string[]> {
  return ctx.store.groupMembers.publishingGroups(appId, userId);
}
