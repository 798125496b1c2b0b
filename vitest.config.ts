import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end files start real servers and worker threads; two cores, so keep the fan-out small.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
