// buildApp(config): registers the runtime plugins (plugins/: store, delivery, retention, engine,
// auth, inspector), error handling, OpenAPI and every route group. Tests and the load harness build it
// directly; only server.ts listens and handles signals.
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import qs from 'qs';
import type { Config } from './config.js';
import { clientErrorHandler, MAX_HEADER_SIZE } from './http/client-errors.js';
import { refuseRequestsWhileClosing } from './http/closing.js';
import { refuseRequestsWithoutHost } from './http/host-header.js';
import { apiError } from './errors.js';
import { errorHandler, frameworkErrorHandler, notFoundHandler, parseJsonBody, UNSUPPORTED_BODY } from './http/error-handler.js';
import { readEmptyBodyAsObject } from './http/empty-body.js';
import { readEmptyListsAsObjects } from './http/empty-list-objects.js';
import { checkNullStrings } from './http/null-strings.js';
import { checkNumberFields } from './http/number-fields.js';
import { checkRepeatedFields } from './http/repeated-fields.js';
import { registerOpenApi } from './http/openapi.js';
import { storableKeysPlugin } from './http/storable-keys.js';
import { MAX_DEPTH } from './schemas/field-names.js';
import { withoutBom } from './schemas/json-text.js';
import type { DeliveryOptions } from './delivery/runtime.js';
import type { EngineHostOptions } from './engine/host.js';
import apiHitsPlugin from './plugins/api-hits.js';
import authPlugin from './plugins/auth.js';
import deliveryPlugin from './plugins/delivery.js';
import enginePlugin from './plugins/engine.js';
import geocoderPlugin from './plugins/geocoder.js';
import inspectorPlugin, { type InspectorPluginOptions } from './plugins/inspector.js';
import metricsPlugin from './plugins/metrics.js';
import retentionPlugin from './plugins/retention.js';
import storePlugin from './plugins/store.js';
import streamingPlugin from './plugins/streaming.js';
import { registerRoutes } from './routes/index.js';

export interface AppOptions {
  config: Config;
  /** Clock override for tests. */
  now?: () => number;
  logger?: boolean;
  /** Where log lines go (default stdout); tests read them. */
  logStream?: NodeJS.WritableStream;
  /** Delivery settings (src/delivery/runtime.ts): tests shorten the poll and backoff. */
  delivery?: DeliveryOptions;
  /** Trigger engine settings (shard count, in-process shards, tick interval). */
  engine?: EngineHostOptions;
  /** Where the inspector's built page is (plugins/inspector.ts). */
  inspector?: InspectorPluginOptions;
  /**
   * Fastify's schema compilers: tests that build many apps hand them one validator compiler, so
   * each route schema is compiled once per test process, not once per app.
   */
  schemaController?: FastifyServerOptions['schemaController'];
}

export const BODY_LIMIT = 2 * 1024 * 1024;

const SECRET_PARAMS = /([?&](?:access_token|oauth_token|client_secret|refresh_token|password)=)[^&#]*/gi;
/** The request URL with the values of credential parameters replaced. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, '$1[redacted]');

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            // Credentials never reach a log line: Fastify logs the URL, so query credentials are masked there.
            serializers: {
              req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
            },
            redact: ['req.headers.authorization'],
          },
    bodyLimit: BODY_LIMIT,
    // Historical clients join a base URL ending in `/` with a method path starting with one
    // (`/1//trigger/create`): repeated slashes are read as one.
    routerOptions: { ignoreDuplicateSlashes: true },
    requestTimeout: 30_000,
    // The engine's onReady seeds every user's state from the store: on a large store or a busy
    // host that outlasts Fastify's 10 s default, which would abort a healthy start.
    pluginTimeout: 300_000,
    // Requests arriving while the app closes get our 503 instead (http/closing.ts).
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    // Requests the HTTP parser refuses are answered in the error shape too (http/client-errors.ts).
    clientErrorHandler,
    // A request without a Host header is refused by http/host-header.ts, in the error shape.
    http: { maxHeaderSize: MAX_HEADER_SIZE, requireHostHeader: false },
    // verbose: each validation error carries the schema it failed, for its message (http/validation-message.ts).
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false, verbose: true }, plugins: [storableKeysPlugin] },
    ...(opts.schemaController ? { schemaController: opts.schemaController } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();

  refuseRequestsWithoutHost(app);
  // First of the preClose hooks, so no request reaches the engine once it begins to stop.
  refuseRequestsWhileClosing(app);
  // In this order: each starts in onReady and stops in preClose in the order registered (the
  // dispatcher, then retention, then the engine), and the store closes after all of them (onClose).
  // First: the store and every part made over it count into the service's registry.
  await app.register(metricsPlugin, { now: opts.now });
  await app.register(storePlugin, { config, now: opts.now, delivery: opts.delivery, engine: opts.engine });
  await app.register(deliveryPlugin);
  // location/context and `geocode`, offline; the data is read on first use.
  await app.register(geocoderPlugin);
  await app.register(retentionPlugin);
  // The engine is seeded from the store before the first request; location updates go through it.
  await app.register(enginePlugin);
  // The Socket.IO server of the streaming API (reference §4.8), at /socket.io/.
  await app.register(streamingPlugin);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  // The API reads JSON and form bodies only: Fastify's own text/plain parser handed routes a string,
  // refused as "body must be object" (400), where any other type the API does not read is a 415.
  // An empty one is no body (fetch's `body: ''` sends text/plain): a bodiless POST works as ever.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
    body === '' ? done(null, undefined) : done(apiError('unsupported_media_type', UNSUPPORTED_BODY)));
  // Before any route is added: a POST without a body reads as {} on routes taking an object
  // (http/empty-body.ts), then the route's credential guard runs (its own preValidation: auth/plugin.ts),
  // then a field sent twice where one value is taken is named (http/repeated-fields.ts)
  // and each route's number fields are checked as sent (http/number-fields.ts), as is a null sent
  // for a non-empty string (http/null-strings.ts).
  app.addHook('onRoute', readEmptyBodyAsObject);
  app.addHook('onRoute', checkRepeatedFields);
  app.addHook('onRoute', checkNumberFields);
  app.addHook('onRoute', checkNullStrings);
  // PHP's `"extra":[]` is the empty object it means (http/empty-list-objects.ts).
  app.addHook('onRoute', readEmptyListsAsObjects);
  // Form bodies with nested fields (`extra[color]=blue`), as the historical clients send them, as deep
  // as a JSON body may nest (qs keeps brackets past `depth` as one literal key, which then nests too deep).
  // A leading byte order mark would otherwise become part of the first field's name, and that field lost.
  await app.register(formbody, { parser: (body) => qs.parse(withoutBom(body), { depth: MAX_DEPTH, arrayLimit: 1000, parameterLimit: 2000 }) });

  // Pages on any origin may call the API with XHR or fetch (the geoloqi-js client does): credentials
  // travel in the Authorization header or as parameters, never in cookies, so every origin is allowed
  // and none gets credentialed access. The preflight OPTIONS is answered for every path.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST'],
    exposedHeaders: ['Retry-After', 'Location'],
    maxAge: 86_400,
  });

  // The OpenAPI document and its UI (/docs), before the routes so that it sees each of them.
  await registerOpenApi(app);
  await app.register(authPlugin);
  // Before the routes: its hook notes each stored location/update for the inspector's live view.
  await app.register(inspectorPlugin, opts.inspector ?? {});
  // Counts each application's API hits (application/list, application/api_hits/:id).
  await app.register(apiHitsPlugin);

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await registerRoutes(app);
  return app;
}
