// The api-hits plugin: counts each /1/ request that authenticated as an application (any credential
// kind) for that application, in memory (services/api-hits.ts), and flushes the counts every
// `flushMs` and when the app closes. Requests whose credential failed count for no one.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface ApiHitsOptions {
  /** How often the counts are written (ms). */
  flushMs?: number;
}

export const API_HITS_FLUSH_MS = 60_000;

export default fp(
  async (app: FastifyInstance, opts: ApiHitsOptions) => {
    const counter = app.ctx.apiHits;
    const flush = async () => {
      try {
        await counter.flush(app.ctx.store, app.ctx.now());
      } catch (err) {
        // Kept in memory: the next flush writes them.
        app.log.warn({ err }, 'API hit counts not written');
      }
    };
    app.addHook('onResponse', async (request) => {
      const appId = request.auth?.app?._id;
      if (appId !== undefined && request.url.startsWith('/1/')) counter.hit(appId, app.ctx.now());
    });
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(() => void flush(), opts.flushMs ?? API_HITS_FLUSH_MS);
      timer.unref();
    });
    // Before the store closes (its onClose).
    app.addHook('preClose', async () => {
      clearInterval(timer);
      await flush();
    });
  },
  { name: 'api-hits', dependencies: ['store', 'auth'] },
);
