// Public identifiers: short opaque base64url strings, like the historical API's ("2Np_", "Ct9eE30").
import { randomBytes } from 'node:crypto';

/**
 * 8 characters, ~48 random bits: collisions stay negligible per application. The first character
 * is never '-', so an id can be passed to a command line without being read as an option.
 */
export function newId(): string {
  for (;;) {
    const id = randomBytes(6).toString('base64url');
    if (id[0] !== '-') return id;
  }
}

export function newRandomString(chars: number): string {
  return randomBytes(Math.ceil((chars * 3) / 4)).toString('base64url').slice(0, chars);
}
