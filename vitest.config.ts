import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const r = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^agentrl\/adapters\/(.*)$/, replacement: r('./adapters/$1/index.ts') },
      { find: /^agentrl\/testing\/conformance$/, replacement: r('./src/testing/conformance/index.ts') },
      { find: /^agentrl\/testing$/, replacement: r('./src/testing/index.ts') },
      { find: /^agentrl\/internal$/, replacement: r('./src/internal.ts') },
      { find: /^agentrl\/serve$/, replacement: r('./apps/serve/index.ts') },
      { find: /^agentrl\/otel$/, replacement: r('./src/otel/index.ts') },
      { find: /^agentrl\/browser$/, replacement: r('./src/browser/index.ts') },
      { find: /^agentrl\/wandb$/, replacement: r('./src/wandb/index.ts') },
      { find: /^agentrl$/, replacement: r('./src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.typetest.json' },
  },
});
