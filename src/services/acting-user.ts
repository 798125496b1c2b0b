// "Calls that act on a user as the application always carry user_id" (seed, Authentication rule 3):
// a user token acts as its own user; an application token names the user, who must be one of its own.
// One rule for every route taking user_id: other users are invisible to a user token, so naming one,
// existing or not, is "User not found" (404) like a missing user, never a 403 that confirms it exists.
import type { AuthContext } from '../auth/authenticate.js';
import { apiError, notFound } from '../errors.js';
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

/** A user token's own id (another user_id is not found); an application token's user_id as given, if any. */
export function userIdFor(auth: AuthContext, userId: string | undefined): string | undefined {
  if (auth.kind !== 'user') return userId;
  if (userId !== undefined && userId !== auth.user!._id) throw notFound('User');
  return auth.user!._id;
}

/** The id of the user a call acts on: an application token must name one. */
export function actingUserId(auth: AuthContext, userId: string | undefined): string {
  const id = userIdFor(auth, userId);
  if (!id) throw apiError('missing_input', 'user_id is required with an application token');
  return id;
}

/** One of the application's users, or "User not found". */
export async function requireUser(ctx: ServiceContext, appId: string, userId: string): Promise<UserDoc> {
  const user = await ctx.store.users.get(appId, userId);
  if (!user) throw notFound('User');
  return user;
}

/** The user a call acts on, read from the store for an application token (one of its own users). */
export async function actingUser(ctx: ServiceContext, auth: AuthContext, userId: string | undefined): Promise<UserDoc> {
  const id = actingUserId(auth, userId);
  if (auth.kind === 'user') return auth.user!;
  return requireUser(ctx, auth.app._id, id);
}
