// buildApp(config): registers the store, auth, error handling, OpenAPI and every route group.
// Tests and the load harness build it directly; only server.ts listens and handles signals.
import formbody from '@fastify/formbody';
import fastifyMongo from '@fastify/mongodb';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import qs from 'qs';
import { AuthLimits } from './auth/limits.js';
import authPlugin from './auth/plugin.js';
import type { Config } from './config.js';
import { clientErrorHandler, MAX_HEADER_SIZE } from './http/client-errors.js';
import { refuseRequestsWhileClosing } from './http/closing.js';
import { apiError } from './errors.js';
import { errorHandler, frameworkErrorHandler, notFoundHandler, parseJsonBody, UNSUPPORTED_BODY } from './http/error-handler.js';
import { readEmptyBodyAsObject } from './http/empty-body.js';
import { checkNullStrings } from './http/null-strings.js';
import { checkNumberFields } from './http/number-fields.js';
import { checkRepeatedFields } from './http/repeated-fields.js';
import { withTimezoneHeader } from './http/openapi-timezone.js';
import { storableKeysPlugin } from './http/storable-keys.js';
import { MAX_DEPTH } from './schemas/field-names.js';
import { withoutBom } from './schemas/json-text.js';
import { deliveryLifecycle, type DeliveryOptions } from './delivery/lifecycle.js';
import { EngineHost, type EngineHostOptions } from './engine/host.js';
import { registerRoutes } from './routes/index.js';
import { ChangeFeed } from './services/changes.js';
import type { ServiceContext } from './services/context.js';
import { startRetention, type RetentionHandle } from './services/retention.js';
import { openStore, type Store } from './store/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServiceContext;
    engine: EngineHost;
  }
}

export interface AppOptions {
  config: Config;
  /** Clock override for tests. */
  now?: () => number;
  logger?: boolean;
  /** Where log lines go (default stdout); tests read them. */
  logStream?: NodeJS.WritableStream;
  /** Callback dispatcher settings (src/delivery/dispatcher.ts): tests shorten the poll and backoff. */
  delivery?: DeliveryOptions;
  /** Trigger engine settings (shard count, in-process shards, tick interval). */
  engine?: EngineHostOptions;
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
    requestTimeout: 30_000,
    // Requests arriving while the app closes get our 503 instead (http/closing.ts).
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    // Requests the HTTP parser refuses are answered in the error shape too (http/client-errors.ts).
    clientErrorHandler,
    http: { maxHeaderSize: MAX_HEADER_SIZE },
    // verbose: each validation error carries the schema it failed, for its message (http/validation-message.ts).
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false, verbose: true }, plugins: [storableKeysPlugin] },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First of the preClose hooks, so no request reaches the engine once it begins to stop.
  refuseRequestsWhileClosing(app);
  const store = await openConfiguredStore(app, config);
  const ctx: ServiceContext = { store, config, changes: new ChangeFeed(), now: opts.now ?? Date.now, authLimits: new AuthLimits(config) };
  app.decorate('ctx', ctx);
  app.addHook('onClose', async () => store.close());
  // The outbox dispatcher runs while the app is up; it stops in preClose, before the store closes.
  const delivery = deliveryLifecycle(ctx, {
    concurrency: config.callbackConcurrency,
    endpointConcurrency: config.callbackEndpointConcurrency,
    ...opts.delivery,
    log: app.log,
  });
  app.addHook('onReady', async () => delivery.start());
  app.addHook('preClose', async () => delivery.stop());
  // Old delivery rows and (when configured) old histories are swept while the app is up.
  let retention: RetentionHandle | undefined;
  app.addHook('onReady', async () => {
    retention = startRetention(ctx, app.log);
  });
  app.addHook('preClose', async () => retention?.stop());
  // The engine is seeded from the store before the first request; location updates go through it.
  const engine = new EngineHost(ctx, opts.engine);
  app.decorate('engine', engine);
  ctx.locationSink = engine;
  app.addHook('onReady', async () => engine.start());
  app.addHook('preClose', async () => engine.close());

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
  // Form bodies with nested fields (`extra[color]=blue`), as the historical clients send them, as deep
  // as a JSON body may nest (qs keeps brackets past `depth` as one literal key, which then nests too deep).
  // A leading byte order mark would otherwise become part of the first field's name, and that field lost.
  await app.register(formbody, { parser: (body) => qs.parse(withoutBom(body), { depth: MAX_DEPTH, arrayLimit: 1000, parameterLimit: 2000 }) });

  await app.register(swagger, {
    openapi: {
      info: { title: 'Geotrigger API (Geoloqi v1 compatible)', version: '1' },
      components: {
        securitySchemes: {
          oauth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'OAuth <access_token>' },
          basic: { type: 'http', scheme: 'basic', description: 'client_id:client_secret' },
        },
      },
    },
    transformObject: (doc) => ('openapiObject' in doc ? withTimezoneHeader(doc.openapiObject) : doc.swaggerObject),
  });
  await app.register(authPlugin, { store, now: ctx.now, tokenCacheTtlMs: config.authCacheTtlMs, limits: ctx.authLimits });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await registerRoutes(app);
  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

async function openConfiguredStore(app: FastifyInstance, config: Config): Promise<Store> {
  if (!config.mongodbUrl) {
    return openStore({
      kind: 'embedded',
      dataDir: config.dataDir,
      onCompactionError: (err, collection) => app.log.error({ err, collection }, 'compaction failed; the file keeps its appended lines'),
    });
  }
  await app.register(fastifyMongo, { url: config.mongodbUrl, forceClose: true });
  await app.after();
  const db = app.mongo.db;
  if (!db) throw new Error('MONGODB_URL must name a database, e.g. mongodb://host:27017/geotrigger');
  // @fastify/mongodb closes the client itself on app close.
  return openStore({ kind: 'mongodb', db });
}
