// Vitest's configuration for the fast tier (`npm test`), kept under test/ (the top level holds only
// what ARCHITECTURE.md lists); the root is the repository, so paths read as from there.
// The fast tier is unit, property and route tests: routes through `app.inject` with the engine's
// shards in this thread (test/helpers/server.ts, startApp). Files named `*.e2e.test.ts` are the
// end-to-end tier (vitest.e2e.config.ts, `npm run test:e2e`): real sockets, threads, processes.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on the reference box.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
