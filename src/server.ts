// Entry point: load configuration, build the app, listen, and shut down gracefully on signals
// (stopping.ts).
// A start that fails on a setting prints one line naming the variable (startup.ts) and exits 1.
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildFailure, effectiveSettings, listenFailure, whereToFind } from './startup.js';
import { STOP_SIGNALS, stopOnSignals } from './stopping.js';

function cannotStart(message: string): never {
  console.error(`cannot start: ${message}`);
  process.exit(1);
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  let app: FastifyInstance;
  try {
    app = await buildApp({ config });
  } catch (err) {
    const message = buildFailure(config, err);
    if (message === undefined) throw err;
    // No logger without an app: a misspelt variable may be why, so it is said here.
    for (const warning of config.warnings) console.error(`warning: ${warning}`);
    cannotStart(message);
  }
  for (const warning of config.warnings) app.log.warn(warning);
  // close-with-grace drains on an error and bounds the drain; the stop signals are told apart from
  // their echoes in stopping.ts.
  const grace = closeWithGrace({ delay: 10_000, skip: [...STOP_SIGNALS] }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
  });
  stopOnSignals({ drain: () => grace.close(), log: app.log });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // The store, its LOCK and the worker threads are already up: closed, so nothing is left behind.
    await app.close();
    const message = listenFailure(config, err);
    if (message === undefined) throw err;
    cannotStart(message);
  }
  const address = app.server.address();
  app.log.info({ settings: effectiveSettings(config, address), ...whereToFind(address, config) }, 'effective settings');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
