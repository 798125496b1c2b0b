// What every service function receives: plain dependencies, no Fastify types.
import type { AuthLimits } from '../auth/limits.js';
import type { Config } from '../config.js';
import type { Resolver } from '../delivery/ssrf-guard.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './changes.js';
import type { LocationSink } from './locations.js';

export interface ServiceContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
  /** The trigger engine's intake; absent until the engine plugin is registered. */
  locationSink?: LocationSink;
  /** Credential-guessing limits and the password hashing queue (auth/limits.ts); buildApp sets it. */
  authLimits?: AuthLimits;
  /** The resolver trigger create and update check callback hosts with (default: the system's; tests inject one). */
  callbackResolver?: Resolver;
}
