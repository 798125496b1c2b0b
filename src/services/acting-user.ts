// "Calls that act on a user as the application always carry user_id" (seed, Authentication rule 3):
// a user token acts as its own user; an application token names the user, who must be one of its own.
import type { AuthContext } from '../auth/authenticate.js';
import { apiError, notFound } from '../errors.js';
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

export async function actingUser(ctx: ServiceContext, auth: AuthContext, userId: string | undefined): Promise<UserDoc> {
  if (auth.kind === 'user') {
    if (userId !== undefined && userId !== auth.user!._id) throw notFound('User');
    return auth.user!;
  }
  if (!userId) throw apiError('missing_input', 'user_id is required with an application token');
  const user = await ctx.store.users.get(auth.app._id, userId);
  if (!user) throw notFound('User');
  return user;
}
