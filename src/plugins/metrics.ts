// The metrics plugin: the service's Prometheus registry and instruments (metrics/metrics.ts),
// one per app and never module state, registered first so that the store and every part built
// over it count into it. Its event-loop monitor runs from onReady until the app closes. GET
// /metrics (routes/metrics.ts) answers from it.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Metrics } from '../metrics/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

export interface MetricsPluginOptions {
  /** Clock override for tests (the outbox's oldest age). */
  now?: () => number;
}

export default fp(
  async (app: FastifyInstance, opts: MetricsPluginOptions) => {
    const metrics = new Metrics({ now: opts.now });
    app.decorate('metrics', metrics);
    app.addHook('onReady', async () => metrics.start());
    app.addHook('onClose', async () => metrics.close());
  },
  { name: 'metrics' },
);
