// Throttling of credential guessing that protects users instead of blocking them:
// - failed password checks are limited per account and source address: past the limit that
//   address's tries of the account are refused until the window ends, so a stranger cannot lock
//   the owner out from elsewhere. Per account from all addresses together, failures bring a short
//   delay that doubles with each (FailureBackoff), never a lock: the owner's right password works
//   again within seconds, and a guesser with many addresses is held to one try per delay, whose
//   cap keeps the account's sustained rate at the per-address limit. An address the account has
//   signed in from before is not delayed by others' failures;
// - failed client-secret checks are limited per client, and (only when configured: behind a proxy
//   every caller may share one address) all failed checks per source address;
// - a refused check is a 429 `too_many_requests` with Retry-After, and costs no hashing;
// - the scrypt work of password checks goes through a FairGate keyed by application and account,
//   so a flood against one account waits behind itself and other users' logins go through;
// - unknown share tokens (share/*, whose token is the credential) are limited per source address;
//   past the limit the address may still open the links it opened before (a guess is refused, a
//   link in use is not), but no other: answering a new valid token while refusing unknown ones
//   would tell the guesser which guess hit;
// - wrong admin tokens are limited as client secrets are: the operator API counts as one client.
// One instance per app (ServiceContext.authLimits, made by the auth plugin); nothing here is module state.
import { boundedLru } from './bounded-lru.js';
import { apiError } from '../errors.js';
import { FailureBackoff } from './failure-backoff.js';
import { FailureLimiter } from './failure-limiter.js';
import { FairGate, GateFullError } from './fair-gate.js';

export interface AuthLimitSettings {
  /** Failed password checks per account and source address per window; 0 = no limit (and no delay). */
  authAccountFailures: number;
  /** Failed client-secret checks per client_id per window; 0 = no limit. */
  authClientFailures: number;
  /** Failed password or client-secret checks per source address per window; 0 = no limit. */
  authAddressFailures: number;
  authFailureWindowS: number;
  /** Unknown share tokens per source address per window; 0 = no limit. */
  shareTokenFailures: number;
}

/**
 * Two scrypt runs at once (of libuv's four threads: the others stay for DNS and files). An account
 * has at most four checks in flight; an application at most 32 waiting, the service 256.
 */
export const HASHING_LIMITS = { concurrency: 2, perKey: 4, perGroup: 32, total: 256 };

/** Who a password check is for: the application, the account (or login) and the caller's address. */
export interface PasswordSubject {
  appId: string;
  /** A user id, or the login as sent when it names no one (so unknown logins are limited too). */
  account: string;
  address?: string;
}

const limiter = (limit: number, windowMs: number, clock: () => number) => (limit > 0 ? new FailureLimiter(limit, windowMs, clock) : undefined);

/** The first delay of an account after its free failures; each further failure doubles it. */
export const ACCOUNT_DELAY_BASE_MS = 1000;
/** How long a success stands for the address that made it: an account signed in to, a share link opened. */
const REMEMBER_MS = 30 * 86_400_000;

export class AuthLimits {
  readonly hashing = new FairGate(HASHING_LIMITS);
  private readonly accountAddresses?: FailureLimiter;
  private readonly accountDelays?: FailureBackoff;
  private readonly clients?: FailureLimiter;
  private readonly addresses?: FailureLimiter;
  private readonly shareGuesses?: FailureLimiter;
  /** Its own counter: no client_id a caller sends can count against the admin API. */
  private readonly adminGuesses?: FailureLimiter;
  private readonly successes: Successes;

  constructor(settings: AuthLimitSettings, clock: () => number = () => performance.now()) {
    const windowMs = settings.authFailureWindowS * 1000;
    const perAccount = settings.authAccountFailures;
    this.accountAddresses = limiter(perAccount, windowMs, clock);
    // Capped so that, sustained, all addresses together fail no more often than one address may.
    this.accountDelays = perAccount > 0
      ? new FailureBackoff({ free: perAccount, baseMs: ACCOUNT_DELAY_BASE_MS, maxMs: Math.ceil(windowMs / perAccount), forgetMs: windowMs }, clock)
      : undefined;
    this.clients = limiter(settings.authClientFailures, windowMs, clock);
    this.addresses = limiter(settings.authAddressFailures, windowMs, clock);
    this.shareGuesses = limiter(settings.shareTokenFailures, windowMs, clock);
    this.adminGuesses = limiter(settings.authClientFailures, windowMs, clock);
    this.successes = new Successes(clock);
  }

