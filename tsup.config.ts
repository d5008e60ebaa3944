import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { browserPlatform } from './scripts/browser-platform.mjs';

/** `adapters/<name>/index.ts` → `dist/adapters/<name>.js`; `adapters/<name>/adapter.ts` → `dist/adapters/<name>/adapter.js`. */
function adapterEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync('adapters').sort()) {
    if (existsSync(`adapters/${name}/index.ts`)) entries[`adapters/${name}`] = `adapters/${name}/index.ts`;
    if (existsSync(`adapters/${name}/adapter.ts`)) entries[`adapters/${name}/adapter`] = `adapters/${name}/adapter.ts`;
  }
  return entries;
}

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing/index.ts',
      internal: 'src/internal.ts',
      'testing/conformance': 'src/testing/conformance/index.ts',
      // Applications (apps/): built on the entry points above, which esbuild resolves through tsconfig paths.
      cli: 'apps/cli/main.ts',
      serve: 'apps/serve/index.ts',
      otel: 'src/otel/index.ts',
      wandb: 'src/wandb/index.ts',
      // Loaded by the math-equivalence worker pool (src/reward/math/pool.ts) inside worker threads.
      'reward-math-worker': 'src/reward/math/equivalent.ts',
      // Loaded by workerLocalBackend (src/backend/local/worker/worker-backend.ts) inside its engine worker thread.
      'local-engine-worker': 'src/backend/local/worker/engine-host.ts',
      // Every adapter folder: its entry point (`agentrl/adapters/<name>`) and the descriptor the CLI discovers.
      ...adapterEntries(),
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    // No clean here: the two builds run side by side and a clean in one deleted the other's declarations (dist/browser.d.ts);
    // `npm run build` empties dist/ first.
    clean: false,
    target: 'node20',
    platform: 'node',
    shims: true,
    splitting: true,
    // Optional native/heavy dependencies stay external: loaded only by the adapters and environments that use them.
    external: ['dockerode', 'isolated-vm', 'better-sqlite3', 'vitest', 'playwright-core'],
  },
  // `agentrl/browser`: ESM for bundlers and pages; platform modules swapped for their `.browser.ts` versions, no Node built-in.
  {
    // The Pyodide sandbox's Web Worker script ships beside it: a page serves it and passes its URL as `workerUrl`.
    entry: { browser: 'src/browser/index.ts', 'adapters/pyodide-worker': 'adapters/pyodide/worker.ts' },
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'es2022',
    platform: 'browser',
    splitting: false,
    esbuildPlugins: [browserPlatform()],
  },
]);
