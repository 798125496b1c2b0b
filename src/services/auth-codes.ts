// OAuth 2 authorization codes (RFC 6749 §4.1, reference §2.3 and §2.4), with PKCE (RFC 7636):
// /oauth/authorize issues one after the user logged in, oauth/token exchanges it once for a user
// token. Codes live in the store (oauth_codes, only their SHA-256), so they survive a restart and
// any node may exchange them; the retention sweep removes expired ones.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../auth/secrets.js';
import { apiError } from '../errors.js';
import type { ApplicationDoc, AuthCodeDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { issueUserToken, tokenIds } from './tokens.js';

/** How long a code may wait for its exchange (RFC 6749 §4.1.2: ten minutes at most). */
export const CODE_TTL_MS = 5 * 60_000;
/** How long a spent or expired code is kept, so a replay is still recognised and its tokens withdrawn. */
export const CODE_KEEP_MS = 86_400_000;

/** RFC 7636 §4.1/§4.2: 43 to 128 unreserved characters. */
const PKCE_STRING = /^[A-Za-z0-9._~-]{43,128}$/;

export interface AuthorizeRequest {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** A client and redirect URI an authorize request may use; `sent`: whether it named the URI. */
export interface AuthorizeTarget {
  app: ApplicationDoc;
  redirectUri: string;
  sent: boolean;
}

/**
 * The application and the redirect URI of an authorize request, or why there is none. These
 * failures are shown to the user and never redirected (RFC 6749 §4.1.2.1): the URI is not trusted.
 */
export async function authorizeTarget(ctx: ServiceContext, req: AuthorizeRequest): Promise<AuthorizeTarget | { problem: string }> {
  if (!req.client_id) return { problem: 'The request names no application (client_id is missing).' };
  const app = await ctx.store.applications.byClientId(req.client_id);
  if (!app) return { problem: 'The application is unknown (no application has this client_id).' };
  const registered = app.redirect_uris ?? [];
  if (registered.length === 0) return { problem: 'The application has no registered redirect_uri: its operator must add one.' };
  if (req.redirect_uri === undefined || req.redirect_uri === '') {
    if (registered.length === 1) return { app, redirectUri: registered[0]!, sent: false };
    return { problem: 'The request names no redirect_uri and the application registered several.' };
  }
  if (!registered.includes(req.redirect_uri)) return { problem: 'The redirect_uri is not one the application registered.' };
  return { app, redirectUri: req.redirect_uri, sent: true };
}

/** What of an authorize request, once its target is known, is an error for the client (redirected): null when none. */
export function authorizeRequestError(req: AuthorizeRequest): { error: string; description: string } | null {
  if (!req.response_type) return { error: 'invalid_request', description: 'response_type is required' };
  if (req.response_type === 'token') return null;
  if (req.response_type !== 'code') return { error: 'unsupported_response_type', description: 'response_type must be code (or token, the implicit grant)' };
  const method = req.code_challenge_method;
  if (req.code_challenge === undefined || req.code_challenge === '') {
    return method ? { error: 'invalid_request', description: 'code_challenge_method without code_challenge' } : null;
  }
  if (method !== undefined && method !== 'S256' && method !== 'plain') {
    return { error: 'invalid_request', description: 'code_challenge_method must be S256 or plain' };
  }
  if (!PKCE_STRING.test(req.code_challenge)) return { error: 'invalid_request', description: 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~' };
  return null;
}

/** A new single-use code for `user`, bound to the application, the redirect URI and the PKCE challenge if any. */
export async function issueCode(ctx: ServiceContext, target: AuthorizeTarget, user: UserDoc, req: AuthorizeRequest): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const doc: AuthCodeDoc = {
    _id: sha256Hex(code), app_id: target.app._id, user_id: user._id, redirect_uri: target.redirectUri, redirect_uri_sent: target.sent,
    used: false, expires_at: now + CODE_TTL_MS, created_at: now,
  };
  if (req.code_challenge) {
    doc.code_challenge = req.code_challenge;
    // RFC 7636 §4.3: absent means plain.
    doc.code_challenge_method = req.code_challenge_method === 'S256' ? 'S256' : 'plain';
  }
  await ctx.store.authCodes.insert(doc);
  return code;
}

export interface CodeExchange {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

const invalidCode = () => apiError('invalid_grant', 'The authorization code is invalid');

/** A URI's query as URLSearchParams writes it, for comparing URIs whose queries were rebuilt. */
function normalized(url: URL, params: Array<[string, string]>): string {
  const copy = new URL(url);
  copy.search = new URLSearchParams(params).toString();
  return copy.toString();
}

/**
 * Whether the exchange names the redirect URI the code was issued for: as registered, or as the
 * browser came back to it, with the `code` (and `state`) the service added at the end of its query.
 * Some clients send the URL they were called back on (MapAttack's admin login), and the real
 * Geoloqi accepted it; a URI that differs in anything else is still refused.
 */
function sameRedirectUri(sent: string, issuedFor: string, code: string): boolean {
  if (sent === issuedFor) return true;
  let url: URL;
  let registered: URL;
  try {
    url = new URL(sent);
    registered = new URL(issuedFor);
  } catch {
    return false;
  }
  const params = [...url.searchParams];
  if (params.at(-1)?.[0] === 'state') params.pop();
  const added = params.pop();
  if (added?.[0] !== 'code' || added[1] !== code) return false;
  return normalized(url, params) === normalized(registered, [...registered.searchParams]);
}
const spentCode = () => apiError('invalid_grant', 'The authorization code has already been used');

/**
 * grant_type=authorization_code for `app`. A code sent with a PKCE challenge may be exchanged
 * without the secret (a public client: the verifier proves it); any other needs the secret. A code
 * exchanged twice is refused and the tokens of its first exchange are withdrawn (RFC 6749 §4.1.2).
 */
export async function redeemCode(ctx: ServiceContext, app: ApplicationDoc, secretVerified: boolean, req: CodeExchange) {
  if (!req.code) throw apiError('invalid_request', 'code is required');
  const id = sha256Hex(req.code);
  const doc = await ctx.store.authCodes.get(id);
  if (!doc || doc.app_id !== app._id) throw invalidCode();
  if (doc.used) {
    await withdraw(ctx, doc.token_ids);
    throw spentCode();
  }
  // The ruby client tells this description apart from an expired access token (reference §2.3).
  if (doc.expires_at <= ctx.now()) throw apiError('invalid_grant', 'The auth code expired');
  if (!doc.code_challenge && !secretVerified) {
    throw apiError('invalid_client', 'client_secret is required to exchange a code issued without code_challenge', { 'www-authenticate': 'Basic realm="geotrigger"' });
  }
  const named = req.redirect_uri !== undefined && req.redirect_uri !== '';
  if ((doc.redirect_uri_sent || named) && !sameRedirectUri(req.redirect_uri ?? '', doc.redirect_uri, req.code)) {
    throw apiError('invalid_grant', 'redirect_uri does not match the one the code was issued for');
  }
  checkVerifier(doc, req.code_verifier);
  const user = await ctx.store.users.get(app._id, doc.user_id);
  if (!user) throw invalidCode();
  const res = await issueUserToken(ctx, app, user);
  const ids = tokenIds(res);
  // Claimed only now, with the tokens it stands for: a concurrent exchange loses, and both its
  // tokens and the winner's are withdrawn, as for any replay.
  if (!(await ctx.store.authCodes.claim(id, ids))) {
    await withdraw(ctx, ids);
    await withdraw(ctx, (await ctx.store.authCodes.get(id))?.token_ids);
    throw spentCode();
  }
  return res;
}

function checkVerifier(doc: AuthCodeDoc, verifier: string | undefined) {
  if (!doc.code_challenge) {
    // RFC 9700 §2.1.1: a verifier for a code issued without a challenge is refused (a downgrade).
    if (verifier !== undefined && verifier !== '') throw apiError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
    return;
  }
  if (verifier === undefined || verifier === '') throw apiError('invalid_grant', 'code_verifier is required: the authorization request sent a code_challenge');
  if (!PKCE_STRING.test(verifier)) throw apiError('invalid_grant', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  const derived = doc.code_challenge_method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const a = createHash('sha256').update(derived).digest();
  const b = createHash('sha256').update(doc.code_challenge).digest();
  if (!timingSafeEqual(a, b)) throw apiError('invalid_grant', 'code_verifier does not match the code_challenge');
}

async function withdraw(ctx: ServiceContext, ids: string[] | undefined) {
  if (ids?.length) await ctx.store.tokens.removeMany(ids);
}

/** Removes up to `max` codes expired more than CODE_KEEP_MS ago (the retention sweep): how many went. */
export const removeOldCodes = (ctx: ServiceContext, now: number, max: number) => ctx.store.authCodes.removeExpiredBefore(now - CODE_KEEP_MS, max);