  /**
   * Runs `lookup` of the share `tokens` asked for by `address` under its limit: each token it does
   * not find is a failure. Once the address has too many, only tokens it opened before are looked
   * up; any other makes it a 429 instead.
   */
  async checkShareTokens<T extends { _id: string }>(address: string | undefined, tokens: readonly string[], lookup: () => Promise<T[]>): Promise<T[]> {
    const opened = (token: string) => this.successes.has(`share\0${address}\0${token}`);
    if (address === undefined || !tokens.every(opened)) refuseWhenLimited(this.shareGuesses, address, 'from this address', 'unknown share tokens');
    const found = await lookup();
    if (address !== undefined) {
      for (let i = found.length; i < tokens.length; i++) this.shareGuesses?.fail(address);
      for (const link of found) this.successes.add(`share\0${address}\0${link._id}`);
    }
    return found;
  }

  /**
   * Runs `check` (a password check: true when it matched) under the account's and address's
   * failure limits and through the fair hashing queue. Throws a 429 instead of checking when a
   * limit is reached, the account is in its delay, or the account's queue is full.
   */
  async checkPassword(who: PasswordSubject, check: () => Promise<boolean>): Promise<boolean> {
    const account = `${who.appId}\0${who.account}`;
    const fromHere = `${account}\0${who.address ?? ''}`;
    refuseWhenLimited(this.accountAddresses, fromHere, 'for this account from this address');
    refuseWhenLimited(this.addresses, who.address, 'from this address');
    if (!this.successes.has(fromHere)) {
      const wait = this.accountDelays?.take(account) ?? 0;
      if (wait > 0) throw tooMany(`Too many failed password checks for this account lately; try again in ${wait} seconds`, wait);
    }
    const ok = await this.hash(who.appId, who.account, check);
    if (ok) {
      // The account's delay stays: the failures were someone's, and this success says nothing of them.
      this.accountAddresses?.clear(fromHere);
      this.successes.add(fromHere);
    } else {
      this.accountAddresses?.fail(fromHere);
      this.accountDelays?.fail(account);
      if (who.address !== undefined) this.addresses?.fail(who.address);
    }
    return ok;
  }

  /** Hashing for a new password (user/create), through the same fair queue. */
  hashNew(appId: string, key: string, hash: () => Promise<string>): Promise<string> {
    return this.hash(appId, `new:${key}`, hash);
  }

  /** Runs a client-secret comparison (cheap, so not queued) under the client's and address's limits. */
  checkClientSecret(clientId: string, address: string | undefined, check: () => boolean): boolean {
    return this.checkSecret(this.clients, clientId, 'for this client', address, check);
  }

  /**
   * Runs an admin-token comparison under the limits of a client secret: AUTH_CLIENT_FAILURES wrong
   * tokens per window for the admin API as a whole, and the address's limit when there is one.
   */
  checkAdminToken(address: string | undefined, check: () => boolean): boolean {
    return this.checkSecret(this.adminGuesses, 'admin', 'for the admin API', address, check);
  }

  private checkSecret(limits: FailureLimiter | undefined, key: string, whose: string, address: string | undefined, check: () => boolean): boolean {
    refuseWhenLimited(limits, key, whose);
    refuseWhenLimited(this.addresses, address, 'from this address');
    const ok = check();
    if (!ok) {
      limits?.fail(key);
      if (address !== undefined) this.addresses?.fail(address);
    }
    return ok;
  }

  private async hash<T>(group: string, key: string, work: () => Promise<T>): Promise<T> {
    try {
      return await this.hashing.run(group, key, work);
    } catch (err) {
      if (err instanceof GateFullError) {
        const whose = err.scope === 'key' ? ' for this account' : err.scope === 'group' ? ' for this application' : '';
        throw apiError('too_many_requests', `Too many password checks${whose} are waiting; try again shortly`, { 'retry-after': '1' });
      }
      throw err;
    }
  }
}

function refuseWhenLimited(limits: FailureLimiter | undefined, key: string | undefined, whose: string, what = 'failed credential checks'): void {
  if (!limits || key === undefined) return;
  const wait = limits.retryAfter(key);
  if (wait > 0) throw tooMany(`Too many ${what} ${whose}; try again in ${wait} seconds`, wait);
}

const tooMany = (description: string, waitS: number) => apiError('too_many_requests', description, { 'retry-after': String(waitS) });

/** Successes, each remembered for REMEMBER_MS; bounded, the oldest forgotten first. */
class Successes {
  private readonly at = boundedLru<string, number>(200_000);

  constructor(private readonly clock: () => number) {}

  add(key: string): void {
    this.at.set(key, this.clock());
  }

  has(key: string): boolean {
    const at = this.at.get(key);
    return at !== undefined && this.clock() - at < REMEMBER_MS;
  }
}
