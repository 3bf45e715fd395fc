import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Servers, child processes and DynamoDB Local: two cores, so not too many at once.
    maxWorkers: 2,
  },
});
