// Firebase Cloud Messaging, HTTP v1 API. Credentials are a Google service account: we sign a JWT
// assertion (RS256) with its private key, trade it at the token endpoint for an OAuth access token
// (cached until shortly before it expires), and POST each message to
// https://fcm.googleapis.com/v1/projects/<project>/messages:send with `Authorization: Bearer`.
// Tokens FCM reports as UNREGISTERED (or not valid / of another sender) are dead and get dropped.
import { readFile } from 'node:fs/promises';
import { parseRetryAfter } from '../retry-schedule.js';
import { signJwt } from './jwt.js';
import { networkFailure, type PushMessage, type PushProvider, type PushResult } from './provider.js';

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
}

export interface FcmOptions {
  projectId: string;
  account: ServiceAccount;
  /** Overridable for tests; production is the default. */
  endpoint?: string;
  now?: () => number;
  timeoutMs?: number;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

export async function readServiceAccount(file: string): Promise<ServiceAccount> {
  const json = JSON.parse(await readFile(file, 'utf8')) as Partial<ServiceAccount>;
  if (typeof json.client_email !== 'string' || typeof json.private_key !== 'string') {
    throw new Error(`${file} is not a Google service-account key (client_email and private_key are required)`);
  }
  return { client_email: json.client_email, private_key: json.private_key, token_uri: json.token_uri };
}

interface FcmErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: Array<{ '@type'?: string; errorCode?: string }> };
}

export class FcmProvider implements PushProvider {
  readonly name = 'fcm';
  private cached?: { token: string; expiresAt: number };
  private readonly now: () => number;
  private readonly endpoint: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: FcmOptions) {
    this.now = opts.now ?? Date.now;
    this.endpoint = opts.endpoint ?? 'https://fcm.googleapis.com';
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** The OAuth access token, from cache unless it is (nearly) expired or `force`d after a 401. */
  async accessToken(force = false): Promise<string> {
    const now = this.now();
    if (!force && this.cached && this.cached.expiresAt - 60_000 > now) return this.cached.token;
    const tokenUri = this.opts.account.token_uri ?? DEFAULT_TOKEN_URI;
    const iat = Math.floor(now / 1000);
    const assertion = signJwt('RS256', {}, {
      iss: this.opts.account.client_email, scope: SCOPE, aud: tokenUri, iat, exp: iat + 3600,
    }, this.opts.account.private_key);
    const res = await fetch(tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string };
    if (!res.ok || !body.access_token) {
      throw new Error(`FCM token exchange failed: HTTP ${res.status}${body.error ? ` ${body.error}` : ''}`);
    }
    this.cached = { token: body.access_token, expiresAt: now + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }

  async send(token: string, message: PushMessage): Promise<PushResult> {
    // data values must be strings in FCM v1.
    const data: Record<string, string> = { message_id: message.message_id };
    for (const k of ['url', 'layer_id', 'trigger_id', 'place_id'] as const) if (message[k]) data[k] = message[k]!;
    const body = JSON.stringify({
      message: { token, notification: { body: message.text }, data, android: { priority: 'high' } },
    });
    // One retry with a fresh access token when FCM says the cached one is no longer good.
    for (let round = 0; round < 2; round++) {
      let res: Response;
      try {
        const bearer = await this.accessToken(round > 0);
        res = await fetch(`${this.endpoint}/v1/projects/${encodeURIComponent(this.opts.projectId)}/messages:send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        return networkFailure(err);
      }
      if (res.ok) {
        // The answer is a small JSON name; read it so the connection can be reused.
        await res.text().catch(() => '');
        return { ok: true };
      }
      const err = ((await res.json().catch(() => ({}))) as FcmErrorBody).error ?? {};
      const code = err.details?.find((d) => d.errorCode)?.errorCode ?? err.status ?? `HTTP_${res.status}`;
      const description = `FCM ${res.status} ${code}${err.message ? `: ${err.message}` : ''}`;
      if (res.status === 401 && round === 0) continue;
      if (code === 'UNREGISTERED' || code === 'SENDER_ID_MISMATCH' || (code === 'INVALID_ARGUMENT' && /registration token/i.test(err.message ?? ''))) {
        return { ok: false, unregistered: true, retryable: false, error: description };
      }
      const retryable = res.status === 429 || res.status >= 500 || code === 'UNAVAILABLE' || code === 'INTERNAL' || code === 'QUOTA_EXCEEDED';
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.now());
      return { ok: false, unregistered: false, retryable, error: description, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    return { ok: false, unregistered: false, retryable: true, error: 'FCM rejected a fresh access token' };
  }
}
