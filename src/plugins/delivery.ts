// The delivery plugin: the runtime's outbox loop runs from onReady to preClose (before the store
// closes); live streams and push providers stop with it (delivery/runtime.ts). The runtime itself
// is part of the service context, made by the store plugin.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(
  async (app: FastifyInstance) => {
    const { delivery } = app.ctx;
    app.addHook('onReady', async () => delivery.start());
    app.addHook('preClose', async () => delivery.close());
  },
  { name: 'delivery', dependencies: ['store'] },
);
