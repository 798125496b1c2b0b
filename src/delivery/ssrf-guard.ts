// The SSRF guard for callback URLs. Callback URLs are chosen by applications, so without this the
// service could be made to POST into its own network (cloud metadata at 169.254.169.254, databases
// on 10/8, admin ports on loopback). Three checks, because each one alone has a gap:
//   1. at registration, assertNewCallbackTarget(): no whitespace or control characters, then
//      assertCallbackUrl(): scheme, no credentials, no non-public IP literal, no localhost names,
//      then the name is resolved: one whose every address is refused is refused at once;
//   2. before every attempt, the same function again (the policy may have changed since), which
//      also covers IP-literal hosts: Node never calls a custom `lookup` for them;
//   3. at connect time, guardedLookup(): every address a name resolves to must be public, which
//      defeats DNS rebinding between the check and the connection.
// Redirects are never followed (the sender's undici request() has no redirect handling), so a 302
// cannot lead around it.
import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';
import { apiError } from '../errors.js';

/** Ranges refused as callback targets unless private targets are allowed (development, tests). */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

/**
 * ::/96, the deprecated IPv4-compatible form (::127.0.0.1 is ::7f00:1): ipaddr.js calls it plain
 * unicast, yet it carries an IPv4 address and was dialled. Only :: and ::1 in it have a range.
 */
function isIpv4Compatible(a: ipaddr.IPv6): boolean {
  const p = a.parts;
  return p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1);
}

/**
 * Why an address is refused, or undefined when it may be called. Only `unicast` (public) passes,
 * plus the private ranges when allowed: every form that embeds an IPv4 address (NAT64 64:ff9b::/96
 * and /48, 6to4 2002::/16, Teredo, SIIT ::ffff:0:0:0/96, IPv4-compatible ::/96) is refused always.
 */
export function addressProblem(address: string, allowPrivate: boolean): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into the IPv4 address it carries, so a mapped address
    // classifies like the IPv4 one (::ffff:127.0.0.1 is loopback, not "ipv4Mapped").
    parsed = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `"${address}" is not an IP address`;
  }
  if (parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6)) {
    return `${parsed.toString()} is an IPv4-compatible IPv6 address`;
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (allowPrivate && PRIVATE_RANGES.has(range)) return undefined;
  return `${parsed.toString()} is in the ${range} range`;
}

export function isIpLiteral(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(h) && (h.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(h));
}

/** Said with a refusal that the operator's setting would lift (a receiver on a developer's machine). */
const ALLOW_PRIVATE_HINT = ' (a service run with CALLBACK_ALLOW_PRIVATE=true, for development, allows private and loopback addresses)';

/** The hint, when allowing private targets would have let `address` through. */
function privateHint(address: string, allowPrivate: boolean): string {
  return !allowPrivate && addressProblem(address, true) === undefined ? ALLOW_PRIVATE_HINT : '';
}

/** Names that resolve to loopback by definition (RFC 6761); refused without a DNS round trip. */
function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** Whitespace (any Unicode space, line or paragraph separator) and C0/C1 control characters. */
const UNSAFE_URL_CHAR = /[\p{Cc}\s]/u;

/**
 * assertCallbackUrl for a URL being registered (trigger create and update), which also refuses
 * whitespace and control characters: WHATWG parsing drops tabs and newlines anywhere
 * ("http://exa\tmple.com" calls example.com) and encodes other such characters, so the address
 * called would not be the one stored and shown. Not checked before each attempt: a URL stored
 * before this rule (a space in its query, sent encoded) keeps being delivered.
 */
