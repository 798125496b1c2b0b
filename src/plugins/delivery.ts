// The delivery plugin: the outbox dispatcher runs from onReady to preClose (before the store
// closes); live streams and push providers stop with it (delivery/lifecycle.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { deliveryLifecycle, type DeliveryOptions } from '../delivery/lifecycle.js';

export default fp(
  async (app: FastifyInstance, opts: DeliveryOptions) => {
    const { config } = app.ctx;
    const delivery = deliveryLifecycle(app.ctx, {
      concurrency: config.callbackConcurrency,
      endpointConcurrency: config.callbackEndpointConcurrency,
      ...opts,
      log: app.log,
    });
    app.addHook('onReady', async () => delivery.start());
    app.addHook('preClose', async () => delivery.stop());
  },
  { name: 'delivery', dependencies: ['store'] },
);
