// The OpenAPI 3.1 document (/docs/json) and its browsable UI (/docs, @fastify/swagger-ui, assets
// served from the package). OpenAPI 3.1 because its schemas are JSON Schema, as TypeBox writes them
// (`exclusiveMinimum: 0`, `type: 'null'`); 3.0 refused both.
//
// Responses and security are documentation only: a route names its success body, and any error it
// can give beyond what its guard and schemas imply, in `config.docs`; the `transform` below writes
// them into the document. They are never the route's `response` schema, which Fastify would
// serialize with (dropping or coercing fields): what a handler returns is sent unchanged.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { DOC_OBJECTS, doc } from '../schemas/response-objects.js';
import { summaryOf } from './openapi-summaries.js';
import { withTimezoneHeader } from './openapi-timezone.js';

type Security = Array<Record<string, string[]>>;

/** A response the document states as it is, for operations that answer something else than the API's JSON. */
export interface DocResponse {
  description: string;
  /** Its media type: application/json unless said. */
  type?: string;
  schema?: TSchema;
}

export interface RouteDocs {
  /** The body of a 200 (absent where `responses` says what a 200 is). */
  ok?: TSchema;
  /**
   * Responses stated as they are, replacing the generated ones of the same status: a page, a
   * WebSocket's 101, /health's 503.
   */
  responses?: Record<number, DocResponse>;
  /** The media type its errors come in, where it is not the API's JSON error shape (a page's errors are pages). */
  errorsAs?: string;
  /** The body of a 409 that is not an error: a create whose key already exists answers the object (reference §6.5). */
  conflict?: TSchema;
  /** Error statuses beyond those implied by the route's guard, schemas, method and `:id`. */
  errors?: number[];
  /** Where no guard says it (oauth/token, the operator API). */
  security?: Security;
  /** The request body as the document shows it, where the route's own schema cannot say it (location/update). */
  body?: TSchema;
  /** Bodies in JSON only (location/update); others also take form-encoded bodies. */
  jsonOnly?: boolean;
}

/** A route's `config` naming its documentation (typed once here: TypeBox types inferred in place are too deep for Fastify's generics). */
export const openApi = (docs: RouteDocs): { docs: RouteDocs } => ({ docs });

declare module 'fastify' {
  interface FastifyContextConfig {
    docs?: RouteDocs;
  }
}

/** The credential kinds a guard accepts: plugins/auth.ts writes them on each guard it makes. */
type Strategy = 'appToken' | 'userToken' | 'clientSecret' | 'clientKey' | 'anonymous';

export const SECURITY_SCHEMES = {
  oauth: {
    type: 'http', scheme: 'bearer',
    description: 'An access token in the Authorization header: `OAuth <token>` (as the Geoloqi SDKs send it) or `Bearer <token>`.',
  },
  access_token: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The access token as a parameter (query or body), where a client cannot set headers.' },
  oauth_token: { type: 'apiKey', in: 'query', name: 'oauth_token', description: 'The same, under its older name.' },
  client_basic: { type: 'http', scheme: 'basic', description: 'HTTP Basic: the API key (client_id) as the user name, the API secret (client_secret) as the password.' },
  client_id: { type: 'apiKey', in: 'query', name: 'client_id', description: 'The API key as a parameter (query or body).' },
  client_secret: { type: 'apiKey', in: 'query', name: 'client_secret', description: 'The API secret as a parameter (body; never in distributed apps).' },
  admin: { type: 'http', scheme: 'bearer', description: 'The operator\'s ADMIN_TOKEN: `Authorization: Bearer <token>`.' },
} as const;

export const TOKEN_SECURITY: Security = [{ oauth: [] }, { access_token: [] }, { oauth_token: [] }];
const SECURITY: Record<Strategy, Security> = {
  appToken: TOKEN_SECURITY,
  userToken: TOKEN_SECURITY,
  clientSecret: [{ client_basic: [] }, { client_id: [], client_secret: [] }],
  clientKey: [{ client_basic: [] }, { client_id: [] }],
  // OpenAPI's empty requirement: the method may be called without any credential.
  anonymous: [{}],
};
const CREDENTIAL: Record<Strategy, string> = {
  appToken: 'an application access token',
  userToken: 'a user access token',
  clientSecret: 'the API key and secret',
  clientKey: 'the API key',
  anonymous: 'none',
};
/** oauth/token: the API key, with the secret for client_credentials. */
export const CLIENT_SECURITY: Security = [{ client_basic: [] }, { client_id: [], client_secret: [] }, { client_id: [] }];
export const ADMIN_SECURITY: Security = [{ admin: [] }];

const ERRORS: Record<number, string> = {
  400: 'Bad input (invalid_input, missing_input, invalid_request…): a field is missing, malformed or out of range',
  401: 'No valid credential (invalid_token, expired_token, invalid_client)',
  403: 'access_denied: a credential of the wrong kind for this method',
  404: 'not_found: no such object in this application (another application\'s objects are invisible)',
  409: 'Conflict (duplicate_key, username_exists)',
  413: 'payload_too_large: the body is over the size limit',
  415: 'unsupported_media_type: the body is neither JSON nor form-encoded',
  429: 'too_many_requests: too many failed credential checks, or too many replays in flight; see Retry-After',
  500: 'internal_error',
  503: 'service_unavailable: shutting down or storage refusing writes (see Retry-After), or a replay stopped at its time budget',
};

