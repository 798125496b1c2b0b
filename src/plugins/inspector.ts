// The inspector plugin: the web inspector's page and assets at /inspector/ (built by `npm run
// build` from inspector/ into dist/inspector; docs/inspector.md), its settings at
// /inspector/settings.json, and the hub of live notes its pages watch (`app.inspectorEvents`,
// streamed by GET /1/inspector/events, routes/inspector.ts). A location/update that was stored and
// evaluated is noted once its answer is sent, so the page reads states the engine has persisted.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { apiError } from '../errors.js';
import { routesArePages } from '../http/pages.js';
import { InspectorEvents } from '../services/inspector-events.js';
import { inspectorSettings } from '../services/inspector-settings.js';

declare module 'fastify' {
  interface FastifyInstance {
    inspectorEvents: InspectorEvents;
  }
}

export interface InspectorPluginOptions {
  /** The built page (default: dist/inspector of the checkout, found from this file in src/ or dist/src/). */
  assetsDir?: string;
}

/** dist/inspector, whether this file runs from src/plugins (tsx) or dist/src/plugins (the build). */
export function defaultAssetsDir(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  return path.basename(root) === 'dist' ? path.join(root, 'inspector') : path.join(root, 'dist', 'inspector');
}

const UPDATE_ROUTE = '/1/location/update';

/**
 * The CSP source that lets the maps load tiles from a tile URL template: its origin, with Leaflet's
 * `{s}` subdomain as a wildcard label; a host with other placeholders (or anything a source cannot
 * hold) falls back to the scheme alone.
 */
export function tileSource(template: string): string {
  const [, scheme, authority] = /^(https?:)\/\/([^/?#]*)/.exec(template) ?? [];
  if (!scheme) return '';
  const host = (authority ?? '').replace(/^\{s\}\./, '*.');
  return /^(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(host) ? `${scheme}//${host}` : scheme;
}

/**
 * Headers of every answer under /inspector/. The page shows names that applications and their
 * users chose, and holds an application token: only its own bundled script runs (no inline script,
 * no eval), its own stylesheet (Vite emits the CSS as a file; Leaflet and Preact position and size
 * elements through the CSSOM, which style-src does not govern, so no 'unsafe-inline' is needed), it
 * talks to this service only, and no other site may frame it. With a tile URL, images may also come
 * from the tile server, and `data:` (Leaflet blanks a tile it abandons with a data: image).
 */
export function inspectorHeaders(tileUrl: string | undefined): Record<string, string> {
  const images = tileUrl ? ["'self'", 'data:', tileSource(tileUrl)] : ["'self'"];
  const csp = [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", `img-src ${images.join(' ')}`, "connect-src 'self'",
    "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
  return { 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };
}

export default fp(
  async (app: FastifyInstance, opts: InspectorPluginOptions) => {
    const events = new InspectorEvents();
    app.decorate('inspectorEvents', events);
    // Batch jobs are injected into the same route, so they are noted too.
    app.addHook('onResponse', async (request, reply) => {
      if (reply.statusCode !== 200 || request.routeOptions.url !== UPDATE_ROUTE || events.size === 0) return;
      const { app: application, user } = request.auth ?? {};
      if (application && user) events.locationStored(application._id, user._id);
    });

    const settings = inspectorSettings(app.ctx.config);
    const headers = inspectorHeaders(settings.tile_url ?? undefined);
    const root = opts.assetsDir ?? defaultAssetsDir();
    await app.register(async (scope) => {
      routesArePages(scope);
      scope.addHook('onRequest', async (_request, reply) => {
        void reply.headers(headers);
      });
      scope.get('/inspector/settings.json', { schema: { hide: true } }, async () => settings);
      if (!existsSync(path.join(root, 'index.html'))) {
        // A checkout where the page was never built: say so rather than a bare 404.
        // Sent here: this scope is made before the app's error handler is set (app.ts).
        const notBuilt = async (_request: FastifyRequest, reply: FastifyReply) => {
          const error = apiError('service_unavailable', 'The inspector is not built: run `npm run build` (it builds the page into dist/inspector), then restart');
          return reply.code(503).send(error.body());
        };
        scope.get('/inspector', { schema: { hide: true } }, notBuilt);
        scope.get('/inspector/*', { schema: { hide: true } }, notBuilt);
        return;
      }
      await scope.register(fastifyStatic, {
        root,
        prefix: '/inspector/',
        // Hashed asset names (assets/) never change content; the page and the icon are asked again.
        setHeaders: (reply, file) => void reply.header('cache-control', path.relative(root, file).startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache'),
      });
      scope.get('/inspector', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/inspector/'));
    });
  },
  { name: 'inspector', dependencies: ['store', 'auth'] },
);
