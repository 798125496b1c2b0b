// What every service function receives: plain dependencies, no Fastify types.
import type { Config } from '../config.js';
import type { DeliveryRuntime } from '../delivery/runtime.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './changes.js';
import type { LocationSink } from './locations.js';

export interface ServiceContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
  /** Delivery's runtime (outbox loop, live streams, pushes), created once with the app. */
  delivery: DeliveryRuntime;
  /** The trigger engine's intake; absent until the engine plugin is registered. */
  locationSink?: LocationSink;
}
