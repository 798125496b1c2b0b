// Readiness: answered once buildApp has finished (store open, indexes created, routes registered).
import type { FastifyInstance } from 'fastify';

export async function healthRoutes(app: FastifyInstance) {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
}
