// A login that names nobody is checked against a stand-in hash: it must cost what a real
// password's check costs, or the response time tells which logins exist.
import { describe, expect, it } from 'vitest';
import { hashPassword, noPasswordHash, verifyPassword } from '../../src/auth/secrets.js';
import { DEFAULT_PASSWORD_HASH_COST, loadConfig } from '../../src/config.js';

/** scheme, N, r, p and the lengths of salt and key: everything that sets a check's cost. */
const costOf = (stored: string) => {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  return { scheme, n, r, p, salt: Buffer.from(salt!, 'base64').length, key: Buffer.from(key!, 'base64').length };
};

describe('the stand-in hash for unknown logins', () => {
  it('has the parameters of a real password hash, so refusing an unknown login costs a real check', async () => {
    for (const cost of [DEFAULT_PASSWORD_HASH_COST, 12]) {
      expect(costOf(noPasswordHash(cost))).toEqual(costOf(await hashPassword('correct horse', cost)));
    }
  });

  it('matches no password', async () => {
    for (const pw of ['', 'password', '\0'.repeat(32)]) expect(await verifyPassword(pw, noPasswordHash(12))).toBe(false);
  });
});

describe('PASSWORD_HASH_COST', () => {
  const env = { ADMIN_TOKEN: 'an-admin-token-0123456789' };

  it('defaults to OWASP scrypt N=2^17 and warns when lowered', () => {
    expect(loadConfig(env).passwordHashCost).toBe(17);
    expect(costOf(noPasswordHash(loadConfig(env).passwordHashCost)).n).toBe(String(2 ** 17));
    const low = loadConfig({ ...env, PASSWORD_HASH_COST: '12' });
    expect(low.passwordHashCost).toBe(12);
    expect(low.warnings.join('\n')).toMatch(/PASSWORD_HASH_COST=12 is below/);
  });

  it('a hash made at one cost still verifies after the cost changes', async () => {
    const stored = await hashPassword('correct horse', 12);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
  });
});
