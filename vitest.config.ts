import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every fast-check property runs on one fixed seed (FC_SEED to explore others).
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machine is shared and has two cores: keep parallelism modest so emulators stay responsive.
    maxWorkers: 2,
  },
});
