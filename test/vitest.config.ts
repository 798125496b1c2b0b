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
    // Generous: a test that passes in a second on an idle box may wait many times that for a core
    // on a busy one. No test asserts a time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on the reference box.
    maxWorkers: 2,
    // Files share a worker's module graph instead of importing the whole service again each: the
    // service keeps no module-level state (each test builds its own app) and no test mocks a
    // module, so isolation bought nothing but the imports, which were most of the tier's time.
    isolate: false,
    reporters: ['default'],
  },
});
