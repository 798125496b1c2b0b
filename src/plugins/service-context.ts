// The service context of one app, made whole with its real parts: the delivery runtime, the engine
// host (built, not started), the auth limits, the API hit counter and the geocoder. Nothing is
// patched into the context afterwards; the plugins only start and stop what it holds.
import type { Config } from '../config.js';
import { createDelivery, type DeliveryOptions } from '../delivery/runtime.js';
import { systemResolver, type Resolver } from '../delivery/ssrf-guard.js';
import { EngineHost, type EngineHostOptions } from '../engine/host.js';
import { AuthLimits } from '../auth/limits.js';
import { ApiHitCounter } from '../services/api-hits.js';
import { createServiceContext, type ServiceContext } from '../services/context.js';
import { Geocoder } from '../services/geocoder.js';
import type { Store } from '../store/store.js';
import { Metrics } from '../metrics/metrics.js';
import { enginePorts } from './engine.js';

export interface ServiceContextOptions {
  store: Store;
  config: Config;
  /** Clock override for tests. */
  now?: () => number;
  /** The service's instruments (plugins/metrics.ts); a fresh, unscraped set when not given (tests). */
  metrics?: Metrics;
  delivery?: DeliveryOptions;
  engine?: EngineHostOptions;
  /** The resolver trigger create and update check callback hosts with (tests). */
  callbackResolver?: Resolver;
}

export function buildServiceContext(o: ServiceContextOptions): { ctx: ServiceContext; engine: EngineHost } {
  let host: EngineHost | undefined;
  const ctx = createServiceContext({ store: o.store, config: o.config, now: o.now, metrics: o.metrics ?? new Metrics({ now: o.now }) }, {
    delivery: (base) => createDelivery(base, {
      concurrency: o.config.callbackConcurrency,
      endpointConcurrency: o.config.callbackEndpointConcurrency,
      ...o.delivery,
    }),
    engine: (base, delivery) => (host = new EngineHost(base, enginePorts(base.store, delivery), o.engine)),
    authLimits: new AuthLimits(o.config, o.now ?? Date.now),
    apiHits: new ApiHitCounter(),
    geocoder: new Geocoder(),
    callbackResolver: o.callbackResolver ?? systemResolver,
  });
  return { ctx, engine: host! };
}
