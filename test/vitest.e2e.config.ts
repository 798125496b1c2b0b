// Vitest's configuration for the end-to-end tier (`npm run test:e2e`): the `*.e2e.test.ts` files,
// which start the service over real sockets, with its worker threads, or as a child process
// (test/helpers/server.ts startServer, test/helpers/service-process.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file starts servers, worker threads or processes of its own: one file at a time keeps a
    // busy two-core machine from starving them.
    maxWorkers: 1,
    reporters: ['default'],
  },
});
