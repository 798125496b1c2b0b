// Secrets at rest: tokens and API secrets are high-entropy, so a SHA-256 digest is enough to store
// and look them up; passwords are not, so they get scrypt. Every comparison is timing-safe.
import { createHash, hash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export function sha256Hex(value: string): string {
  // One-shot crypto.hash: no Hash object per call (it runs for every authenticated request).
  return hash('sha256', value, 'hex');
}

/** Timing-safe equality of a presented secret with a stored SHA-256 hex digest. */
export function matchesHash(presented: string, storedHex: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = Buffer.from(storedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A token: a short readable prefix plus 40 hex characters, the historical shape. */
export function newToken(prefix: string): string {
  return `${prefix}-${randomBytes(20).toString('hex')}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

// scrypt r=8, p=1, N=2^cost; the cost is PASSWORD_HASH_COST (config.ts, OWASP's 17 by default).
const MAXMEM = 256 * 1024 * 1024;
const KEYLEN = 32;
const scryptOptions = (cost: number): ScryptOptions => ({ N: 2 ** cost, r: 8, p: 1, maxmem: MAXMEM });

/** scrypt itself, ungated: callers go through AuthLimits (auth/limits.ts), which bounds and shares it. */
function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, KEYLEN, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** A new hash at `cost` (log2 of scrypt's N); a stored hash keeps the cost it was made with. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const o = scryptOptions(cost);
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, o);
  return `scrypt$${o.N}$${o.r}$${o.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * A stored hash no password matches, at the cost new hashes get: checked for a login that names
 * no one, it costs what a real check costs, so the response time does not tell whether the login
 * exists (a cheaper dummy answered ~9 times faster).
 */
export function noPasswordHash(cost: number): string {
  const o = scryptOptions(cost);
  return `scrypt$${o.N}$${o.r}$${o.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEYLEN).toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), {
    N: Number(n), r: Number(r), p: Number(p), maxmem: MAXMEM,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
