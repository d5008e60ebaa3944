/**
 * Rollouts that overlap learning (`async.maxStaleness > 0`) sample older sampler checkpoints while the learner trains.
 * Engines whose samplers are not frozen — SkyRL-JAX (an older checkpoint is loaded into the training slot), SkyRL-Train
 * (every sampler is the last synced policy), open-rl (the adapter is re-saved after every optim_step and sampled by
 * model id: trainer.py:432, gateway.py:385-388) — must refuse it before the first rollout; the others run it.
 * (Which groups a streaming step trains on depends on timing, so the runs are not compared with the embedded engine.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigError } from '../../src/errors/index.js';
import { SIMULATED_ENGINES, startEngine, type EngineSimulator, type SimEngine } from './simulators/index.js';
import { PARITY_MODEL, runOnSimulator } from './parity.js';
import { optimizerFor } from './cases.js';

const NOT_FROZEN: readonly SimEngine[] = ['skyrl-jax', 'skyrl-fsdp', 'skyrl-megatron', 'open-rl'];
const open: EngineSimulator[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

describe('async.maxStaleness 1 (rollouts overlap learning)', () => {
  for (const engine of SIMULATED_ENGINES) {
    const refused = NOT_FROZEN.includes(engine);
    it(`${engine}: ${refused ? 'refused before the first rollout (its samplers are not frozen)' : 'trains'}`, async () => {
      const sim = await startEngine(engine, { model: PARITY_MODEL, keepSamplingSeed: true });
      open.push(sim);
      const r = await runOnSimulator(sim, { optimizer: optimizerFor(engine), rollout: { streaming: true }, async: { maxStaleness: 1 } });
      if (refused) {
        expect(r.kind).toBe('refused');
        const e = (r as { error: ConfigError }).error;
        expect(e.message).toContain('maxStaleness');
        expect(e.message).toContain(engine);
      } else {
        expect(r.kind).toBe('trained');
        expect((r as { gradNorms: number[] }).gradNorms.length).toBeGreaterThan(0);
      }
    }, 180_000);
  }
});
