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
import { withTimezoneHeader } from './openapi-timezone.js';

type Security = Array<Record<string, string[]>>;

export interface RouteDocs {
  /** The body of a 200. */
  ok: TSchema;
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

/** The swagger `transform`: each route's documented responses, security and credential note. */
function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  const docs = route.config?.docs;
  if (!schema || (schema as { hide?: boolean }).hide || !docs) return { schema, url };
  const strategies = strategiesOf(route);
  const response: Record<number, unknown> = { 200: json(docs.ok, 'OK') };
  if (docs.conflict) response[409] = json(docs.conflict, 'The key is taken: nothing was created; the existing object, with a Location header to it');
  for (const status of errorStatuses(route, schema, strategies, docs)) response[status] ??= json(doc('Error'), ERRORS[status] ?? 'Error');
  const credential = strategies.length ? `Credential: ${strategies.map((s) => CREDENTIAL[s]).join(', or ')}.` : undefined;
  return {
    url,
    schema: {
      ...schema,
      ...(docs.body ? { body: docs.body } : {}),
      ...(schema.body || docs.body ? { consumes: docs.jsonOnly ? ['application/json'] : ['application/json', 'application/x-www-form-urlencoded'] } : {}),
      ...(credential && !schema.description ? { description: credential } : {}),
      security: docs.security ?? securityOf(strategies),
      response,
    },
  };
}

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
    transformObject: (d) => ('openapiObject' in d ? withTimezoneHeader(d.openapiObject) : d.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, defaultModelsExpandDepth: 0 } });
}
