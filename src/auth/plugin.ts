// Authentication strategies, composed per route with @fastify/auth. Each strategy sets
// `request.auth`; routes read it and never look at credentials themselves. Routes attach a guard as
// `preValidation`, ahead of the input checks: a missing, invalid or wrong-kind credential gets the
// same 401/403 whatever the input, and a caller without one does not learn the route's schema. So
// the guard sees the body parsed but not validated (credentials.ts reads its fields as sent); what
// looks objects up by the input (the acting user_id) stays in the handlers, after validation.
import fastifyAuth from '@fastify/auth';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { apiError } from '../errors.js';
import type { Store } from '../store/store.js';
import { authenticateClient, authenticateToken, type AuthContext } from './authenticate.js';
import { accessToken, clientCredentials } from './credentials.js';
import type { AuthLimits } from './limits.js';
import { TokenCache } from './token-cache.js';

export type Strategy = 'appToken' | 'userToken' | 'clientSecret' | 'clientKey';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyInstance {
    /** preValidation hook that accepts any of the named credential kinds. */
    guard(...strategies: Strategy[]): preValidationHookHandler;
  }
}

/** How long a token's documents are reused without reading the store (see token-cache.ts). */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 5000;

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Whether the request carries an access token at all (both header and parameter counts). */
function sentToken(request: FastifyRequest): boolean {
  try {
    return accessToken(request) !== undefined;
  } catch {
    return true;
  }
}

/** Whether the request carries an API key (a key field sent as a number or list counts). */
function sentClient(request: FastifyRequest): boolean {
  try {
    return clientCredentials(request) !== undefined;
  } catch {
    return true;
  }
}

export default fp(
  async (app: FastifyInstance, opts: { store: Store; now: () => number; tokenCacheTtlMs?: number; limits?: AuthLimits }) => {
    await app.register(fastifyAuth);
    app.decorateRequest('auth', null as unknown as AuthContext);
    const cache = new TokenCache(opts.store, opts.tokenCacheTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS);

    const token =
      (want: 'app' | 'user'): Handler =>
      async (request) => {
        const ctx = await authenticateToken(opts.store, accessToken(request), opts.now(), cache);
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
        request.auth = await authenticateClient(opts.store, clientCredentials(request), requireSecret, { limits: opts.limits, address: request.ip });
      };
    const strategies: Record<Strategy, Handler> = {
      appToken: token('app'),
      userToken: token('user'),
      clientSecret: client(true),
      clientKey: client(false),
    };

    // Which credential kind each strategy reads: when every strategy fails, the caller hears about
    // the credential they sent (a wrong Basic secret is invalid_client, not "token required").
    const presented: Record<Strategy, (request: FastifyRequest) => boolean> = {
      appToken: sentToken,
      userToken: sentToken,
      clientSecret: sentClient,
      clientKey: sentClient,
    };

    // Each strategy's failure, kept per request so the composed guard can report the right one.
    const failures = new WeakMap<FastifyRequest, Map<Strategy, Error>>();
    const recording =
      (name: Strategy): Handler =>
      async (request, reply) => {
        try {
          await strategies[name](request, reply);
        } catch (err) {
          const seen = failures.get(request) ?? new Map<Strategy, Error>();
          seen.set(name, err as Error);
          failures.set(request, seen);
          throw err;
        }
      };

    type Done = (err?: Error) => void;
    app.decorate('guard', (...names: Strategy[]) => {
      if (names.length === 1) return strategies[names[0]] as unknown as preValidationHookHandler;
      const composed = app.auth(names.map(recording)) as unknown as (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
      // When every strategy fails, answer about the credential the caller sent (a wrong Basic
      // secret is invalid_client, not "token required"); with none sent, about the first strategy.
      return function guard(request: FastifyRequest, reply: FastifyReply, done: Done) {
        composed(request, reply, (err) => {
          if (!err) return done();
          // A throw here is outside any request handler's reach: it would end the process.
          let relevant = names[0];
          try {
            relevant = names.find((n) => presented[n](request)) ?? names[0];
          } catch {
            /* answer about the first strategy */
          }
          done(failures.get(request)?.get(relevant) ?? err);
        });
      } as unknown as preValidationHookHandler;
    });
  },
  { name: 'auth' },
);
