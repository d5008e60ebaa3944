import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackendInputError, BackendRequestError, downloadCheckpoint, listCheckpoints } from 'agentrl';
import { FakeTinker } from './fake-tinker-server.js';

let server: FakeTinker | undefined;
afterEach(async () => {
  await server?.close().catch(() => undefined);
  server = undefined;
});

describe('checkpoint routes per engine', () => {
  it("SkyRL has no list of the caller's checkpoints: refused before any request, naming the engine; a run's list works", async () => {
    server = await FakeTinker.start({ hook: (r) => (r.path.endsWith('/checkpoints') ? { json: { checkpoints: [] } } : undefined) });
    for (const engine of ['skyrl-jax', 'skyrl-fsdp', 'open-rl'] as const) {
      const e = await listCheckpoints({ baseUrl: server.url, apiKey: 'tml-x', engine }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BackendInputError);
      expect((e as Error).message).toContain(`${engine} has no GET /api/v1/checkpoints`);
    }
    expect(server.requests).toHaveLength(0);
    await listCheckpoints({ baseUrl: server.url, apiKey: 'tml-x', engine: 'skyrl-jax' }, 'model-1');
    await listCheckpoints({ baseUrl: server.url, apiKey: 'tml-x', engine: 'tinker' });
    expect(server.requests.map((r) => r.path)).toEqual(['/api/v1/training_runs/model-1/checkpoints', '/api/v1/checkpoints']);
  });

  it("archives at the engine's route: SkyRL's one-segment sampler route, Tinker's {kind}/{name}; kinds an engine does not archive are refused", async () => {
    server = await FakeTinker.start({ hook: () => ({ status: 404, json: { detail: 'Checkpoint not found' } }) });
    const dir = await mkdtemp(join(tmpdir(), 'ckpt-'));
    try {
      const opts = (engine: 'skyrl-jax' | 'tinker' | 'tuft') => ({ baseUrl: server!.url, apiKey: 'tml-x', engine, retry: { budgetMs: 100 } });
      expect(await downloadCheckpoint('tinker://m1/sampler_weights/s_3', dir, opts('skyrl-jax')).catch((x: unknown) => x)).toBeInstanceOf(BackendRequestError);
      expect(await downloadCheckpoint('tinker://m1/weights/w', dir, opts('tinker')).catch((x: unknown) => x)).toBeInstanceOf(BackendRequestError);
      expect(server.requests.map((r) => r.path)).toEqual([
        '/api/v1/training_runs/m1/checkpoints/s_3/archive',
        '/api/v1/training_runs/m1/checkpoints/weights/w/archive',
      ]);
      const weights = await downloadCheckpoint('tinker://m1/weights/w', dir, opts('skyrl-jax')).catch((x: unknown) => x);
      expect(weights).toBeInstanceOf(BackendInputError);
      expect((weights as Error).message).toMatch(/skyrl-jax serves no archive of training states.*only of sampler_weights/);
      expect((await downloadCheckpoint('tinker://m1/sampler_weights/s', dir, opts('tuft')).catch((x: unknown) => x)) as Error).toBeInstanceOf(
        BackendInputError,
      );
      expect(server.requests).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
