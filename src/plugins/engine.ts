// The engine plugin: the trigger engine's host (engine/host.ts), seeded from the store when the
// app is ready and closed in preClose, before the store. Location updates reach it through the
// service context's `locationSink`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { EngineHost, type EngineHostOptions } from '../engine/host.js';

declare module 'fastify' {
  interface FastifyInstance {
    engine: EngineHost;
  }
}

export default fp(
  async (app: FastifyInstance, opts: EngineHostOptions) => {
    const engine = new EngineHost(app.ctx, opts);
    app.decorate('engine', engine);
    app.ctx.locationSink = engine;
    app.addHook('onReady', async () => engine.start());
    app.addHook('preClose', async () => engine.close());
  },
  { name: 'engine', dependencies: ['store'] },
);
