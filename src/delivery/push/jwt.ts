// Compact JWS signing for the push providers' credentials: RS256 for the Google service-account
// assertion (FCM), ES256 for the APNs provider token. node:crypto does the signing; pulling in a
// JWT library for two fixed token shapes is not worth a dependency.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export function signJwt(
  alg: 'RS256' | 'ES256',
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: KeyObject | string,
): string {
  const privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
  const input = `${b64url(JSON.stringify({ alg, typ: 'JWT', ...header }))}.${b64url(JSON.stringify(claims))}`;
  // JWS wants ECDSA signatures as the raw r||s pair (IEEE P1363), not DER.
  const signature =
    alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), privateKey);
  return `${input}.${b64url(signature)}`;
}
