// What every service function receives: plain dependencies, no Fastify types.
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './changes.js';

export interface ServiceContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
}
