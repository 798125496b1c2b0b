// The service under test, over the embedded store in a fresh temporary DATA_DIR (kept across
// `restart()` to prove durability), built one of two ways:
// - startApp: the fast tier. The app is built and made ready but never listens; requests go
//   through `app.inject`, the engine's shards run in this thread and callbacks are sent from it.
// - startServer: the end-to-end tier. buildApp + listen on a free loopback port, shards in worker
//   threads, the callback sender in its own thread, as in production.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { publicBaseUrl } from '../../src/http/public-url.js';
import { Api } from './api.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestService {
  app: FastifyInstance;
  /** A client for this service (it follows the app across restarts). */
  api: Api;
  /** The service's public base URL, what its share links and Location headers start with (http/public-url.ts). */
  origin: string;
  config: Config;
  dataDir: string;
  /** Close and start again on the same DATA_DIR. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestServer extends TestService {
  url: string;
}

export interface TestServerOptions extends Omit<AppOptions, 'config'> {
  env?: Record<string, string>;
  /** Start on this DATA_DIR (removed by close) instead of a fresh one. */
  dataDir?: string;
}

/** Strictly increasing epoch ms, so "oldest first" or "recent" order does not depend on two requests sharing a millisecond. */
export function monotonicClock(): () => number {
  let last = 0;
  return () => (last = Math.max(Date.now(), last + 1));
}

/**
 * One validator compiler (Fastify's own) for every app this test process builds, which keeps the
 * validator of each route schema by its content: the next app reuses them instead of compiling them
 * all again (routes build some schemas as they register), which was most of what building an app cost.
 */
const ajvCompilers = AjvCompiler();
type BuildValidator = ReturnType<typeof ajvCompilers>;
const validatorsOf = new WeakMap<BuildValidator, Map<string, ReturnType<BuildValidator>>>();
const sharedValidators = (externalSchemas: unknown, options: unknown): BuildValidator => {
  const compile = ajvCompilers(externalSchemas as never, options as never);
  let known = validatorsOf.get(compile);
  if (!known) validatorsOf.set(compile, (known = new Map()));
  const cache = known;
  return ((route: Parameters<BuildValidator>[0]) => {
    const key = JSON.stringify([route.httpPart, route.schema]);
    let validate = cache.get(key);
    if (!validate) cache.set(key, (validate = compile(route)));
    return validate;
  }) as BuildValidator;
};

/** Logging stays off unless the test reads the log (a logStream), at the level env.LOG_LEVEL says. */
const loggerFor = (options: TestServerOptions) => options.logger ?? options.logStream !== undefined;

async function prepare(options: TestServerOptions) {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'geotrigger-test-')));
  const config = loadConfig({
    DATA_DIR: dataDir, ADMIN_TOKEN, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', CALLBACK_ALLOW_PRIVATE: 'true',
    // Two shards whatever the machine: the tests cover users split across shards.
    SHARDS: '2',
    // A short grace and tolerance before the clock fires a dwell: tests wait for them, not for the
    // defaults (half a minute after a start, a second while running).
    DWELL_GRACE_MS: '200',
    DWELL_TOLERANCE_MS: '200',
    // Cheap password hashes: the suites create many users; test/auth/password-hash.test.ts covers the real cost.
    PASSWORD_HASH_COST: '12',
    ...options.env,
  });
  const { env: _env, dataDir: _dataDir, ...appOptions } = options;
  return {
    dataDir, config,
    appOptions: { schemaController: { compilersFactory: { buildValidator: sharedValidators } }, ...appOptions, config, logger: loggerFor(options) },
  };
}

/** What startApp's services call themselves (PUBLIC_URL), unless the test's env says otherwise. */
export const TEST_PUBLIC_URL = 'https://geotrigger.test';

/**
 * The app for `inject`: no socket, the engine's shards and the callback sender in this thread.
 * It never listens, so it has PUBLIC_URL (TEST_PUBLIC_URL unless `env` sets it).
 */
export async function startApp(options: TestServerOptions = {}): Promise<TestService> {
  const { dataDir, config, appOptions } = await prepare({
    ...options,
    env: { PUBLIC_URL: TEST_PUBLIC_URL, ...options.env },
    engine: { inProcess: true, ...options.engine },
    delivery: { senderThread: false, ...options.delivery },
  });
  const build = async () => {
    const app = await buildApp(appOptions);
    await app.ready();
    return app;
  };
  let app = await build();
  const service: TestService = {
    app,
    api: new Api({ inject: (opts) => service.app.inject(opts) }),
    origin: publicBaseUrl(config),
    config,
    dataDir,
    async restart() {
      await service.app.close();
      app = await build();
      service.app = app;
    },
    async close() {
      await service.app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

/**
 * A real server on a loopback port, with worker threads: for tests where the socket or the threads
 * matter. Without PUBLIC_URL (unless `env` sets it), it names itself by the address it listens on.
 */
export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { dataDir, config, appOptions } = await prepare(options);
  let app = await buildApp(appOptions);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  const server: TestServer = {
    url,
    app,
    api: new Api(url),
    origin: publicBaseUrl(config, app.server.address()),
    config,
    dataDir,
    async restart() {
      await app.close();
      app = await buildApp(appOptions);
      await app.listen({ port, host: '127.0.0.1' });
      server.app = app;
    },
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
