// Route groups. Every API method lives under /1/ (the version segment); admin, health and the
// OAuth authorize page (reference §2.4) do not.
import type { FastifyInstance } from 'fastify';
import { adminRoutes } from './admin.js';
import { authorizeRoutes } from './authorize.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { receiverRoutes } from './receiver.js';
import { apiV1Groups } from './v1.js';

export async function registerRoutes(app: FastifyInstance) {
  await app.register(healthRoutes);
  await app.register(adminRoutes);
  await app.register(metricsRoutes);
  await app.register(authorizeRoutes);
  // geoloqi-js's cross-domain receiver page (outside /1/, where the client looks for it).
  await app.register(receiverRoutes);
  await app.register(
    async (v1) => {
      for (const group of apiV1Groups) await v1.register(group);
    },
    { prefix: '/1' },
  );
}
