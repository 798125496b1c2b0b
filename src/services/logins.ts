// Signing in with a username or email and a password (grant_type=password, the authorize page):
// one password check per candidate account, each counted against the failure limits.
import type { PasswordSubject } from '../auth/limits.js';
import { noPasswordHash, verifyPassword } from '../auth/secrets.js';
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

/**
 * The password grant: the login is a username or an email address (any case). Another user's
 * username may equal someone's email: when the username's user refuses the password, the email's
 * owner is tried too, so nobody is locked out of their email login. One password check unless the
 * login names two users. Each check counts against its account's failure limit (and the caller's
 * `address`, when that limit is configured): over it, a 429 (auth/limits.ts).
 */
export async function verifyLogin(ctx: ServiceContext, appId: string, login: string, password: string, address?: string): Promise<UserDoc | null> {
  const lower = login.toLowerCase();
  const matches = (user: UserDoc | null) => passwordMatches(ctx, { appId, account: user ? `user:${user._id}` : `login:${lower}`, address }, user, password);
  const byEmail = () => ctx.store.users.byEmail(appId, lower);
  const byUsername = await ctx.store.users.byUsername(appId, lower);
  if (!byUsername) {
    const owner = await byEmail();
    return (await matches(owner)) ? owner : null;
  }
  if (await matches(byUsername)) return byUsername;
  const owner = await byEmail();
  return owner && owner._id !== byUsername._id && (await matches(owner)) ? owner : null;
}

/** Checks the password; with no user or no password, hashes anyway so the time does not tell. */
function passwordMatches(ctx: ServiceContext, who: PasswordSubject, user: UserDoc | null, password: string): Promise<boolean> {
  return ctx.authLimits.checkPassword(who, async () => {
    const ok = await verifyPassword(password, user?.password_hash ?? noPasswordHash(ctx.config.passwordHashCost));
    return ok && Boolean(user?.password_hash);
  });
}
