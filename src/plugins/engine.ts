// The engine plugin: the trigger engine's host (engine/host.ts), seeded from the store when the
// app is ready and closed in preClose, before the store. Location updates reach it through the
// service context's `locationSink`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { recordFirings } from '../delivery/firings.js';
import { EngineHost, type EngineHostOptions, type EnginePorts } from '../engine/host.js';
import type { ServiceContext } from '../services/context.js';
import { longestLayerRateLimitS } from '../services/layers.js';

declare module 'fastify' {
  interface FastifyInstance {
    engine: EngineHost;
  }
}

export default fp(
  async (app: FastifyInstance, opts: EngineHostOptions) => {
    const engine = new EngineHost(app.ctx, enginePorts(app.ctx), opts);
    app.decorate('engine', engine);
    app.ctx.locationSink = engine;
    app.ctx.replayer = engine;
    app.addHook('onReady', async () => engine.start());
    app.addHook('preClose', async () => engine.close());
  },
  { name: 'engine', dependencies: ['store'] },
);

/** What the engine reaches delivery and services through: passed in, so the engine imports neither. */
export function enginePorts(ctx: ServiceContext): EnginePorts {
  return {
    recordFirings: async (firings, gated) => {
      await recordFirings(ctx.delivery, firings, gated);
    },
    longestLayerRateLimitS: () => longestLayerRateLimitS(ctx),
  };
}
