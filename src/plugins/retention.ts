// The retention plugin: old delivery rows and (when configured) old histories are swept while the
// app is up (services/retention.ts); the sweep stops in preClose.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { startRetention, type RetentionHandle } from '../services/retention.js';

export default fp(
  async (app: FastifyInstance) => {
    let retention: RetentionHandle | undefined;
    app.addHook('onReady', async () => {
      retention = startRetention(app.ctx, app.log);
    });
    app.addHook('preClose', async () => retention?.stop());
  },
  { name: 'retention', dependencies: ['store'] },
);
