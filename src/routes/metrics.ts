// GET /metrics: the Prometheus text format (docs/operations.md "Metrics"), on the service's own
// port, to `Authorization: Bearer <ADMIN_TOKEN>` or `<METRICS_TOKEN>` and to nobody else. Wrong
// tokens are limited as admin-token guesses are. Off (404 saying why) when neither token is set.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../errors.js';
import { authLimitsOf } from '../services/logins.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export const METRICS_DISABLED = 'Metrics are off: set METRICS_TOKEN (or ADMIN_TOKEN), at least 16 characters, and restart the service';

export async function metricsRoutes(app: FastifyInstance) {
  const { adminToken, metricsToken } = app.ctx.config;
  const tokens = [adminToken, metricsToken].filter((t): t is string => t !== undefined).map(digest);
  if (tokens.length === 0) {
    app.get('/metrics', { schema: { hide: true } }, async () => {
      throw apiError('not_found', METRICS_DISABLED);
    });
    return;
  }
  const limits = authLimitsOf(app.ctx);
  const allowed = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const presented = /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : '';
    if (!presented) return false;
    const d = digest(presented);
    return limits.checkAdminToken(request.ip, () => tokens.some((t) => timingSafeEqual(d, t)));
  };
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request)) {
      throw apiError('invalid_token', 'A valid metrics or admin token is required', { 'www-authenticate': 'Bearer realm="geotrigger-metrics"' });
    }
    const metrics = app.ctx.metrics;
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(await metrics.text());
  });
}
