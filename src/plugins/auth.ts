// The auth plugin: the authentication strategies of src/auth/, composed per route with
// @fastify/auth. Each strategy sets `request.auth`; routes read it and never look at credentials
// themselves. Routes attach a guard as `preValidation`, ahead of the input checks: a missing,
// invalid or wrong-kind credential gets the same 401/403 whatever the input, and a caller without
// one does not learn the route's schema. So the guard sees the body parsed but not validated
// (auth/credentials.ts reads its fields as sent); what looks objects up by the input (the acting
// user_id) stays in the handlers, after validation.
import fastifyAuth from '@fastify/auth';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { apiError } from '../errors.js';
import { authenticateClient, authenticateToken, type AuthContext } from '../auth/authenticate.js';
import { accessToken, clientCredentials } from '../auth/credentials.js';
import { TokenCache } from '../auth/token-cache.js';

/**
 * `anonymous`: no credential at all (request.auth stays null). Composed with the token strategies
 * it makes the token optional: a token sent must still be valid (share/*, whose credential is the
 * share token in the query).
 */
export type Strategy = 'appToken' | 'userToken' | 'clientSecret' | 'clientKey' | 'anonymous';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
    /** Each strategy's failure on this request, so a composed guard can report the right one. */
    authFailures: Map<Strategy, Error> | null;
  }
  interface FastifyInstance {
    /** preValidation hook that accepts any of the named credential kinds. */
    guard(...strategies: Strategy[]): preValidationHookHandler;
  }
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** A guard carries the credential kinds it accepts: the OpenAPI document reads them (http/openapi.ts). */
const labelled = <F extends object>(guard: F, strategies: Strategy[]): F => Object.assign(guard, { strategies });

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

/** Reads the store, clock and token cache lifetime (AUTH_CACHE_TTL_MS) of the service context (plugins/store.ts). */
export default fp(
  async (app: FastifyInstance) => {
    await app.register(fastifyAuth);
    app.decorateRequest('auth', null as unknown as AuthContext);
    app.decorateRequest('authFailures', null);
    const { store, now, config } = app.ctx;
    const cache = new TokenCache(store, config.authCacheTtlMs);
    // Credential-guessing limits and the fair hashing queue, one set per app.
    const limits = app.ctx.authLimits;

    const token =
      (want: 'app' | 'user'): Handler =>
      async (request) => {
        const ctx = await authenticateToken(store, accessToken(request), now(), cache);
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
        request.auth = await authenticateClient(store, clientCredentials(request), requireSecret, { limits, address: request.ip });
      };
    const anonymous: Handler = async (request) => {
      if (sentToken(request) || sentClient(request)) throw apiError('invalid_request', 'A credential was sent: it is checked as such');
    };
    const strategies: Record<Strategy, Handler> = {
      anonymous: labelled(anonymous, ['anonymous']),
      appToken: labelled(token('app'), ['appToken']),
      userToken: labelled(token('user'), ['userToken']),
      clientSecret: labelled(client(true), ['clientSecret']),
      clientKey: labelled(client(false), ['clientKey']),
    };

    // Which credential kind each strategy reads: when every strategy fails, the caller hears about
    // the credential they sent (a wrong Basic secret is invalid_client, not "token required").
    const presented: Record<Strategy, (request: FastifyRequest) => boolean> = {
      appToken: sentToken,
      userToken: sentToken,
      clientSecret: sentClient,
      clientKey: sentClient,
      // Never the one to answer about: when it fails, a credential was sent and its check answers.
      anonymous: () => false,
    };

    // Each strategy's failure is kept on the request, so the composed guard can report the right one.
    const recording =
      (name: Strategy): Handler =>
      async (request, reply) => {
        try {
          await strategies[name](request, reply);
        } catch (err) {
          (request.authFailures ??= new Map()).set(name, err as Error);
          throw err;
        }
      };

    type Done = (err?: Error) => void;
    app.decorate('guard', (...names: Strategy[]) => {
      if (names.length === 1) return strategies[names[0]] as unknown as preValidationHookHandler;
      const composed = app.auth(names.map(recording)) as unknown as (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
      // When every strategy fails, answer about the credential the caller sent (a wrong Basic
      // secret is invalid_client, not "token required"); with none sent, about the first strategy.
      return labelled(function guard(request: FastifyRequest, reply: FastifyReply, done: Done) {
        composed(request, reply, (err) => {
          if (!err) return done();
          // A throw here is outside any request handler's reach: it would end the process.
          let relevant = names[0];
          try {
            relevant = names.find((n) => presented[n](request)) ?? names[0];
          } catch {
            /* answer about the first strategy */
          }
          done(request.authFailures?.get(relevant) ?? err);
        });
      }, names) as unknown as preValidationHookHandler;
    });
  },
  { name: 'auth', dependencies: ['store'] },
);
