// Readiness: answered once buildApp has finished (store open, indexes created, routes registered),
// and 503 while the store refuses writes (a full disk, a read-only DATA_DIR), so that a load
// balancer or an operator sees it before the users do.
import type { FastifyInstance } from 'fastify';

export async function healthRoutes(app: FastifyInstance) {
  app.get('/health', { schema: { hide: true } }, async (_request, reply) => {
    const store = app.ctx.store.health();
    if (store.writable) return { status: 'ok' };
    return reply.code(503).send({
      status: 'writes_failing',
      store: { writable: false, error: store.error, since: store.since === undefined ? undefined : new Date(store.since).toISOString() },
    });
  });
}
