// Apple Push Notification service, token-based auth. The provider token is an ES256 JWT
// ({alg, kid} header, {iss: team id, iat} claims) signed with the .p8 key; Apple wants it reused
// for at least 20 minutes and refuses it after an hour, so it is renewed every 50 minutes (or at
// once after ExpiredProviderToken). Each message is a POST to /3/device/<token> over HTTP/2 on
// api.push.apple.com (apns_live tokens) or api.sandbox.push.apple.com (apns_dev tokens).
// BadDeviceToken, DeviceTokenNotForTopic and 410 Unregistered mean the token is dead.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Agent, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../retry-schedule.js';
import { signJwt } from './jwt.js';
import { networkFailure, type PushMessage, type PushProvider, type PushResult } from './provider.js';

export interface ApnsOptions {
  key: KeyObject | string;
  keyId: string;
  teamId: string;
  /** The app's bundle id (apns-topic). */
  topic: string;
  production: boolean;
  /** Overridable for tests; defaults to Apple's host for `production`. */
  origin?: string;
  now?: () => number;
  timeoutMs?: number;
  /** Extra CA certificates (PEM) to trust: tests, or a TLS-inspecting egress proxy. */
  ca?: string;
}

const TOKEN_LIFETIME_MS = 50 * 60_000;
const DEAD_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'Unregistered', 'ExpiredToken']);

export async function readApnsKey(file: string): Promise<KeyObject> {
  return createPrivateKey(await readFile(file, 'utf8'));
}

export class ApnsProvider implements PushProvider {
  readonly name: string;
  private jwt?: { value: string; issuedAt: number };
  private readonly key: KeyObject;
  private readonly origin: string;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly agent: Dispatcher;

  constructor(private readonly opts: ApnsOptions) {
    this.key = typeof opts.key === 'string' ? createPrivateKey(opts.key) : opts.key;
    this.origin = opts.origin ?? (opts.production ? 'https://api.push.apple.com' : 'https://api.sandbox.push.apple.com');
    this.name = opts.production ? 'apns' : 'apns-sandbox';
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    // APNs speaks HTTP/2 only; undici negotiates it through ALPN when allowed.
    this.agent = new Agent({ allowH2: true, connect: { timeout: 5_000, ...(opts.ca ? { ca: opts.ca } : {}) } });
  }

  providerToken(force = false): string {
    const now = this.now();
    if (!force && this.jwt && now - this.jwt.issuedAt < TOKEN_LIFETIME_MS) return this.jwt.value;
    const value = signJwt('ES256', { kid: this.opts.keyId }, { iss: this.opts.teamId, iat: Math.floor(now / 1000) }, this.key);
    this.jwt = { value, issuedAt: now };
    return value;
  }

  async send(token: string, message: PushMessage): Promise<PushResult> {
    if (!/^[0-9a-fA-F]{16,200}$/.test(token)) {
      return { ok: false, unregistered: true, retryable: false, error: 'APNs device tokens are hex strings' };
    }
    const body = JSON.stringify({
      aps: { alert: { body: message.text }, sound: 'default' },
      message_id: message.message_id,
      ...(message.url ? { url: message.url } : {}),
      ...(message.layer_id ? { layer_id: message.layer_id } : {}),
    });
    for (let round = 0; round < 2; round++) {
      let res: Response;
      try {
        const init: RequestInit = {
          method: 'POST',
          headers: {
            authorization: `bearer ${this.providerToken(round > 0)}`,
            'apns-topic': this.opts.topic,
            'apns-push-type': 'alert',
            'apns-priority': '10',
            'content-type': 'application/json',
          },
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        };
        res = await fetch(`${this.origin}/3/device/${token}`, Object.assign(init, { dispatcher: this.agent }));
      } catch (err) {
        return networkFailure(err);
      }
      if (res.status === 200) {
        await res.text().catch(() => '');
        return { ok: true };
      }
      const reason = ((await res.json().catch(() => ({}))) as { reason?: string }).reason ?? `HTTP_${res.status}`;
      const description = `APNs ${res.status} ${reason}`;
      if (res.status === 403 && (reason === 'ExpiredProviderToken' || reason === 'InvalidProviderToken') && round === 0) continue;
      if (res.status === 410 || DEAD_TOKEN_REASONS.has(reason)) return { ok: false, unregistered: true, retryable: false, error: description };
      const retryable = res.status === 429 || res.status >= 500;
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.now());
      return { ok: false, unregistered: false, retryable, error: description, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    return { ok: false, unregistered: false, retryable: false, error: 'APNs rejected a fresh provider token' };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
