// user/list's ways to find a user (docs/api.md "OAuth and users"): `q` matches an id, a username's
// start or a part of a name; `sort=recent` lists the users whose points arrived last first. Both
// answer a page of the application's users, each with when their last point was taken, so a
// developer (the inspector) can tell users apart, anonymous ones included.
import { apiError } from '../errors.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { LocationDoc } from '../store/documents-engine.js';
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { pageRequest, pagingObject } from './paging.js';
import { userRecord } from './profile.js';

export interface UserFind {
  offset?: number;
  limit?: number;
  q?: string;
  sort?: 'created' | 'recent';
}

/** Pages of a search are short: the page is a picker, not an export. */
const FIND_MAX_LIMIT = 100;
/** The most recent users sort=recent pages through. */
const RECENT_MAX = 10_000;

function lastLocationOf(l: LocationDoc | undefined) {
  return l ? { date: isoDate(l.date), date_ts: unixSeconds(l.date) } : null;
}

export async function findUsers(ctx: ServiceContext, appId: string, query: UserFind) {
  if (query.q !== undefined && query.sort === 'recent') {
    throw apiError('invalid_request', 'q and sort=recent do not combine: search, or list by recent activity');
  }
  const page = pageRequest(query);
  page.limit = Math.min(page.limit, FIND_MAX_LIMIT);
  const now = ctx.now();

  if (query.sort === 'recent') {
    // The application's last locations, newest first (one per user).
    const recent = (await ctx.store.lastLocations.ofApp(appId, RECENT_MAX)).sort((a, b) => b.date - a.date || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    const shown = recent.slice(page.offset, page.offset + page.limit);
    const byId = new Map((await ctx.store.users.many(appId, shown.map((l) => l.user_id))).map((u) => [u._id, u]));
    const items = shown.flatMap((l) => {
      const u = byId.get(l.user_id);
      return u ? [{ ...userRecord(u, now), last_location: lastLocationOf(l) }] : [];
    });
    return { users: items, paging: pagingObject(page, recent.length, shown.length) };
  }

  const q = (query.q ?? '').trim();
  const lower = q.toLowerCase();
  const users = await ctx.store.users.forApp(appId);
  const matching = (q === ''
    ? users
    : users.filter((u) => u._id === q || u.username.toLowerCase().startsWith(lower) || [u.name, u.display_name].some((n) => typeof n === 'string' && n.toLowerCase().includes(lower))))
    .sort((a, b) => a.created_at - b.created_at || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  const items = matching.slice(page.offset, page.offset + page.limit);
  const found = await ctx.store.lastLocations.ofUsers(appId, items.map((u: UserDoc) => u._id));
  const lastById = new Map(found.map((l) => [l.user_id, l]));
  return {
    users: items.map((u) => ({ ...userRecord(u, now), last_location: lastLocationOf(lastById.get(u._id)) })),
    paging: pagingObject(page, matching.length, items.length),
  };
}
