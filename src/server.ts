// Entry point: load configuration, build the app, listen, and shut down gracefully on signals.
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirInUseError } from './store/data-dir-lock.js';
import { LegacyDataError } from './store/sqlite/engine.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp({ config });
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
  });
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`store: ${app.ctx.store.engine.kind}${app.ctx.store.engine.kind === 'embedded' ? ` in ${config.dataDir}` : ''}`);
}

main().catch((err) => {
  console.error(err instanceof DataDirInUseError || err instanceof LegacyDataError ? `cannot start: ${err.message}` : err);
  process.exit(1);
});
