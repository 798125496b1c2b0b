// Share links (reference §4.13): a user shares their location through a 7-character token, for a
// time window or for ever; link/* manage the caller's own links, share/* read a shared location.
// link/*: a token of another user or application is reported as one that does not exist (404).
// share/*: the share token is the credential (a viewing page holds nothing else), so they take no
// access token; one that is sent must be valid, and then only its application's links count. Every
// token that is not open, whatever the reason (unknown, another application's, inactive, expired,
// outside its hours), is the same 403 `invalid_token`, so a guess learns nothing; unknown tokens
// count against the caller's address (auth/limits.ts).
import { apiError, notFound } from '../errors.js';
import { isoDate, offsetString, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { mergeWindows, windowGate } from '../geo/time-window.js';
import type { ShareLinkDoc, UserDoc } from '../store/documents.js';
import { newRandomString } from '../store/ids.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import type { ServiceContext } from './context.js';
import { locationHistory, pointView, type HistoryQuery } from './locations.js';
import { requestTimeZone } from './request-zone.js';
import { windowChange, type WindowInput } from './validity-window.js';

export interface LinkInput extends WindowInput {
  minutes?: number;
  description?: string;
  share_with?: string;
}

/**
 * A token: 7 characters of base64url (the reference's length), never starting with '-' nor
 * containing ',' (share/last splits on commas): 63 × 64⁶ ≈ 4.3 × 10¹² values (42 bits) from the
 * system's CSPRNG, and unknown tokens are rate-limited per address.
 */
function newToken(): string {
  for (;;) {
    const t = newRandomString(7);
    if (t[0] !== '-') return t;
  }
}

/** link/create. `minutes` stands alone; `time_from` needs `time_to`; no dates: never expires. `baseUrl`: the service's public one. */
export async function createLink(ctx: ServiceContext, user: UserDoc, input: LinkInput, baseUrl: string, timeZone: string) {
  const { minutes, description, share_with, ...window } = input;
  const now = ctx.now();
  if (minutes !== undefined) {
    const given = Object.entries(window).filter(([, v]) => v !== undefined).map(([k]) => k);
    if (given.length > 0) throw apiError('invalid_input', `minutes cannot be combined with ${given.join(', ')}`);
  }
  if ((window.time_from === undefined) !== (window.time_to === undefined)) throw apiError('invalid_input', 'time_from and time_to go together');
  const times = minutes !== undefined ? { date_from: now, date_to: now + minutes * 60_000 } : windowChange(window, {}, timeZone).set;
  const doc: ShareLinkDoc = {
    _id: newToken(), app_id: user.app_id, user_id: user._id, description: description ?? '', share_with: share_with ?? '',
    status: 'active', created_at: now, ...times,
  };
  // Tokens are global (share/* finds them without an application): a collision draws again.
  for (let tries = 1; ; tries++) {
    try {
      await ctx.store.shareLinks.insert(doc);
      break;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError) || tries >= 5) throw err;
      doc._id = newToken();
    }
  }
  const url = `${baseUrl}/1/share/last?geoloqi_token=${doc._id}`;
  return { link: url, shortlink: url, token: doc._id };
}

type LinkAction = 'expire' | 'activate' | 'deactivate';

const ACTIONS: Record<LinkAction, { to: ShareLinkDoc['status']; refuse: (s: ShareLinkDoc['status']) => [code: 'already_expired' | 'already_active' | 'already_inactive', text: string] | undefined }> = {
  expire: { to: 'expired', refuse: (s) => (s === 'expired' ? ['already_expired', 'The token was already expired'] : undefined) },
  activate: {
    to: 'active',
    refuse: (s) => (s === 'active' ? ['already_active', 'The token is already active'] : s === 'expired' ? ['already_expired', 'The token was already expired'] : undefined),
  },
  deactivate: {
    to: 'inactive',
    refuse: (s) => (s === 'inactive' ? ['already_inactive', 'The token is already inactive'] : s === 'expired' ? ['already_expired', 'The token was already expired'] : undefined),
  },
};

/** One of the caller's links; anyone else's is "not found", as the reference's 404 (never its 403, which would confirm it exists). */
async function ownLink(ctx: ServiceContext, user: UserDoc, token: string | undefined): Promise<ShareLinkDoc> {
  if (token === undefined || token === '') throw apiError('missing_input', 'Token not found in request body');
  const link = await ctx.store.shareLinks.get(user.app_id, token);
  if (!link || link.user_id !== user._id) throw apiError('not_found', 'The token provided was not found');
  return link;
}

/** link/expire, link/activate, link/deactivate: expiry is permanent. */
export async function changeLink(ctx: ServiceContext, user: UserDoc, token: string | undefined, action: LinkAction) {
  const link = await ownLink(ctx, user, token);
  const refused = ACTIONS[action].refuse(link.status);
  if (refused) throw apiError(refused[0], refused[1]);
  await ctx.store.shareLinks.setStatus(user.app_id, link._id, ACTIONS[action].to);
  return { result: 'ok' as const };
}

/** Whether the link shows the location now: active, and inside its dates and daily window (in the user's zone). */
async function linkOpen(ctx: ServiceContext, link: ShareLinkDoc, now: number): Promise<boolean> {
  if (link.status !== 'active') return false;
  const user = await ctx.store.users.get(link.app_id, link.user_id);
  return user !== null && windowGate(mergeWindows(link), now, user.timezone) === null;
}