const json = (schema: TSchema, description: string) => ({ description, content: { 'application/json': { schema } } });

function strategiesOf(route: RouteOptions): Strategy[] {
  const hooks = [route.preValidation ?? []].flat() as Array<{ strategies?: Strategy[] }>;
  return [...new Set(hooks.flatMap((h) => h.strategies ?? []))];
}

function securityOf(strategies: Strategy[]): Security {
  const seen = new Set<string>();
  return strategies.flatMap((s) => SECURITY[s]).filter((r) => !seen.has(JSON.stringify(r)) && seen.add(JSON.stringify(r)));
}

/** What can go wrong on this route, by status: its guard's failures, its input checks, its own `errors`. */
function errorStatuses(route: RouteOptions, schema: FastifySchema, strategies: Strategy[], docs: RouteDocs): number[] {
  const statuses = new Set([500, 503, ...(docs.errors ?? [])]);
  const tokens = strategies.filter((s) => s === 'appToken' || s === 'userToken');
  if (strategies.length) statuses.add(401);
  // A token sent both in the header and as a parameter is a 400 (reference §3).
  if (tokens.length) statuses.add(400);
  // A valid token of the other kind.
  if (tokens.length === 1) statuses.add(403);
  // Secret checks are throttled per client and address (auth/limits.ts).
  if (strategies.some((s) => s === 'clientSecret' || s === 'clientKey')) statuses.add(429);
  if (schema.body || schema.querystring || schema.params || docs.body) statuses.add(400);
  if (schema.params) statuses.add(404);
  if ([route.method].flat().includes('POST')) [413, 415].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

/** A stated response as the swagger plugin takes it: no body is `type: 'null'`, a page is a string. */
const stated = ({ description, type, schema }: DocResponse) =>
  schema || type ? { description, content: { [type ?? 'application/json']: { schema: schema ?? { type: 'string' } } } } : { description, type: 'null' };

/** The swagger `transform`: each route's summary, documented responses, security and credential note. */
function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  const docs = route.config?.docs;
  if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
  const summary = summaryOf(route.method, url);
  if (!docs) return { schema: { ...schema, ...(summary ? { summary } : {}) }, url };
  const strategies = strategiesOf(route);
  const response: Record<number, unknown> = docs.ok ? { 200: json(docs.ok, 'OK') } : {};
  for (const [status, r] of Object.entries(docs.responses ?? {})) response[Number(status)] = stated(r);
  if (docs.conflict) response[409] = json(docs.conflict, 'The key is taken: nothing was created; the existing object, with a Location header to it');
  for (const status of errorStatuses(route, schema, strategies, docs)) {
    const description = ERRORS[status] ?? 'Error';
    // Refusals while the service shuts down are the error shape everywhere (http/closing.ts).
    response[status] ??= docs.errorsAs && status !== 503 ? stated({ description, type: docs.errorsAs }) : json(doc('Error'), description);
  }
  const credential = strategies.length ? `Credential: ${strategies.map((s) => CREDENTIAL[s]).join(', or ')}.` : undefined;
  return {
    url,
    schema: {
      ...(summary ? { summary } : {}),
      ...schema,
      ...(docs.body ? { body: docs.body } : {}),
      ...(schema.body || docs.body ? { consumes: docs.jsonOnly ? ['application/json'] : ['application/json', 'application/x-www-form-urlencoded'] } : {}),
      ...(credential && !schema.description ? { description: credential } : {}),
      security: docs.security ?? securityOf(strategies),
      response,
    },
  };
}

/**
 * The Socket.IO streaming API (plugins/streaming.ts) is engine.io's, on the server beside Fastify,
 * not a route: the document states it by hand.
 */
const SOCKET_IO_PATH = {
  get: {
    tags: ['stream'],
    summary: 'Streaming API (Socket.IO 4): watched users\' and groups\' locations as they arrive',
    description:
      'Connect with a Socket.IO client (`io(url, { auth: { access_token } })`; the browser client is served at ' +
      '`/socket.io/socket.io.js`). The server emits `enter authentication`; the client emits `token` with ' +
      '`group-<group token>`, `user-<username>` or `trip-<share token>`; the server then emits `location` events whose data ' +
      'is a JSON string. Credentials travel in the handshake (`access_token` or `client_id`).',
    security: [{ access_token: [] }, { client_id: [] }, {}] as Security,
    responses: {
      101: { description: 'Switching Protocols: the WebSocket of a Socket.IO connection' },
      200: { description: 'A long-polling transport response (engine.io)' },
    },
  },
};

/** Registers the document (before any route, so each is seen) and the UI at /docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Geotrigger API (Geoloqi v1 compatible)',
        version: '1',
        description: 'Every error is `{error_code, error, error_description}`. Booleans travel as 1/0. Dates are accepted as Unix seconds ' +
          'or ISO-8601 and answered as ISO-8601 with a `_ts` Unix-seconds twin. POST bodies are JSON or form-encoded (`extra[key]=value`).',
      },
      components: { securitySchemes: SECURITY_SCHEMES, schemas: DOC_OBJECTS },
    },
    transform: documentRoute,
    transformObject: (d) => {
      if (!('openapiObject' in d)) return d.swaggerObject;
      const document = withTimezoneHeader(d.openapiObject);
      document.paths = { ...document.paths, '/socket.io/': SOCKET_IO_PATH };
      return document;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, defaultModelsExpandDepth: 0 } });
}
