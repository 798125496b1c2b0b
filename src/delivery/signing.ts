// Standard Webhooks signing (docs/api.md, "Callbacks"): the receiver verifies the
// HMAC over "id.timestamp.body" with the application's whsec_ secret. The id is the event id and
// never changes between attempts; the timestamp and signature are computed afresh per attempt so a
// retry is never rejected as stale by the receiver's 5-minute tolerance.
import { createHmac } from 'node:crypto';

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The secrets a callback is signed with now: the application's, and the one a rotation replaced while it overlaps. */
export function signingSecrets(app: { webhook_secret: string; previous_webhook_secret?: string; previous_webhook_secret_until?: number }, now: number): string | string[] {
  const previous = app.previous_webhook_secret;
  return previous && (app.previous_webhook_secret_until ?? 0) > now ? [app.webhook_secret, previous] : app.webhook_secret;
}

/** The HMAC key: the base64 after `whsec_` (a bare base64 secret is accepted as well). */
export function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/**
 * Signs exactly the bytes that will be sent. `secrets` may hold several during a rotation: the
 * receiver accepts the request when any `v1,` entry matches.
 */
export function signWebhook(
  eventId: string,
  timestampSeconds: number,
  body: string | Buffer,
  secrets: string | string[],
): SignatureHeaders {
  // The spec forbids '.' in the id and timestamp: it is the separator of the signed content.
  if (eventId.includes('.') || eventId.length === 0) throw new Error(`event id "${eventId}" cannot be signed`);
  if (!Number.isInteger(timestampSeconds) || timestampSeconds < 0) throw new Error('timestamp must be whole Unix seconds');
  const ts = String(timestampSeconds);
  const signatures = (Array.isArray(secrets) ? secrets : [secrets]).map((secret) => {
    const mac = createHmac('sha256', secretKey(secret));
    mac.update(`${eventId}.${ts}.`);
    mac.update(body);
    return `v1,${mac.digest('base64')}`;
  });
  return { 'webhook-id': eventId, 'webhook-timestamp': ts, 'webhook-signature': signatures.join(' ') };
}
