// The engine plugin: the trigger engine's host (engine/host.ts, part of the service context:
// plugins/service-context.ts), seeded from the store when the app is ready and closed in preClose,
// before the store. Location updates reach it through the service context's `locationSink`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { recordFirings } from '../delivery/firings.js';
import type { DeliveryRuntime } from '../delivery/runtime.js';
import type { EnginePorts } from '../engine/host.js';
import type { Store } from '../store/store.js';

export default fp(
  async (app: FastifyInstance) => {
    const { engine } = app;
    app.addHook('onReady', async () => engine.start());
    app.addHook('preClose', async () => engine.close());
  },
  { name: 'engine', dependencies: ['store'] },
);

/** What the engine reaches delivery and services through: passed in, so the engine imports neither. */
export function enginePorts(store: Store, delivery: DeliveryRuntime): EnginePorts {
  return {
    recordFirings: async (firings, gated) => {
      await recordFirings(delivery, firings, gated);
    },
    longestLayerRateLimitS: () => store.layers.longestRateLimitS(),
  };
}
