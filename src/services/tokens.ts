// Issuing access and refresh tokens (reference §2.3): only their SHA-256 digests are stored.
import { newToken, sha256Hex } from '../auth/secrets.js';
import { apiError } from '../errors.js';
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

const REFRESH_TTL_MS = 365 * 86400_000;

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  scope: null;
  refresh_token?: string;
}

async function issue(ctx: ServiceContext, app: ApplicationDoc, user: UserDoc | undefined, withRefresh: boolean): Promise<TokenResponse> {
  const now = ctx.now();
  const ttl = user ? ctx.config.accessTokenTtl : ctx.config.appTokenTtl;
  const accessToken = newToken(user ? 'usr' : 'app');
  await ctx.store.tokens.insert({
    _id: sha256Hex(accessToken), kind: user ? 'user' : 'app', app_id: app._id, user_id: user?._id,
    expires_at: ttl > 0 ? now + ttl * 1000 : null, created_at: now,
  });
  const res: TokenResponse = { access_token: accessToken, expires_in: ttl, scope: null };
  if (withRefresh) {
    const refresh = newToken('ref');
    await ctx.store.tokens.insert({
      _id: sha256Hex(refresh), kind: 'refresh', app_id: app._id, user_id: user?._id, expires_at: now + REFRESH_TTL_MS, created_at: now,
    });
    res.refresh_token = refresh;
  }
  return res;
}

/** A user token plus its refresh token; the identity fields clients read from the token response. */
export async function issueUserToken(ctx: ServiceContext, app: ApplicationDoc, user: UserDoc) {
  const t = await issue(ctx, app, user, true);
  return { ...t, user_id: user._id, username: user.username, display_name: user.display_name, is_anonymous: user.is_anonymous };
}

/**
 * A user token with no refresh token, for the implicit grant (RFC 6749 §4.2.2: none may be issued
 * there; geoloqi-js's authenticate() asks for it and reads the token from the URL fragment).
 */
export function issueImplicitUserToken(ctx: ServiceContext, app: ApplicationDoc, user: UserDoc) {
  return issue(ctx, app, user, false);
}

/**
 * An application token from client_credentials. It never expires unless APP_TOKEN_TTL is set (the
 * historical clients' server apps hold one for their whole life; an expired one broke them); then a
 * refresh token comes with it, which the ruby and python clients send back on `expired_token`.
 */
export function issueAppToken(ctx: ServiceContext, app: ApplicationDoc) {
  return issue(ctx, app, undefined, ctx.config.appTokenTtl > 0);
}

/** The ids of a token response's documents (to withdraw them together). */
export const tokenIds = (res: TokenResponse) => [sha256Hex(res.access_token), ...(res.refresh_token ? [sha256Hex(res.refresh_token)] : [])];

/**
 * grant_type=client_credentials for `app` as authenticated. A rotation that landed between that
 * check and the insert (revokeAppTokens ran before the token existed) would miss the token, so
 * the secret is read again afterwards: changed, the token is withdrawn and null answered.
 */
export async function grantAppToken(ctx: ServiceContext, app: ApplicationDoc): Promise<TokenResponse | null> {
  const res = await issueAppToken(ctx, app);
  const current = await ctx.store.applications.get(app._id);
  if (current?.client_secret_hash === app.client_secret_hash) return res;
  await ctx.store.tokens.removeMany(tokenIds(res));
  return null;
}

/**
 * account/permanent_token (reference §2.3, §4.9): a user token that never expires, for the user of
 * an application the operator pre-approved (`permanent_tokens`, admin API). No refresh token: there
 * is nothing to refresh. Deleting the user, or user/secure_delete, revokes it with their others.
 */
export async function issuePermanentUserToken(ctx: ServiceContext, app: ApplicationDoc, user: UserDoc) {
  const accessToken = newToken('usr');
  await ctx.store.tokens.insert({ _id: sha256Hex(accessToken), kind: 'user', app_id: app._id, user_id: user._id, expires_at: null, created_at: ctx.now() });
  return {
    access_token: accessToken, expires_in: 0 as const, scope: null,
    user_id: user._id, username: user.username, display_name: user.display_name, is_anonymous: user.is_anonymous,
  };
}

/** The operator's application token (handed out at app creation and secret rotation): it never expires. */
export async function issuePermanentAppToken(ctx: ServiceContext, appId: string): Promise<string> {
  const accessToken = newToken('app');
  await ctx.store.tokens.insert({ _id: sha256Hex(accessToken), kind: 'app', app_id: appId, expires_at: null, created_at: ctx.now() });
  return accessToken;
}

/**
 * Every application token of the app, minted with client_credentials or handed to the operator:
 * a rotated secret may have leaked, and its holder may have minted some. User tokens stay. The
 * delete clears this process's token cache at once (token-cache.ts).
 */
export async function revokeAppTokens(ctx: ServiceContext, appId: string) {
  // The application's own refresh tokens (APP_TOKEN_TTL) too: each would mint another.
  await ctx.store.tokens.removeAppTokens(appId);
}

/**
 * Exchanges a refresh token: the old one is spent (each response's refresh token replaces it). An
 * application's refresh token needs the API secret (`secretVerified`), as client_credentials does.
 */
export async function redeemRefreshToken(ctx: ServiceContext, app: ApplicationDoc, refreshToken: string, secretVerified = false) {
  const id = sha256Hex(refreshToken);
  const doc = await ctx.store.tokens.get(id);
  if (!doc || doc.kind !== 'refresh' || doc.app_id !== app._id || (doc.expires_at !== null && doc.expires_at <= ctx.now())) return null;
  if (!doc.user_id && !secretVerified) throw apiError('invalid_grant', "An application's refresh token is redeemed with the client secret");
  if (!(await ctx.store.tokens.remove(id))) return null; // spent concurrently
  if (!doc.user_id) return issueAppToken(ctx, app);
  const user = await ctx.store.users.get(app._id, doc.user_id);
  return user ? issueUserToken(ctx, app, user) : null;
}

export async function revokeUserTokens(ctx: ServiceContext, userId: string) {
  await ctx.store.tokens.removeForUser(userId);
}
