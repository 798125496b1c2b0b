// Public identifiers: short opaque base64url strings, like the historical API's ("2Np_", "Ct9eE30").
import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn 4 kB at a time: one randomBytes(6) per id (a new Buffer and a call into
 * OpenSSL each) was ~3% of the main thread's time recording callbacks (bench-firings profile).
 */
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function take(n: number): Buffer {
  if (n > pool.length) return randomBytes(n);
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

/**
 * 8 characters, ~48 random bits: collisions stay negligible per application. The first character
 * is never '-', so an id can be passed to a command line without being read as an option.
 */
export function newId(): string {
  for (;;) {
    const id = take(6).toString('base64url');
    if (id[0] !== '-') return id;
  }
}

export function newRandomString(chars: number): string {
  return take(Math.ceil((chars * 3) / 4)).toString('base64url').slice(0, chars);
}

/** Epoch ms as 13 digits (until the year 2286): ids that start with it sort by time. */
export const timeKey = (at: number) => String(Math.max(0, Math.floor(at))).padStart(13, '0');
