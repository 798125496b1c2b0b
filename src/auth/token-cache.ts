// What an access token stands for (its token, application and user documents), kept in memory
// for a few seconds. Authenticating a request otherwise costs three store reads on every location
// update.
//
// Freshness:
// - In this process, never stale: any update or delete of an application, user or token made
//   through the store drops the whole cache once the write has settled (Store.writes), and an
//   entry read while such a write was under way is not kept. So a request that follows a
//   profile change, a token revocation or a deleted user sees it, whoever made the change.
// - Written by another process (another API node on the same MongoDB, the admin CLI): seen at
//   the latest `ttlMs` after the write (default 5 s, AUTH_CACHE_TTL_MS; 0 turns the cache off).
// - Expiry is checked on every use against the token's own `expires_at`, never cached.
// Documents handed out are frozen: they are shared by every request of that token.
import type { ApplicationDoc, TokenDoc, UserDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';

export interface TokenEntry {
  token: TokenDoc;
  app: ApplicationDoc;
  user?: UserDoc;
}

interface Cached extends TokenEntry {
  /** Monotonic ms after which the entry is read again from the store. */
  until: number;
}

const MAX_ENTRIES = 100_000;
/** Collections whose documents an entry holds. */
const SOURCES = ['applications', 'users', 'tokens'] as const;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class TokenCache {
  private readonly entries = new Map<string, Cached>();
  /** Bumped by every settled write to a source collection: fills begun before it are dropped. */
  private generation = 0;

  constructor(store: Store, private readonly ttlMs: number, private readonly clock: () => number = () => performance.now()) {
    store.writes.on(SOURCES, () => this.invalidate());
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The entry for a token digest, when cached and fresh. */
  get(tokenHash: string): TokenEntry | undefined {
    const e = this.entries.get(tokenHash);
    if (!e) return undefined;
    if (e.until <= this.clock()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return e;
  }

  /** Marks the start of a store read; pass the mark to `set` so a write in between wins. */
  mark(): number {
    return this.generation;
  }

  set(tokenHash: string, entry: TokenEntry, mark: number): TokenEntry {
    const frozen = { token: deepFreeze(entry.token), app: deepFreeze(entry.app), user: entry.user && deepFreeze(entry.user) };
    if (!this.enabled || mark !== this.generation) return frozen;
    if (this.entries.size >= MAX_ENTRIES) {
      // Oldest first (Map keeps insertion order); a tenth at a time so this stays rare.
      let drop = MAX_ENTRIES / 10;
      for (const k of this.entries.keys()) {
        this.entries.delete(k);
        if (--drop <= 0) break;
      }
    }
    // Fields written out: an entry made as `{ ...frozen, until }` (a field added after a spread) was
    // slower to read on every request (a micro-benchmark: ~0.6 against ~0.3 µs a lookup; docs/architecture.md, Conventions).
    this.entries.set(tokenHash, { token: frozen.token, app: frozen.app, user: frozen.user, until: this.clock() + this.ttlMs });
    return frozen;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
