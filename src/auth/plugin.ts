// Authentication strategies, composed per route with @fastify/auth. Each strategy sets
// `request.auth`; routes read it and never look at credentials themselves.
import fastifyAuth from '@fastify/auth';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { apiError } from '../errors.js';
import type { Store } from '../store/store.js';
import { authenticateClient, authenticateToken, type AuthContext } from './authenticate.js';
import { accessToken, clientCredentials } from './credentials.js';

export type Strategy = 'appToken' | 'userToken' | 'clientSecret' | 'clientKey';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyInstance {
    /** preHandler that accepts any of the named credential kinds. */
    guard(...strategies: Strategy[]): preHandlerHookHandler;
  }
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export default fp(
  async (app: FastifyInstance, opts: { store: Store; now: () => number }) => {
    await app.register(fastifyAuth);
    app.decorateRequest('auth', null as unknown as AuthContext);

    const token =
      (want: 'app' | 'user'): Handler =>
      async (request) => {
        const ctx = await authenticateToken(opts.store, accessToken(request), opts.now());
        if (ctx.kind !== want) {
          throw apiError(
            'access_denied',
            want === 'app' ? 'This method requires an application access token' : 'This method requires a user access token',
          );
        }
        request.auth = ctx;
      };
    const client =
      (requireSecret: boolean): Handler =>
      async (request) => {
        request.auth = await authenticateClient(opts.store, clientCredentials(request), requireSecret);
      };
    const strategies: Record<Strategy, Handler> = {
      appToken: token('app'),
      userToken: token('user'),
      clientSecret: client(true),
      clientKey: client(false),
    };

    app.decorate('guard', (...names: Strategy[]) => {
      const handlers = names.map((n) => strategies[n]);
      if (handlers.length === 1) return handlers[0] as unknown as preHandlerHookHandler;
      return app.auth(handlers) as preHandlerHookHandler;
    });
  },
  { name: 'auth' },
);
