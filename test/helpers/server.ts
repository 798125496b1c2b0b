// A real server for end-to-end tests: buildApp + listen on a free loopback port, over the
// embedded store in a fresh temporary DATA_DIR (kept across `restart()` to prove durability).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  /** Close and start again on the same DATA_DIR (and port). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestServerOptions extends Omit<AppOptions, 'config'> {
  env?: Record<string, string>;
}

/** Logging stays off unless the test reads the log (a logStream), at the level env.LOG_LEVEL says. */
const loggerFor = (options: TestServerOptions) => options.logger ?? options.logStream !== undefined;

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir, ADMIN_TOKEN, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', CALLBACK_ALLOW_PRIVATE: 'true',
    // Two shards whatever the machine: the end-to-end tests cover users split across threads.
    SHARDS: '2',
    // A short grace before the clock fires a dwell: tests wait for it, not for the default half minute.
    DWELL_GRACE_MS: '200',
    ...options.env,
  });
  const { env: _env, ...appOptions } = options;
  let app = await buildApp({ ...appOptions, config, logger: loggerFor(options) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const server: TestServer = {
    url: `http://127.0.0.1:${port}`,
    app,
    config,
    dataDir,
    async restart() {
      await app.close();
      app = await buildApp({ ...appOptions, config, logger: loggerFor(options) });
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
