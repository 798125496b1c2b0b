// Standard Webhooks verification with node:crypto, for the harness's callback receiver. The
// `standardwebhooks` package hashes in JavaScript (fast-sha256) and parses the body as well: ~90
// µs of the harness's main thread per callback (profiled: 15% of its busy time in batch runs, on
// the two cores it shares with the service). Same rules: `webhook-id`, `webhook-timestamp` and
// `webhook-signature` required, the timestamp within 5 minutes of now, and one `v1,` signature of
// the space-separated list equal to base64(HMAC-SHA256(key, "id.timestamp.body")) (the timestamp as
// an integer), where the key
// is the base64 after `whsec_`. test/load/webhook-verify.test.ts checks it against the package.
import { createHmac, timingSafeEqual } from 'node:crypto';

const TOLERANCE_S = 5 * 60;

export class WebhookVerifier {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
    if (this.key.length === 0) throw new Error("webhook secret can't be empty");
  }

  /** Why the delivery is not validly signed, or undefined when it is. */
  problem(id: string | undefined, timestamp: string | undefined, signatures: string | undefined, body: string, nowMs = Date.now()): string | undefined {
    if (!id || !timestamp || !signatures) return 'missing required headers';
    const ts = Number(timestamp);
    if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(ts)) return 'invalid timestamp';
    const now = Math.floor(nowMs / 1000);
    if (now - ts > TOLERANCE_S) return 'message timestamp too old';
    if (ts - now > TOLERANCE_S) return 'message timestamp too new';
    const expected = createHmac('sha256', this.key).update(`${id}.${ts}.${body}`).digest();
    for (const versioned of signatures.split(' ')) {
      const [version, sig] = versioned.split(',');
      if (version !== 'v1' || !sig) continue;
      const given = Buffer.from(sig, 'base64');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
    }
    return 'no matching signature found';
  }
}