const dated = (name: string, at: number | undefined, tz: string) =>
  at === undefined ? { [name]: null, [`${name}_ts`]: null } : { [name]: isoDate(at, tz), [`${name}_ts`]: unixSeconds(at) };

/** link/stats: the link and its visits (none are recorded: this service serves no viewing page). */
export async function linkStats(ctx: ServiceContext, user: UserDoc, token: string, timeZone: string) {
  const link = await ownLink(ctx, user, token);
  return {
    link: {
      token: link._id, ...dated('date_created', link.created_at, timeZone), ...dated('date_from', link.date_from, timeZone),
      ...dated('date_to', link.date_to, timeZone), time_from: link.time_from ?? null, time_to: link.time_to ?? null,
      share_with: link.share_with, description: link.description, currently_active: (await linkOpen(ctx, link, ctx.now())) ? '1' : '0',
    },
    visits: [],
  };
}

/** Who reads a share link: the application of the access token sent (none: any), and the address. */
export interface ShareViewer {
  appId?: string;
  address?: string;
}

const NO_VALID_TOKEN = () => apiError('share_tokens_invalid', 'No tokens in the request are currently valid');

/** The open links among `tokens`, each with its user; none open is the reference's 403 invalid_token. */
async function openLinks(ctx: ServiceContext, viewer: ShareViewer, tokens: string[]) {
  const open = await findOpenLinks(ctx, viewer, tokens);
  if (open.length === 0) throw NO_VALID_TOKEN();
  return open;
}

/**
 * The share link the streaming API's `trip-<token>` watches (services/streaming.ts), when it shows
 * its user's location now; null when it does not, or is unknown to the viewer's application.
 */
export async function openTripLink(ctx: ServiceContext, viewer: ShareViewer, token: string): Promise<ShareLinkDoc | null> {
  const [open] = await findOpenLinks(ctx, viewer, [token]);
  return open?.link ?? null;
}

/** Whether the link (of the application `appId`) still shows its user's location: read again, as it may have been deactivated. */
export async function shareLinkOpen(ctx: ServiceContext, appId: string, token: string): Promise<boolean> {
  const link = await ctx.store.shareLinks.get(appId, token);
  return link !== null && (await linkOpen(ctx, link, ctx.now()));
}

async function findOpenLinks(ctx: ServiceContext, viewer: ShareViewer, tokens: string[]) {
  const now = ctx.now();
  const lookup = async () => {
    const stored = await ctx.store.shareLinks.byTokens(tokens);
    return stored.filter((l) => viewer.appId === undefined || l.app_id === viewer.appId);
  };
  // Unknown tokens (another application's read as unknown) count as failed guesses of the address.
  const found = await ctx.authLimits.checkShareTokens(viewer.address, tokens, lookup);
  const open: Array<{ link: ShareLinkDoc; user: UserDoc }> = [];
  for (const token of tokens) {
    const link = found.find((l) => l._id === token);
    if (!link || !(await linkOpen(ctx, link, now))) continue;
    const user = await ctx.store.users.get(link.app_id, link.user_id);
    if (user) open.push({ link, user });
  }
  return open;
}

const tokensOf = (value: string) => value.split(',').filter((t) => t !== '');

/** share/last: one token answers one point; several (or a leading comma) answer `{locations: [...]}`. */
export async function shareLast(ctx: ServiceContext, viewer: ShareViewer, q: { geoloqi_token: string; after?: number | string }, headerZone?: string) {
  const open = await openLinks(ctx, viewer, tokensOf(q.geoloqi_token));
  const points = [];
  for (const { user } of open) {
    const last = await ctx.store.lastLocations.of(user.app_id, user._id);
    if (!last) continue;
    const zone = requestTimeZone(headerZone, user);
    if (q.after !== undefined && last.date <= parseDateInput(q.after, 'after', zone)) continue;
    points.push({ ...pointView(last, zone), username: user.username });
  }
  const single = !q.geoloqi_token.includes(',');
  if (single) {
    if (points.length === 0) throw notFound('Location');
    const { username: _username, ...point } = points[0];
    return point;
  }
  return { locations: points };
}

/** share/history: location/history of the link's user, newest first unless `sort` says otherwise. */
export async function shareHistory(ctx: ServiceContext, viewer: ShareViewer, q: HistoryQuery & { geoloqi_token: string }, headerZone?: string) {
  const [{ user }] = await openLinks(ctx, viewer, tokensOf(q.geoloqi_token).slice(0, 1));
  const { geoloqi_token: _t, ...history } = q;
  return locationHistory(ctx, user, { ...history, sort: history.sort ?? 'desc' }, requestTimeZone(headerZone, user));
}

/** share/info: whose location the link shares, and the link. */
export async function shareInfo(ctx: ServiceContext, viewer: ShareViewer, token: string, headerZone?: string) {
  const [{ link, user }] = await openLinks(ctx, viewer, tokensOf(token).slice(0, 1));
  const timeZone = requestTimeZone(headerZone, user);
  return {
    profile: {
      user_id: user._id, username: user.username, name: user.name, bio: user.bio, website: user.website, timezone: user.timezone,
      timezone_offset: offsetString(user.timezone, ctx.now()), twitter: user.twitter, profile_image: user.profile_image, is_anonymous: user.is_anonymous,
    },
    share: {
      description: link.description, date_created: isoDate(link.created_at, timeZone),
      date_from: link.date_from === undefined ? null : isoDate(link.date_from, timeZone), date_to: link.date_to === undefined ? null : isoDate(link.date_to, timeZone),
    },
  };
}
