// Vitest's configuration, kept under test/ (the top level holds only what ARCHITECTURE.md lists):
// `npm test` passes it with --config; the root is the repository, so paths read as from there.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end files start real servers and worker threads; two cores, so keep the fan-out small.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
