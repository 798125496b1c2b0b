// Users of an application (reference §2.6, §4.6, §4.9): anonymous, keyed and named users and their
// profile (their logins are logins.ts's, their push tokens device-tokens.ts's). Uniqueness of usernames, emails and keys is the store's job.
import type { AuthContext } from '../auth/authenticate.js';
import { hashPassword } from '../auth/secrets.js';
import { apiError, notFound } from '../errors.js';
import type { Extra, Flag, UserDoc } from '../store/documents.js';
import { newId, newRandomString } from '../store/ids.js';
import { forgetUserFirings } from '../delivery/queued-callbacks.js';
import { removeUserFromGroups } from './groups.js';
import { usernameProblem } from '../schemas/username.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import type { Changes } from '../store/changes.js';
import { uniqEmail, uniqKey, uniqUsername } from '../store/unique-keys.js';
import type { ServiceContext } from './context.js';
import { removeUserGeonotes } from './geonotes.js';
import { canonicalTimeZone } from '../schemas/dates.js';
import { pageRequest, pagingObject } from './paging.js';
import { userRecord } from './profile.js';
import { requireUser } from './acting-user.js';
import { checkSubscribable, subscribeUser } from './subscriptions.js';
import { issueUserToken, revokeUserTokens } from './tokens.js';
import { userClashError } from './user-clash.js';
import { mergeExtra } from './extra-merge.js';

export interface ProfileFields {
  name?: string;
  display_name?: string;
  bio?: string;
  website?: string;
  phone?: string;
  /** null arrives as sent (schemas/users.ts), to be refused as such. */
  timezone?: string | null;
  profile_image?: string;
  email?: string;
  twitter?: string;
  facebook?: string;
  public_location?: Flag | boolean;
  public_geonotes?: Flag | boolean;
  public_geonote_email?: Flag | boolean;
  extra?: Extra;
}

function blankUser(appId: string, username: string, now: number): UserDoc {
  return {
    _id: newId(), app_id: appId, username, uniq_username: uniqUsername(appId, username),
    name: '', display_name: '', bio: '', website: '', timezone: 'UTC', profile_image: '', phone: '', twitter: '', facebook: '',
    is_anonymous: 0, has_custom_username: 0, public_location: 0, public_geonotes: 0, public_geonote_email: 0,
    extra: {}, devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] }, created_at: now,
  };
}

const flag = (v: Flag | boolean | undefined): Flag | undefined => (v === undefined ? undefined : v === true || v === 1 ? 1 : 0);

/** Validated `$set` for profile fields; undefined fields are left alone, `extra` is set whole (an update merges it: updateUser). */
function profileSet(appId: string, f: ProfileFields): Partial<UserDoc> {
  const set: Partial<UserDoc> = {};
  for (const k of ['name', 'display_name', 'bio', 'website', 'phone', 'profile_image', 'twitter', 'facebook'] as const) {
    if (f[k] !== undefined) set[k] = f[k];
  }
  // Every way a profile is written (user/create, create_anon, user/update, account/profile) comes here.
  if (f.timezone !== undefined) {
    const timezone = f.timezone === null ? undefined : canonicalTimeZone(f.timezone);
    // Quoted as sent: `null`, not the "" a string schema would have made of it.
    if (timezone === undefined) throw apiError('invalid_input', `timezone ${JSON.stringify(f.timezone)} is not a known time zone name`);
    set.timezone = timezone;
  }
  for (const k of ['public_location', 'public_geonotes', 'public_geonote_email'] as const) {
    const v = flag(f[k]);
    if (v !== undefined) set[k] = v;
  }
  if (f.extra !== undefined) set.extra = f.extra;
  if (f.email !== undefined) {
    set.email = f.email;
    set.uniq_email = uniqEmail(appId, f.email);
  }
  return set;
}

