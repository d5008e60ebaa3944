import { describe, expect, it, vi } from 'vitest';

// Hazard: agentrl's own `import { z } from 'zod'` resolves to a zod 3 (a project that installed zod 3 and silenced
// the peer warning with --legacy-peer-deps). Without the guard, importing agentrl died at load time with
// `z.looseObject is not a function`. Simulated by handing agentrl the real zod 3 API that zod 4 ships as `zod/v3`.
vi.mock('zod', async () => await import('zod/v3'));

describe('agentrl resolving a zod 3', () => {
  it.each([
    ['agentrl', '../../src/index.js'],
    ['agentrl/internal', '../../src/internal.js'],
    ['agentrl/testing', '../../src/testing/index.js'],
  ])('importing %s fails with ZodVersionError naming the zod found', async (_entry, path) => {
    const err: unknown = await import(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string } | undefined)?.code).toBe('ZOD_VERSION');
    expect((err as { found: string }).found).toBe('zod 3.x or older (no z.toJSONSchema)');
    expect((err as Error).message).toMatch(/^agentrl's zod import: agentrl needs zod \^4\.0\.0 \(a peer dependency\)/);
  });
});
