// Turning credentials into an authenticated context: which application, and which user if any.
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';
import type { AuthLimits } from './limits.js';
import { apiError } from '../errors.js';
import { matchesHash, sha256Hex } from './secrets.js';
import type { TokenCache, TokenEntry } from './token-cache.js';

export type AuthKind = 'app' | 'user' | 'client';

export interface AuthContext {
  kind: AuthKind;
  app: ApplicationDoc;
  /** Set for user tokens. */
  user?: UserDoc;
  /** For `client`: whether the API secret was presented and matched. */
  secretVerified?: boolean;
  /** For tokens: when it expires (epoch ms); null: never. */
  expiresAt?: number | null;
}

const bearerChallenge = (error: string, description: string) => ({
  'www-authenticate': `OAuth realm="geotrigger", error="${error}", error_description="${description}"`,
});
const basicChallenge = { 'www-authenticate': 'Basic realm="geotrigger"' };

/** The refusal of a token that stands for nothing (also of one sent as something other than a string). */
export const invalidToken = (why = 'unknown token') =>
  apiError('invalid_token', 'The access token provided is not valid', bearerChallenge('invalid_token', why));

/** The refusal of a wrong API key or secret (also of one sent as something other than a string). */
export const invalidClient = () => apiError('invalid_client', 'Invalid client credentials', basicChallenge);

export async function authenticateToken(store: Store, token: string | undefined, now: number, cache?: TokenCache): Promise<AuthContext> {
  if (!token) {
    throw apiError('invalid_token', 'An access token is required', bearerChallenge('invalid_token', 'missing token'));
  }
  const hash = sha256Hex(token);
  const entry = cache?.get(hash) ?? (await loadToken(store, hash, cache));
  const doc = entry.token;
  if (doc.expires_at !== null && doc.expires_at <= now) {
    throw apiError('expired_token', 'The token provided has expired', bearerChallenge('expired_token', 'The token provided has expired'));
  }
  if (doc.kind === 'app') return { kind: 'app', app: entry.app, expiresAt: doc.expires_at };
  return { kind: 'user', app: entry.app, user: entry.user, expiresAt: doc.expires_at };
}

/** The token's documents from the store (cached when a cache is given); unknown ones are refused. */
async function loadToken(store: Store, hash: string, cache?: TokenCache): Promise<TokenEntry> {
  const mark = cache?.mark() ?? 0;
  const doc = await store.tokens.get(hash);
  if (!doc || doc.kind === 'refresh') throw invalidToken();
  const app = await store.applications.get(doc.app_id);
  if (!app) throw invalidToken();
  const entry: TokenEntry = { token: doc, app };
  if (doc.kind !== 'app') {
    const user = doc.user_id ? await store.users.get(app._id, doc.user_id) : null;
    if (!user) throw invalidToken('unknown user');
    entry.user = user;
  }
  return cache ? cache.set(hash, entry, mark) : entry;
}

/** Where a secret check counts (auth/limits.ts): the limits, and the caller's address. */
export interface CheckLimits {
  limits?: AuthLimits;
  address?: string;
}

/**
 * The API key, with the secret checked when given. `requireSecret` makes a missing secret an error.
 * A wrong key or secret is `invalid_client` (401 with a Basic challenge). A presented secret counts
 * against the client_id's failure limit (known or not, so the 429 tells nothing about which exist).
 */
export async function authenticateClient(
  store: Store,
  creds: { clientId: string; clientSecret?: string } | undefined,
  requireSecret: boolean,
  checks: CheckLimits = {},
): Promise<AuthContext> {
  if (!creds) throw apiError('invalid_client', 'client_id is required', basicChallenge);
  const app = await store.applications.byClientId(creds.clientId);
  const secret = creds.clientSecret;
  // Hash even when the app is unknown so timing does not reveal which client ids exist.
  const compare = () => secret !== undefined && matchesHash(secret, app?.client_secret_hash ?? '0'.repeat(64));
  const secretOk = secret !== undefined && (checks.limits ? checks.limits.checkClientSecret(creds.clientId, checks.address, compare) : compare());
  if (!app) throw apiError('invalid_client', 'Unknown client_id', basicChallenge);
  if (creds.clientSecret !== undefined && !secretOk) throw invalidClient();
  if (requireSecret && !secretOk) throw apiError('invalid_client', 'client_id and client_secret are required', basicChallenge);
  return { kind: 'client', app, secretVerified: secretOk };
}
