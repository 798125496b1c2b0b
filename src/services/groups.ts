// Groups (reference §4.7): create, update, delete, info, list, members, subscriptions, join and
// leave. Messages and locations of a group are group-activity.ts's.
//
// Who sees what. An application token sees and manages every group of its application. A user
// token sees a `public` or `open` group (the token is the invitation), an `invite` group only as
// its owner or a member; a group it cannot see is "Group not found" (404), as another
// application's is. Only the application or the user who created a group may change or delete
// it (403 for the other users who can see it). A user joins a group it can see with its own token;
// only an application token adds another user (`user_id`).
import type { AuthContext } from '../auth/authenticate.js';
import { apiError, notFound } from '../errors.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { GroupDoc, GroupMemberDoc, GroupMembership, GroupPublishAccess, GroupVisibility, UserDoc } from '../store/documents.js';
import { newRandomString } from '../store/ids.js';
import { memberId } from '../store/repos/index.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import { userIdFor } from './acting-user.js';
import type { ServiceContext } from './context.js';
import { pageRequest, pagingObject } from './paging.js';

export interface GroupInput {
  title?: string;
  description?: string;
  visibility?: GroupVisibility;
  publish_access?: GroupPublishAccess;
}

/** Group tokens are capabilities (an open group is readable by whoever holds its token): ~72 random bits. */
const TOKEN_CHARS = 12;
/** Members read at once (members, last, message delivery); groups are games and teams, not crowds. */
export const MAX_MEMBERS = 10_000;

function newGroupToken(): string {
  for (;;) {
    const token = newRandomString(TOKEN_CHARS);
    if (token[0] !== '-') return token;
  }
}

/** group/info's object (reference §4.7), dated in `timeZone`. */
export function groupInfo(g: GroupDoc, timeZone: string) {
  return {
    group_token: g._id,
    title: g.title,
    description: g.description,
    visibility: g.visibility,
    publish_access: g.publish_access,
    active: 1 as const,
    date_created: isoDate(g.date_created, timeZone),
    date_created_ts: unixSeconds(g.date_created),
  };
}

/** A member as other members see them: no email, phone or device tokens. */
export function publicProfile(u: UserDoc) {
  return {
    user_id: u._id, username: u.username, name: u.name, display_name: u.display_name,
    bio: u.bio, website: u.website, profile_image: u.profile_image, is_anonymous: u.is_anonymous,
  };
}

const isOwner = (auth: AuthContext, g: GroupDoc) => auth.kind === 'user' && g.owner_id !== undefined && g.owner_id === auth.user!._id;
const manages = (auth: AuthContext, g: GroupDoc) => auth.kind === 'app' || isOwner(auth, g);

export function membershipOf(ctx: ServiceContext, g: GroupDoc, userId: string): Promise<GroupMemberDoc | null> {
  return ctx.store.groupMembers.get(g.app_id, g._id, userId);
}

/** The group `token` names, if `auth` may see it; else "Group not found", as for a missing one. */
export async function visibleGroup(ctx: ServiceContext, auth: AuthContext, token: string): Promise<GroupDoc> {
  const g = await ctx.store.groups.get(auth.app._id, token);
  if (!g) throw notFound('Group');
  if (auth.kind === 'app' || g.visibility !== 'invite' || isOwner(auth, g)) return g;
  if (auth.kind === 'user' && (await membershipOf(ctx, g, auth.user!._id))) return g;
  throw notFound('Group');
}

async function managedGroup(ctx: ServiceContext, auth: AuthContext, token: string): Promise<GroupDoc> {
  const g = await visibleGroup(ctx, auth, token);
  if (!manages(auth, g)) throw apiError('access_denied', 'Only the application or the user who created this group may change it');
  return g;
}

/** Whether `auth` may post to the group: its manager, or a publishing member. */
export async function mayPublish(ctx: ServiceContext, auth: AuthContext, g: GroupDoc): Promise<boolean> {
  if (manages(auth, g)) return true;
  const m = auth.kind === 'user' ? await membershipOf(ctx, g, auth.user!._id) : null;
  return m?.membership === 'publishing';
}

function settable(input: GroupInput): Partial<GroupDoc> {
  const set: Partial<GroupDoc> = {};
  for (const k of ['title', 'description', 'visibility', 'publish_access'] as const) {
    if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
  }
  return set;
}

/** group/create: `{"group_token": ...}`. A user token makes that user the group's owner. */
export async function createGroup(ctx: ServiceContext, auth: AuthContext, input: GroupInput) {
  const doc: GroupDoc = {
    _id: newGroupToken(), app_id: auth.app._id, title: '', description: '', visibility: 'open', publish_access: 'open',
    date_created: ctx.now(), ...settable(input),
    ...(auth.kind === 'user' ? { owner_id: auth.user!._id } : {}),
  };
  await ctx.store.groups.insert(doc);
  return { group_token: doc._id };
}

/** group/update/:token: the changed group's info. */
export async function updateGroup(ctx: ServiceContext, auth: AuthContext, token: string, input: GroupInput, timeZone: string) {
  const g = await managedGroup(ctx, auth, token);
  const set = settable(input);
  const updated = Object.keys(set).length ? await ctx.store.groups.update(g.app_id, g._id, { set }) : g;
  if (!updated) throw notFound('Group');
  return groupInfo(updated, timeZone);
}

/** group/delete/:token: its members and messages go with it. */
export async function deleteGroup(ctx: ServiceContext, auth: AuthContext, token: string) {
  const g = await managedGroup(ctx, auth, token);
  await ctx.store.groups.remove(g.app_id, g._id);
  await ctx.store.groupMembers.removeForGroup(g.app_id, g._id);
  await ctx.store.groupMessages.removeForGroup(g.app_id, g._id);
  return { result: 'ok' as const };
}

