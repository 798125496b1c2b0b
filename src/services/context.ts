// What every service function receives: plain dependencies, no Fastify types. It is made once per
// running app (plugins/store.ts) and holds that app's in-process state, so nothing of it lives in
// module scope.
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { ChangeFeed } from './changes.js';
import type { LocationSink } from './locations.js';
import { StructureLocks } from './structure-lock.js';

export interface ServiceContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
  /** This app's locks between structure changes (services/structure-lock.ts). */
  locks: StructureLocks;
  /** The trigger engine's intake; absent until the engine plugin is registered. */
  locationSink?: LocationSink;
}

/** A context over an open store, with its own change feed and locks. */
export function createServiceContext(deps: { store: Store; config: Config; now?: () => number }): ServiceContext {
  return { store: deps.store, config: deps.config, changes: new ChangeFeed(), now: deps.now ?? Date.now, locks: new StructureLocks() };
}
