// The service's HTML pages (the inspector, /oauth/authorize, geoloqi-js's receiver) are not API
// answers: no other origin needs to read them, so they go without the CORS headers app.ts gives
// every API route (@fastify/cors skips a route whose `config.cors` is false).
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: @fastify/cors adds no CORS headers to this route's answers. */
    cors?: false;
  }
}

/** The `config` of a page's route. */
export const PAGE_CONFIG = { cors: false } as const;

/** Makes every route added to `scope` from now on (a plugin's own, @fastify/static's included) a page. */
export function routesArePages(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, ...PAGE_CONFIG };
  });
}