async function subscribeOnCreate(ctx: ServiceContext, user: UserDoc, layerIds: string[] | undefined) {
  if (!layerIds?.length) return;
  for (const layerId of layerIds) await subscribeUser(ctx, user.app_id, layerId, user._id, { publicOnly: true });
}

/** Before a user is created: a layer that could not be subscribed to refuses the create (no user is left behind). */
async function checkLayersOnCreate(ctx: ServiceContext, appId: string, layerIds: string[] | undefined) {
  if (!layerIds?.length) return;
  await checkSubscribable(ctx, appId, layerIds, { publicOnly: true });
}

export interface CreateAnonInput extends ProfileFields {
  key?: string;
  layer_ids?: string[];
}

/** user/create_anon: with a `key`, repeat calls hand out the existing user's token (secret required). */
export async function createAnonUser(ctx: ServiceContext, auth: AuthContext, input: CreateAnonInput) {
  const app = auth.app;
  if (input.key !== undefined) {
    const existing = await ctx.store.users.byKey(app._id, input.key);
    if (existing) return keyedResponse(ctx, auth, existing);
    if (!auth.secretVerified) throw apiError('invalid_client', 'client_secret is required when key is sent');
  }
  await checkLayersOnCreate(ctx, app._id, input.layer_ids);
  const now = ctx.now();
  const user: UserDoc = {
    ...blankUser(app._id, `_${newRandomString(17)}`, now),
    ...profileSet(app._id, input),
    is_anonymous: 1,
    display_name: input.display_name ?? 'Anonymous',
  };
  if (input.key !== undefined) {
    user.key = input.key;
    user.uniq_key = uniqKey(app._id, input.key);
  }
  try {
    await ctx.store.users.insert(user);
  } catch (err) {
    // Two creates raced on the same key: the store kept one; answer as a repeat call.
    if (err instanceof DuplicateKeyError && input.key !== undefined) {
      const winner = await ctx.store.users.byKey(app._id, input.key);
      if (winner) return keyedResponse(ctx, auth, winner);
    }
    throw err;
  }
  await subscribeOnCreate(ctx, user, input.layer_ids);
  return createdResponse(ctx, user);
}

async function keyedResponse(ctx: ServiceContext, auth: AuthContext, user: UserDoc) {
  if (!auth.secretVerified) throw apiError('duplicate_key', 'A user already exists with this key.');
  return createdResponse(ctx, user);
}

async function createdResponse(ctx: ServiceContext, user: UserDoc) {
  const app = await ctx.store.applications.get(user.app_id);
  const token = await issueUserToken(ctx, app!, user);
  return {
    display_name: user.display_name, username: user.username, user_id: user._id, is_anonymous: user.is_anonymous,
    ...(user.key !== undefined ? { key: user.key } : {}),
    access_token: token.access_token, expires_in: token.expires_in, scope: null, refresh_token: token.refresh_token, extra: user.extra,
  };
}

export interface CreateNamedInput extends ProfileFields {
  username?: string;
  password?: string;
  layer_ids?: string[];
}

/** user/create: a username or an email (or both), and a password for the password grant. */
export async function createNamedUser(ctx: ServiceContext, auth: AuthContext, input: CreateNamedInput) {
  const app = auth.app;
  const username = input.username ?? input.email;
  if (!username) throw apiError('missing_input', 'username or email is required');
  const problem = usernameProblem(username, input.username === undefined ? 'email' : 'username');
  if (problem) throw apiError('invalid_input', problem);
  await checkLayersOnCreate(ctx, app._id, input.layer_ids);
  const now = ctx.now();
  const user: UserDoc = {
    ...blankUser(app._id, username, now),
    ...profileSet(app._id, input),
    has_custom_username: 1,
  };
  if (!user.display_name) user.display_name = input.name || username;
  if (input.password !== undefined) {
    const password = input.password;
    user.password_hash = await ctx.authLimits.hashNew(app._id, username.toLowerCase(), () => hashPassword(password, ctx.config.passwordHashCost));
  }
  try {
    await ctx.store.users.insert(user);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw await userClashError(ctx, app._id, user, { usernameFromEmail: input.username === undefined });
    throw err;
  }
  await subscribeOnCreate(ctx, user, input.layer_ids);
  return { ...userRecord(user, now), ...(await createdResponse(ctx, user)) };
}

