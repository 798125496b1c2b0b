// Throttling of credential guessing that protects users instead of blocking them:
// - failed password checks are limited per account, failed client-secret checks per client, and
//   (only when configured: behind a proxy every caller may share one address) per source address;
//   a refused check is a 429 `too_many_requests` with Retry-After, and costs no hashing;
// - the scrypt work of password checks goes through a FairGate keyed by application and account,
//   so a flood against one account waits behind itself and other users' logins go through;
// - unknown share tokens (share/*, whose token is the credential) are limited per source address;
// - wrong admin tokens are limited as client secrets are: the operator API counts as one client.
// One instance per app (ServiceContext.authLimits, made by the auth plugin); nothing here is module state.
import { apiError } from '../errors.js';
import { FailureLimiter } from './failure-limiter.js';
import { FairGate, GateFullError } from './fair-gate.js';

export interface AuthLimitSettings {
  /** Failed password checks per account per window; 0 = no limit. */
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

const limiter = (limit: number, windowMs: number) => (limit > 0 ? new FailureLimiter(limit, windowMs) : undefined);

export class AuthLimits {
  readonly hashing = new FairGate(HASHING_LIMITS);
  private readonly accounts?: FailureLimiter;
  private readonly clients?: FailureLimiter;
  private readonly addresses?: FailureLimiter;
  private readonly shareGuesses?: FailureLimiter;
  /** Its own counter: no client_id a caller sends can count against the admin API. */
  private readonly adminGuesses?: FailureLimiter;

  constructor(settings: AuthLimitSettings) {
    const windowMs = settings.authFailureWindowS * 1000;
    this.accounts = limiter(settings.authAccountFailures, windowMs);
    this.clients = limiter(settings.authClientFailures, windowMs);
    this.addresses = limiter(settings.authAddressFailures, windowMs);
    this.shareGuesses = limiter(settings.shareTokenFailures, windowMs);
    this.adminGuesses = limiter(settings.authClientFailures, windowMs);
  }

  /**
   * Runs `lookup` of `asked` share tokens for `address` under its limit: each token it does not
   * find is a failure. Throws a 429 instead of looking up once the address has too many.
   */
  async checkShareTokens<T>(address: string | undefined, asked: number, lookup: () => Promise<T[]>): Promise<T[]> {
    refuseWhenLimited(this.shareGuesses, address, 'from this address', 'unknown share tokens');
    const found = await lookup();
    if (address !== undefined) for (let i = found.length; i < asked; i++) this.shareGuesses?.fail(address);
    return found;
  }

  /**
   * Runs `check` (a password check: true when it matched) under the account's and address's
   * failure limits and through the fair hashing queue. Throws a 429 instead of checking when a
   * limit is reached or the account's queue is full.
   */
  async checkPassword(who: PasswordSubject, check: () => Promise<boolean>): Promise<boolean> {
    const account = `${who.appId}\0${who.account}`;
    refuseWhenLimited(this.accounts, account, 'for this account');
    refuseWhenLimited(this.addresses, who.address, 'from this address');
    const ok = await this.hash(who.appId, who.account, check);
    if (ok) this.accounts?.clear(account);
    else {
      this.accounts?.fail(account);
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
  if (wait > 0) {
    throw apiError('too_many_requests', `Too many ${what} ${whose}; try again in ${wait} seconds`, { 'retry-after': String(wait) });
  }
}