export async function groupInfoOf(ctx: ServiceContext, auth: AuthContext, token: string, timeZone: string) {
  return groupInfo(await visibleGroup(ctx, auth, token), timeZone);
}

/** group/list: the groups a user created (user token), every group of the application (application token). */
export async function listGroups(ctx: ServiceContext, auth: AuthContext, q: { offset?: number; limit?: number }, timeZone: string) {
  const page = pageRequest(q);
  const { items, total } = await ctx.store.groups.page(auth.app._id, auth.kind === 'user' ? auth.user!._id : undefined, page);
  return { groups: items.map((g) => groupInfo(g, timeZone)), paging: pagingObject(page, total, items.length) };
}

/** group/subscriptions: the groups a user is a member of (their own, or `user_id`'s for an application token). */
export async function groupSubscriptions(ctx: ServiceContext, auth: AuthContext, q: { user_id?: string; offset?: number; limit?: number }, timeZone: string) {
  const userId = await subjectUserId(ctx, auth, q.user_id);
  const page = pageRequest(q);
  const { items, total } = await ctx.store.groupMembers.pageForUser(auth.app._id, userId, page);
  const groups = await ctx.store.groups.many(auth.app._id, items.map((m) => m.group_token));
  const byToken = new Map(groups.map((g) => [g._id, g]));
  const shown = items.flatMap((m) => {
    const g = byToken.get(m.group_token);
    return g ? [{ ...groupInfo(g, timeZone), membership: m.membership }] : [];
  });
  return { groups: shown, paging: pagingObject(page, total, items.length) };
}

/** The user a membership call is about: the caller (user token), or `user_id`, one of the application's users. */
async function subjectUserId(ctx: ServiceContext, auth: AuthContext, userId: string | undefined): Promise<string> {
  const id = userIdFor(auth, userId);
  if (!id) throw apiError('missing_input', 'user_id is required with an application token');
  if (auth.kind === 'app' && !(await ctx.store.users.get(auth.app._id, id))) throw notFound('User');
  return id;
}

/**
 * group/join/:token. The application adding a user makes them a publishing member; a user joining
 * by itself publishes when the group's publish_access is `open` (or it owns the group), else only
 * watches (`subscribed`). An application token without user_id joins nothing: the application sees
 * its groups already (MapAttack makes this call after group/create).
 */
export async function joinGroup(ctx: ServiceContext, auth: AuthContext, token: string, input: { user_id?: string }) {
  const g = await visibleGroup(ctx, auth, token);
  if (auth.kind === 'app' && input.user_id === undefined) return { result: 'ok' as const, group_token: g._id };
  const userId = await subjectUserId(ctx, auth, input.user_id);
  const membership: GroupMembership = manages(auth, g) || g.publish_access === 'open' ? 'publishing' : 'subscribed';
  const existing = await ctx.store.groupMembers.get(g.app_id, g._id, userId);
  // Joining again never takes publishing away.
  const kept: GroupMembership = existing?.membership === 'publishing' ? 'publishing' : membership;
  if (!existing) {
    // Members list in join order: a join in the same millisecond as the last one comes after it.
    const last = await ctx.store.groupMembers.lastJoinedAt(g.app_id, g._id);
    const date_joined = Math.max(ctx.now(), (last ?? 0) + 1);
    const doc: GroupMemberDoc = { _id: memberId(g._id, userId), app_id: g.app_id, group_token: g._id, user_id: userId, membership: kept, date_joined };
    try {
      await ctx.store.groupMembers.insert(doc);
    } catch (err) {
      // Joined meanwhile by a concurrent call: that membership stands.
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  } else if (existing.membership !== kept) {
    await ctx.store.groupMembers.setMembership(g.app_id, g._id, userId, kept);
  }
  return { result: 'ok' as const, group_token: g._id, user_id: userId, membership: kept };
}

/** group/leave/:token: leaving a group one is not in is not an error. */
export async function leaveGroup(ctx: ServiceContext, auth: AuthContext, token: string, input: { user_id?: string }) {
  const g = await visibleGroup(ctx, auth, token);
  const userId = await subjectUserId(ctx, auth, input.user_id);
  await ctx.store.groupMembers.remove(g.app_id, g._id, userId);
  return { result: 'ok' as const, group_token: g._id, user_id: userId };
}

/** The group's members with their user documents, oldest member first. */
export async function membersOf(ctx: ServiceContext, g: GroupDoc): Promise<Array<{ member: GroupMemberDoc; user: UserDoc }>> {
  const members = await ctx.store.groupMembers.ofGroup(g.app_id, g._id, MAX_MEMBERS);
  const users = await ctx.store.users.many(g.app_id, members.map((m) => m.user_id));
  const byId = new Map(users.map((u) => [u._id, u]));
  return members.flatMap((member) => {
    const user = byId.get(member.user_id);
    return user ? [{ member, user }] : [];
  });
}

/** group/members/:token. */
export async function groupMembers(ctx: ServiceContext, auth: AuthContext, token: string) {
  const g = await visibleGroup(ctx, auth, token);
  return { members: (await membersOf(ctx, g)).map(({ member, user }) => ({ profile: publicProfile(user), membership: member.membership })) };
}

/** user/delete: the user's memberships and what they posted to groups. */
export async function removeUserFromGroups(ctx: ServiceContext, appId: string, userId: string): Promise<void> {
  await ctx.store.groupMembers.removeForUser(appId, userId);
  await ctx.store.groupMessages.removeForUser(appId, userId);
}
