/**
 * Runs the same small Trainer against the embedded engine in process and through `tinkerBackend({ engine })` against
 * an engine simulator, and collects what the update was: the gradient norm of every optimizer step and the policy's
 * logprobs of a fixed probe after training — or the `ConfigError` that stopped the run before its first rollout.
 */
import { fileURLToPath } from 'node:url';
import { Trainer, codeInterpreter, localBackend, tinkerBackend, type Reward, type SamplingClient, type TrainingBackend } from 'agentrl';
import { fakeSandbox } from 'agentrl/testing';
import { ConfigError } from '../../src/errors/index.js';
import type { TrainerOptions } from '../../src/trainer/options.js';
import type { EngineSimulator } from './simulators/index.js';

/** The tiny model every run trains (seconds per step). */
export const PARITY_MODEL = { layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 3 };
const RENDERER = fileURLToPath(new URL('../../assets/local-model', import.meta.url));
/** Tokens whose logprobs are compared after training. */
export const PROBE = Array.from({ length: 40 }, (_, i) => (i * 37 + 11) % 250);

const dataset = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) }));
/** Random weights say nothing useful; the parity of the sampled token ids keeps most groups informative. */
const parity: Reward = (t) => {
  const even = (t.turns[0]?.completionTokens ?? []).reduce((a, b) => a + b, 0) % 2 === 0;
  return { reward: even ? 1 : -1, correct: even, validFormat: true };
};

/** What one run did. */
export type RunOutcome =
  | { readonly kind: 'trained'; readonly gradNorms: number[]; readonly logprobs: (number | null)[]; readonly steps: Record<string, number>[] }
  | { readonly kind: 'refused'; readonly error: ConfigError; readonly rollouts: number };

function options(backend: TrainingBackend, extra: Partial<TrainerOptions>): TrainerOptions {
  return {
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null }),
    reward: parity,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 4,
    questionsPerBatch: 2,
    maxSteps: 2,
    seed: 5,
    budgets: { maxToolCalls: 1, maxTurns: 2, maxTrajectoryTokens: 96, maxTurnTokens: 16, maxToolResponseTokens: 16 },
    progress: false,
    ...extra,
  } as TrainerOptions;
}

async function train(backend: TrainingBackend, extra: Partial<TrainerOptions>): Promise<{ steps: Record<string, number>[]; rollouts: number } | ConfigError> {
  let rollouts = 0;
  try {
    const trainer = new Trainer(options(backend, extra));
    const steps: Record<string, number>[] = [];
    trainer.on('rollout:start', () => (rollouts += 1));
    trainer.on('step', (e) => steps.push(e.metrics));
    await trainer.train();
    return { steps, rollouts };
  } catch (e) {
    if (e instanceof ConfigError) {
      if (rollouts > 0) throw new Error(`ConfigError after ${rollouts} rollouts: ${e.message}`, { cause: e });
      return e;
    }
    throw e;
  }
}

/** One run on the embedded engine in process. */
export async function runLocal(extra: Partial<TrainerOptions>): Promise<RunOutcome> {
  const backend = localBackend(PARITY_MODEL);
  // Every optimizer step's gradient norm (a Trainer step may make several: updatesPerBatch).
  const gradNorms: number[] = [];
  const optimStep = backend.optimStep.bind(backend);
  backend.optimStep = async (p) => {
    const r = await optimStep(p);
    gradNorms.push(r.metrics['grad_norm']!);
    return r;
  };
  try {
    const r = await train(backend, extra);
    if (r instanceof ConfigError) return { kind: 'refused', error: r, rollouts: 0 };
    return { kind: 'trained', gradNorms, logprobs: await backend.computeLogprobs(PROBE), steps: r.steps };
  } finally {
    await backend.close();
  }
}

/**
 * One run through `tinkerBackend({ engine })` against `sim` (the simulator records the gradient norms it applied).
 * `clientEngine`: the profile the client uses (another engine's, to show what an unadapted client gets).
 */
export async function runOnSimulator(
  sim: EngineSimulator,
  extra: Partial<TrainerOptions>,
  clientEngine: EngineSimulator['engine'] = sim.engine,
): Promise<RunOutcome> {
  const before = sim.record.gradNorms.length;
  const backend = tinkerBackend({
    engine: clientEngine,
    baseUrl: sim.url,
    baseModel: 'agentrl/local',
    renderer: RENDERER,
    maxContextTokens: PARITY_MODEL.contextTokens,
    retry: { tryAgainDelayMs: 0 },
    onWarning: () => undefined,
  });
  try {
    const r = await train(backend, extra);
    if (r instanceof ConfigError) return { kind: 'refused', error: r, rollouts: 0 };
    // optim_step results are observed asynchronously by the simulator: let them land.
    for (let i = 0; i < 100 && sim.record.gradNorms.length - before < r.steps.length; i++) await new Promise((res) => setTimeout(res, 20));
    return { kind: 'trained', gradNorms: sim.record.gradNorms.slice(before), logprobs: await sim.policyLogprobs(PROBE), steps: r.steps };
  } finally {
    await backend.close();
  }
}

/** Largest relative difference of two number lists (null entries must match), for messages. */
export function maxRelDiff(a: readonly (number | null)[], b: readonly (number | null)[]): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  a.forEach((x, i) => {
    const y = b[i]!;
    if (x === null || y === null) {
      if (x !== y) worst = Infinity;
      return;
    }
    worst = Math.max(worst, Math.abs(x - y) / Math.max(1, Math.abs(y)));
  });
  return worst;
}

/** One Trainer configuration of the parity matrix. */
export interface ParityCase {
  readonly name: string;
  readonly extra: (refs: ParityRefs) => Partial<TrainerOptions>;
  /** Engines whose profile refuses this configuration (with the option named in the `ConfigError`). */
  readonly refusedOn?: Readonly<Partial<Record<EngineSimulator['engine'], string>>>;
  /**
   * Engines that may either adapt (same update) or refuse (a `ConfigError` naming this option): what the engine does
   * cannot be run as configured, and both answers keep the promise.
   */
  readonly adaptOrRefuseOn?: Readonly<Partial<Record<EngineSimulator['engine'], string>>>;
  /** Checks the in-process run exercises what the case is about (e.g. clipping happened). */
  readonly meaningful?: (steps: readonly Record<string, number>[]) => void;
}

/** In-process samplers the cases use (a teacher, a KL reference), the same object for both runs. */
export interface ParityRefs {
  readonly teacher: SamplingClient;
  readonly reference: SamplingClient;
}
