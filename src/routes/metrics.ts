// GET /metrics: the Prometheus text format (docs/operations.md "Metrics"), on the service's own
// port, to `Authorization: Bearer <ADMIN_TOKEN>` or `<METRICS_TOKEN>` and to nobody else. Wrong
// tokens are limited as admin-token guesses are. Off (404 saying why) when neither token is set.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { apiError } from '../errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export const METRICS_DISABLED = 'Metrics are off: set METRICS_TOKEN (or ADMIN_TOKEN), at least 16 characters, and restart the service';

export async function metricsRoutes(app: RouteApp) {
  const { adminToken, metricsToken } = app.ctx.config;
  const tokens = [adminToken, metricsToken].filter((t): t is string => t !== undefined).map(digest);
  if (tokens.length === 0) {
    app.get('/metrics', { schema: { hide: true } }, async () => {
      throw apiError('not_found', METRICS_DISABLED);
    });
    return;
  }
  const limits = app.ctx.authLimits;
  const allowed = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const presented = /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : '';
    if (!presented) return false;
    const d = digest(presented);
    // Both compared every time: which token matched takes no less time than a miss.
    return limits.checkAdminToken(request.ip, () => tokens.map((t) => timingSafeEqual(d, t)).includes(true));
  };
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request)) {
      throw apiError('invalid_token', 'A valid metrics or admin token is required', { 'www-authenticate': 'Bearer realm="geotrigger-metrics"' });
    }
    const metrics = app.ctx.metrics;
    const text = await metrics.text();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}