export async function listUsers(ctx: ServiceContext, appId: string, q: { offset?: number; limit?: number }) {
  const page = pageRequest(q);
  const { items, total } = await ctx.store.users.page(appId, page);
  const now = ctx.now();
  return { users: items.map((u) => userRecord(u, now)), paging: pagingObject(page, total, items.length) };
}

/** `field`: how the request named the new username (account/username calls it `username`). */
export async function updateUser(
  ctx: ServiceContext, appId: string, userId: string, fields: ProfileFields & { desired_username?: string }, field = 'desired_username',
) {
  const { extra: sentExtra, ...profile } = fields;
  const set = profileSet(appId, profile);
  const changes: Changes<UserDoc> = { set };
  if (sentExtra !== undefined) {
    // `extra` merges its keys into the stored hash (services/extra-merge.ts).
    const current = await ctx.store.users.get(appId, userId);
    if (!current) throw notFound('User');
    const extra = mergeExtra(sentExtra, current.extra);
    if (extra.whole) set.extra = extra.whole;
    else changes.extra = extra.keys;
  }
  if (fields.desired_username !== undefined) {
    const problem = usernameProblem(fields.desired_username, field);
    if (problem) throw apiError('invalid_input', problem);
    Object.assign(set, { username: fields.desired_username, uniq_username: uniqUsername(appId, fields.desired_username), has_custom_username: 1 });
  }
  let user: UserDoc | null;
  try {
    user = await ctx.store.users.update(appId, userId, changes);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw await userClashError(ctx, appId, set, { selfId: userId });
    throw err;
  }
  if (!user) throw notFound('User');
  return userRecord(user, ctx.now());
}

/**
 * account/check_username: the caller's own username (any case) is available to them, as it is theirs;
 * a name no one may take (spaces, control characters…) is unavailable, with the reference's `reason`.
 */
export async function usernameAvailable(ctx: ServiceContext, appId: string, desired: string, callerId?: string) {
  if (usernameProblem(desired, 'desired_username')) return { username: 'unavailable', reason: 'invalid' };
  const holder = await ctx.store.users.byUsername(appId, desired);
  return holder && holder._id !== callerId ? { username: 'unavailable', reason: 'taken' } : { username: 'available' };
}

/**
 * user/delete: the user, their tokens, subscriptions, messages, locations (last and history) and
 * trigger history; the engine drops their state and their open streams close. Callbacks about
 * them not sent yet go with their firings, payload and attempts (forgetUserFirings); the
 * user goes first, so a firing racing this delete finds them gone when it is dispatched.
 */
export async function deleteUser(ctx: ServiceContext, appId: string, userId: string) {
  const user = await requireUser(ctx, appId, userId);
  await removeUserGeonotes(ctx, appId, userId);
  await ctx.store.users.remove(appId, userId);
  await revokeUserTokens(ctx, userId);
  await ctx.store.subscriptions.removeForUser(appId, userId);
  await ctx.store.messages.removeForUser(appId, userId);
  await ctx.store.shareLinks.removeForUser(appId, userId);
  await ctx.store.locationBatches.removeForUser(appId, userId);
  await ctx.store.deviceMessages.removeForUser(appId, userId);
  await removeUserFromGroups(ctx, appId, userId);
  await ctx.store.lastLocations.removeUser(appId, userId);
  await ctx.store.locations.removeUser(appId, userId);
  await forgetUserFirings(ctx, appId, userId);
  await ctx.changes.publish({ kind: 'user', op: 'removed', doc: user });
  return { deleted: userId };
}
