// Readiness: answered once buildApp has finished (store open, indexes created, routes registered),
// and 503 while the store refuses writes (a full disk, a read-only DATA_DIR), so that a load
// balancer or an operator sees it before the users do.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { openApi } from '../http/openapi.js';

const Healthy = Type.Object({ status: Type.Literal('ok') });
const WritesFailing = Type.Object({
  status: Type.Literal('writes_failing'),
  store: Type.Object({ writable: Type.Literal(false), error: Type.Optional(Type.String()), since: Type.Optional(Type.String({ format: 'date-time' })) }),
});

export async function healthRoutes(app: RouteApp) {
  app.get('/health', {
    schema: { tags: ['service'], description: 'No credential. For load balancers and process managers: answered once the service is ready.' },
    config: openApi({ ok: Healthy, security: [{}], responses: { 503: { description: 'The store refuses writes (a full disk, a read-only DATA_DIR); while the service shuts down, a 503 in the error shape', schema: WritesFailing } } }),
  }, async (_request, reply) => {
    const store = app.ctx.store.health();
    if (store.writable) return { status: 'ok' };
    return reply.code(503).send({
      status: 'writes_failing',
      store: { writable: false, error: store.error, since: store.since === undefined ? undefined : new Date(store.since).toISOString() },
    });
  });
}
