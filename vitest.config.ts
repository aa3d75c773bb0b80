import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'tools/**/*.test.ts'],
          environment: 'node',
          // Generous: a loaded 2-core CI machine must not turn slow into failed. Two unit tests check
          // wall-clock time, loosely: src/metrics/parse.fuzz.test.ts (pathological expositions parse
          // within 5 s) and src/commands/queues.test.ts (`queues --for 1500ms` ends within 5 s, and its
          // rounds last at least 80 ms); every other time a unit test checks is on the fake clock.
          testTimeout: 30_000,
          // Discovery's answer is not kept on disk between tests (src/kube/discovery-cache.ts): a
          // test's fake API server must not find what another's served at the same address.
          env: { INFORMER_TRACE_CACHE_DIR: 'off' },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          // Nor here, where tests restart the API server with other APIs served at the same
          // address; test/e2e/discovery-cache.test.ts turns it on for its own runs.
          env: { INFORMER_TRACE_CACHE_DIR: 'off' },
        },
      },
    ],
  },
});
