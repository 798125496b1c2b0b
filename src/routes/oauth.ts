// POST /1/oauth/token (reference §2.3, RFC 6749 §4.1/§4.3/§4.4/§6): password, client_credentials,
// authorization_code (codes from /oauth/authorize, routes/authorize.ts) and refresh_token grants;
// JSON or form bodies; client credentials in the body or as HTTP Basic.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { authenticateClient } from '../auth/authenticate.js';
import { clientCredentials } from '../auth/credentials.js';
import { apiError } from '../errors.js';
import { redeemCode } from '../services/auth-codes.js';
import { grantAppToken, issueUserToken, redeemRefreshToken } from '../services/tokens.js';
import { verifyLogin } from '../services/logins.js';
import { CLIENT_SECURITY, openApi } from '../http/openapi.js';
import { TokenGranted } from '../schemas/response-bodies.js';

const Body = Type.Object({
  grant_type: Type.Optional(Type.String({ maxLength: 64 })),
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 200 })),
  username: Type.Optional(Type.String({ maxLength: 320 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  refresh_token: Type.Optional(Type.String({ maxLength: 200 })),
  scope: Type.Optional(Type.String({ maxLength: 200 })),
  code: Type.Optional(Type.String({ maxLength: 200 })),
  redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
  code_verifier: Type.Optional(Type.String({ maxLength: 200 })),
});

/**
 * The token request's parameters travel in the POST body (RFC 6749 §3.2, §2.3.1: client credentials
 * MUST NOT be in the request URI; the reference sends them as POST parameters or HTTP Basic). Sent in
 * the query string they were read as absent ("grant_type is required"), or a secret was taken from a
 * URL that servers and proxies log; the client is told where they belong instead. `client_id`, which
 * is no secret, is still read from the query, as on user/create and every route taking app keys.
 */
const TOKEN_REQUEST_PARAMS = [
  'grant_type', 'client_secret', 'username', 'password', 'refresh_token', 'scope', 'code', 'redirect_uri', 'code_verifier', 'assertion', 'assertion_type',
];

function refuseQueryParams(query: unknown) {
  const named = TOKEN_REQUEST_PARAMS.filter((name) => Object.hasOwn((query ?? {}) as object, name));
  if (named.length) throw apiError('invalid_request', `oauth/token takes its parameters in the POST body, not the query string (${named.join(', ')})`);
}

export async function oauthRoutes(app: RouteApp) {
  // The key and secret as sent, before validation would read a one-item list as its item: a
  // credential that is not one string is refused (auth/credentials.ts), as on every other route.
  const rawCredentials = async (request: FastifyRequest) => void clientCredentials(request);
  app.post('/oauth/token', {
    schema: { tags: ['oauth'], body: Body },
    config: openApi({ ok: TokenGranted, errors: [400, 401, 429], security: CLIENT_SECURITY }),
    preValidation: rawCredentials,
  }, async (request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    refuseQueryParams(request.query);
    const body = request.body ?? {};
    const ctx = app.ctx;
    const creds = clientCredentials(request);
    const checks = { limits: ctx.authLimits, address: request.ip };
    switch (body.grant_type) {
      case 'client_credentials': {
        const auth = await authenticateClient(ctx.store, creds, true, checks);
        const res = await grantAppToken(ctx, auth.app);
        if (!res) throw apiError('invalid_client', 'Invalid client credentials', { 'www-authenticate': 'Basic realm="geotrigger"' });
        return res;
      }
      case 'password': {
        // Mobile clients send no secret (reference §2.3): the key alone names the application.
        const auth = await authenticateClient(ctx.store, creds, false, checks);
        if (!body.username || !body.password) throw apiError('invalid_request', 'username and password are required');
        const user = await verifyLogin(ctx, auth.app._id, body.username, body.password, request.ip);
        if (!user) throw apiError('invalid_grant', 'The username or password is incorrect');
        return issueUserToken(ctx, auth.app, user);
      }
      case 'refresh_token': {
        const auth = await authenticateClient(ctx.store, creds, false, checks);
        if (!body.refresh_token) throw apiError('invalid_request', 'refresh_token is required');
        const res = await redeemRefreshToken(ctx, auth.app, body.refresh_token, auth.secretVerified);
        if (!res) throw apiError('invalid_grant', 'The refresh token is invalid or expired');
        return res;
      }
      case 'authorization_code': {
        // The secret is checked when sent; whether the code needs it is the code's to say (PKCE).
        const auth = await authenticateClient(ctx.store, creds, false, checks);
        return redeemCode(ctx, auth.app, auth.secretVerified ?? false, body);
      }
      case undefined:
        throw apiError('invalid_request', 'grant_type is required');
      default:
        throw apiError('unsupported_grant_type', `grant_type "${body.grant_type}" is not supported`);
    }
  });
}