export function assertNewCallbackUrl(url: string, allowPrivate: boolean): URL {
  const odd = UNSAFE_URL_CHAR.exec(url);
  if (odd) {
    const code = odd[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw apiError('invalid_input', `Callback url must not contain whitespace or control characters (U+${code} at character ${odd.index + 1})`);
  }
  return assertCallbackUrl(url, allowPrivate);
}

/**
 * Throws `invalid_input` with a description the application can act on. Used before every
 * delivery attempt, and (through assertNewCallbackUrl) when a trigger's URL is registered.
 * Returns the parsed URL.
 */
export function assertCallbackUrl(url: string, allowPrivate: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw apiError('invalid_input', `Callback url "${truncate(url)}" is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw apiError('invalid_input', `Callback url must use http or https, not ${parsed.protocol.replace(/:$/, '')}`);
  }
  if (parsed.username || parsed.password) {
    throw apiError('invalid_input', 'Callback url must not contain credentials (user:password@); put a secret in the path or query instead');
  }
  // WHATWG URL has already normalised 0x7f.1, 2130706433 and 0177.0.0.1 to 127.0.0.1.
  const host = parsed.hostname;
  if (!host) throw apiError('invalid_input', 'Callback url has no host');
  if (isIpLiteral(host)) {
    const problem = addressProblem(host, allowPrivate);
    if (problem) throw apiError('invalid_input', `Callback url host is not a public address: ${problem}${privateHint(host, allowPrivate)}`);
  } else if (!allowPrivate && isLocalhostName(host)) {
    throw apiError('invalid_input', `Callback url host "${host}" is a loopback name${ALLOW_PRIVATE_HINT}`);
  }
  return parsed;
}

/**
 * assertNewCallbackUrl, then the host name resolved: a name whose every address is refused is
 * refused now rather than at every later attempt. A name that does not resolve yet, or not in
 * time, is accepted (it may be registered later); the connect-time lookup checks every attempt.
 */
export async function assertNewCallbackTarget(url: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<URL> {
  const parsed = assertNewCallbackUrl(url, allowPrivate);
  const host = parsed.hostname;
  if (isIpLiteral(host)) return parsed;
  const addresses = await resolveWithin(host, resolve, RESOLVE_AT_CREATE_MS);
  if (!addresses?.length) return parsed;
  const problems = addresses.map((a) => addressProblem(a.address, allowPrivate));
  if (problems.every((p) => p !== undefined)) {
    const hint = addresses.every((a) => privateHint(a.address, allowPrivate)) ? ALLOW_PRIVATE_HINT : '';
    throw apiError('invalid_input', `Callback url host "${host}" resolves to no public address: ${problems.join('; ')}${hint}`);
  }
  return parsed;
}

/** How long trigger create and update wait for a callback host's addresses before going on. */
const RESOLVE_AT_CREATE_MS = 3_000;

function resolveWithin(host: string, resolve: Resolver, ms: number): Promise<LookupAddress[] | undefined> {
  return new Promise((done) => {
    const timer = setTimeout(() => done(undefined), ms);
    resolve(host, { all: true }, (err, addresses) => {
      clearTimeout(timer);
      done(err ? undefined : addresses);
    });
  });
}

function truncate(s: string): string {
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
}

/** The error a refused connection carries (as the `cause` of fetch's TypeError). */
export class SsrfBlockedError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';
  override readonly name = 'SsrfBlockedError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFn = (hostname: string, options: LookupAllOptions | LookupOneOptions, callback: LookupCallback) => void;
/** The resolver to filter; injectable so tests can make a name resolve to a private address. */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * A `lookup` for net.connect that resolves every address of the name and fails when any one is not
 * public: refusing on "any" (not "all") stops a name that mixes a public and a private address.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = systemResolver): LookupFn {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      for (const a of addresses) {
        const problem = addressProblem(a.address, allowPrivate);
        if (problem) return callback(new SsrfBlockedError(`${hostname} resolves to a refused address: ${problem}${privateHint(a.address, allowPrivate)}`), []);
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface GuardedAgentOptions {
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  resolve?: Resolver;
}

/** The undici dispatcher every callback goes through: guarded lookup plus hard timeouts. */
export function createGuardedAgent(opts: GuardedAgentOptions): Agent {
  return new Agent({
    connect: { timeout: opts.connectTimeoutMs ?? 5_000, lookup: guardedLookup(opts.allowPrivate, opts.resolve) },
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
    // A callback receiver gets one request at a time per connection and no keep-alive surprises.
    pipelining: 1,
    keepAliveTimeout: 4_000,
  });
}
