import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    internal: 'src/internal.ts',
    'testing/conformance': 'src/testing/conformance/index.ts',
    cli: 'src/cli/main.ts',
    otel: 'src/otel/index.ts',
    // Loaded by the math-equivalence worker pool (src/reward/math/pool.ts) inside worker threads.
    'reward-math-worker': 'src/reward/math/equivalent.ts',
    // Loaded by workerLocalBackend (src/backend/local/worker/worker-backend.ts) inside its engine worker thread.
    'local-engine-worker': 'src/backend/local/worker/engine-host.ts',
    'adapters/local': 'adapters/local/index.ts',
    'adapters/docker': 'adapters/docker/index.ts',
    'adapters/remote': 'adapters/remote/index.ts',
    'adapters/isolated-vm': 'adapters/isolated-vm/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  shims: true,
  splitting: true,
  // Optional native/heavy dependencies stay external: loaded only by the adapters and environments that use them.
  external: ['dockerode', 'isolated-vm', 'better-sqlite3', 'vitest', 'playwright-core'],
});
