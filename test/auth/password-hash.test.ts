// A login that names nobody is checked against a stand-in hash: it must cost what a real
// password's check costs, or the response time tells which logins exist.
import { describe, expect, it } from 'vitest';
import { hashPassword, NO_PASSWORD_HASH, verifyPassword } from '../../src/auth/secrets.js';

/** scheme, N, r, p and the lengths of salt and key: everything that sets a check's cost. */
const costOf = (stored: string) => {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  return { scheme, n, r, p, salt: Buffer.from(salt!, 'base64').length, key: Buffer.from(key!, 'base64').length };
};

describe('the stand-in hash for unknown logins', () => {
  it('has the parameters of a real password hash, so refusing an unknown login costs a real check', async () => {
    expect(costOf(NO_PASSWORD_HASH)).toEqual(costOf(await hashPassword('correct horse')));
  });

  it('matches no password', async () => {
    for (const pw of ['', 'password', '\0'.repeat(32)]) expect(await verifyPassword(pw, NO_PASSWORD_HASH)).toBe(false);
  });
});
