/**
 * The parity matrix: every built-in loss kind, KL (reference 'base' and a sampler, placement advantage and loss),
 * rollout correction and distillation — each a small Trainer run compared between the embedded engine in process and
 * `tinkerBackend({ engine })` → the engine's simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineLoss, localBackend, type SamplingClient, type TrainingBackend } from 'agentrl';
import { ConfigError } from '../../src/errors/index.js';
import type { TrainerOptions } from '../../src/trainer/options.js';
import { startEngine, type EngineSimulator, type SimEngine } from './simulators/index.js';
import { PARITY_MODEL, maxRelDiff, runLocal, runOnSimulator, type ParityCase, type ParityRefs, type RunOutcome } from './parity.js';

const reinforce = defineLoss({ name: 'reinforce', level: 'token', perToken: (s) => s.targetLogprobs.map((lp, t) => -lp * s.advantages[t]!) });
/** Engines that score nothing with a step-0 sampler of themselves (their profiles refuse kl.reference 'base'). */
const NO_BASE_KL = { 'skyrl-jax': 'kl.reference', 'skyrl-fsdp': 'kl.reference', 'skyrl-megatron': 'kl.reference', 'open-rl': 'kl.reference' } as const;

/** The cases. */
export const PARITY_CASES: readonly ParityCase[] = [
  { name: 'ppo', extra: () => ({ loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 } }) },
  { name: 'importance_sampling', extra: () => ({ loss: { kind: 'importance_sampling' } }) },
  { name: 'cispo', extra: () => ({ loss: { kind: 'cispo', clipHigh: 4 } }) },
  { name: 'gspo', extra: () => ({ loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1, aggregation: 'sequence-mean' } }) },
  { name: 'cross_entropy', extra: () => ({ loss: { kind: 'cross_entropy' } }) },
  { name: 'custom', extra: () => ({ loss: { kind: 'custom', loss: reinforce } }) },
  { name: "kl reference 'base', placement advantage", extra: () => ({ kl: { coef: 0.05, estimator: 'k3' } }), refusedOn: NO_BASE_KL },
  { name: "kl reference 'base', placement loss", extra: () => ({ kl: { coef: 0.05, placement: 'loss', estimator: 'k2' } }), refusedOn: NO_BASE_KL },
  {
    name: 'kl reference sampler, placement loss (gspo)',
    extra: (r) => ({
      loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1, aggregation: 'sequence-mean' },
      kl: { coef: 0.05, reference: r.reference, placement: 'loss', estimator: 'k2' },
    }),
  },
  {
    // Several updates per batch make the ratios leave 1, so the clip thresholds matter: open-rl clips at ±clip_range
    // (0.2) whatever the thresholds (trainer.py:362-366).
    name: 'ppo with tight asymmetric clipping, 2 epochs × 2 minibatches',
    extra: () => ({ loss: { kind: 'ppo', clipLow: 0.9995, clipHigh: 1.002 }, updatesPerBatch: { minibatches: 2, epochs: 2 }, maxSteps: 1 }),
    adaptOrRefuseOn: { 'open-rl': 'loss' },
    meaningful: (steps) => expect(Math.max(...steps.map((m) => m['optim/clip_frac_last'] ?? 0))).toBeGreaterThan(0),
  },
  { name: 'rollout correction', extra: () => ({ rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 } }) },
  { name: 'distillation', extra: (r) => ({ distill: { teacher: r.teacher, coef: 0.5 } }) },
];

/** Adam settings a profile accepts for the engine (each engine group trains with the same ones as its reference run). */
export function optimizerFor(engine: SimEngine): NonNullable<TrainerOptions['optimizer']> {
  if (engine === 'skyrl-jax') return { learningRate: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, gradClipNorm: 0 };
  return { learningRate: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 };
}

const TOL = 1e-5;

/**
 * Registers the parity matrix for `engine`: each case gives the same gradient norms and post-training logprobs as the
 * embedded engine (≤ 1e-5 relative), or the `ConfigError` its profile promises, before the first rollout.
 */
export function describeEngineParity(engine: SimEngine): void {
  describe(`${engine}: the same update as the embedded engine, or the promised ConfigError`, () => {
    let sim: EngineSimulator;
    const owned: TrainingBackend[] = [];
    let refs: ParityRefs;
    beforeAll(async () => {
      sim = await startEngine(engine, { model: PARITY_MODEL, keepSamplingSeed: true });
      const sampler = async (seed: number): Promise<SamplingClient> => {
        const b = localBackend({ ...PARITY_MODEL, seed });
        owned.push(b);
        return b.saveWeightsForSampler();
      };
      refs = { teacher: await sampler(11), reference: await sampler(4) };
    });
    afterAll(async () => {
      await sim?.close();
      for (const b of owned) await b.close();
    });

    for (const c of PARITY_CASES) {
      it(c.name, async () => {
        const extra = { ...c.extra(refs), optimizer: optimizerFor(engine) };
        const remote = await runOnSimulator(sim, extra);
        const refusal = c.refusedOn?.[engine];
        if (refusal !== undefined) {
          expect(remote.kind, `${engine} should refuse ${c.name}`).toBe('refused');
          const e = (remote as Extract<RunOutcome, { kind: 'refused' }>).error;
          expect(e).toBeInstanceOf(ConfigError);
          expect(e.message).toContain(refusal);
          expect(e.message).toContain(engine);
          return;
        }
        const either = c.adaptOrRefuseOn?.[engine];
        if (remote.kind === 'refused' && either !== undefined) {
          expect(remote.error.message).toContain(either);
          expect(remote.error.message).toContain(engine);
          return;
        }
        if (remote.kind === 'refused') throw new Error(`${engine} refused ${c.name}: ${remote.error.message}`);
        const local = await runLocal(extra);
        if (local.kind === 'refused') throw new Error(`the embedded engine refused ${c.name}: ${local.error.message}`);
        c.meaningful?.(local.steps);
        expect(remote.gradNorms.length, 'optimizer steps').toBe(local.gradNorms.length);
        expect(maxRelDiff(remote.gradNorms, local.gradNorms), `grad norms ${remote.gradNorms} vs ${local.gradNorms}`).toBeLessThanOrEqual(TOL);
        expect(maxRelDiff(remote.logprobs, local.logprobs), 'post-training logprobs').toBeLessThanOrEqual(TOL);
      }, 180_000);
    }
  });
}
