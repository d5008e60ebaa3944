/**
 * A ReTool-shaped run through every engine simulator: the shipped cold-start checkpoint, the code interpreter (local
 * sandbox), GSPO, a KL penalty to the base weights, rollout correction and a cosine learning-rate schedule, a few RL
 * steps, then the held-out table (tool mode). Each engine either gives the same table and the same updates as the
 * embedded engine in process, or stops before its first rollout with the ConfigError its profile promises.
 *
 * `--workaround`: what the refusals suggest instead — the KL reference is a sampler of the same cold-start weights in
 * this process (not the engine's own step-0 sampler) and the Adam settings are ones the engine applies (SkyRL-JAX never
 * clips: gradClipNorm 0; SkyRL-Train fixes betas 0.9/0.999, eps 1e-8, weight decay 0.01, clip 1) — each compared with
 * an in-process run of the same settings.
 *
 *   node --import tsx scripts/engines-retool.ts [--steps 3] [--problems 8] [--n 2] [--engines skyrl-jax,tuft] [--workaround]
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  Trainer,
  evalTable,
  evaluate,
  loadMathDataset,
  localBackend,
  mathReward,
  tinkerBackend,
  type EvalResult,
  type SamplingClient,
  type TrainerOptions,
  type TrainingBackend,
} from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from '../examples/retool/config.js';
import { toolEnv } from '../examples/retool/env.js';
import { SIMULATED_ENGINES, startEngine, type SimEngine } from '../test/engines/simulators/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '3' },
    problems: { type: 'string', default: '8' },
    n: { type: 'string', default: '2' },
    engines: { type: 'string' },
    workaround: { type: 'boolean', default: false },
  },
});
const STEPS = Number(values.steps);
const engines = (values.engines?.split(',') ?? [...SIMULATED_ENGINES]) as SimEngine[];
const RENDERER = fileURLToPath(new URL('../assets/local-model', import.meta.url));

const TABLE_KEYS = ['eval/average_at_n', 'eval/pass_at_n', 'eval/format_rate', 'eval/valid_tool_call_rate', 'eval/tool_calls', 'eval/turns'];

type Outcome = { kind: 'trained'; gradNorms: number[]; table: EvalResult } | { kind: 'refused'; message: string };

const SCHEDULE = { kind: 'cosine', warmupSteps: 1 } as const;
/** Adam settings: one for every engine, or (`--workaround`) ones the engine applies. */
function optimizerFor(engine: SimEngine | 'in process'): NonNullable<TrainerOptions['optimizer']> {
  if (values.workaround && engine === 'skyrl-jax')
    return { learningRate: 3e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 0, schedule: SCHEDULE };
  return { learningRate: 3e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1, schedule: SCHEDULE };
}
/** `--workaround`: the KL reference, a frozen sampler of the cold-start weights in this process. */
const reference: SamplingClient | undefined = values.workaround
  ? await localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint }).saveWeightsForSampler()
  : undefined;

/** Trains and evaluates `backend`; `gradNormsOf` reads the gradient norm of every optimizer step afterwards. */
async function run(backend: TrainingBackend, gradNormsOf: () => number[], optimizer: NonNullable<TrainerOptions['optimizer']>): Promise<Outcome> {
  const dataset = await loadMathDataset(PATHS.train, { limit: 64 });
  const reward = mathReward();
  const env = toolEnv(2);
  let rollouts = 0;
  try {
    const trainer = new Trainer({
      backend,
      env,
      reward,
      loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1, aggregation: 'sequence-mean' },
      kl: { coef: 0.02, estimator: 'k3', ...(reference ? { reference } : {}) },
      rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 },
      optimizer,
      dataset,
      groupSize: 4,
      questionsPerBatch: 2,
      maxSteps: STEPS,
      budgets: BUDGETS,
      sampling: SAMPLING,
      seed: 7,
      progress: false,
    });
    trainer.on('rollout:start', () => (rollouts += 1));
    await trainer.train();
    const examples = await loadMathDataset(PATHS.dev, { limit: Number(values.problems) });
    const table = await evaluate({
      sampler: await backend.saveWeightsForSampler(),
      renderer: await backend.renderer(),
      env,
      reward,
      examples,
      n: Number(values.n),
      budgets: BUDGETS,
      sampling: { ...SAMPLING, seed: 1 },
    });
    await new Promise((r) => setTimeout(r, 200));
    return { kind: 'trained', gradNorms: gradNormsOf(), table };
  } catch (e) {
    if (e instanceof ConfigError && rollouts === 0) return { kind: 'refused', message: e.message };
    throw e;
  } finally {
    await env.close?.();
    await reward.close();
    await backend.close();
  }
}

/** The in-process run with `optimizer` (one per distinct setting). */
const inProcessRuns = new Map<string, Promise<Extract<Outcome, { kind: 'trained' }>>>();
function inProcessRun(optimizer: NonNullable<TrainerOptions['optimizer']>): Promise<Extract<Outcome, { kind: 'trained' }>> {
  const key = JSON.stringify(optimizer);
  const cached = inProcessRuns.get(key);
  if (cached) return cached;
  const p = (async () => {
    const t0 = Date.now();
    const backend = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
    const norms: number[] = [];
    const optimStep = backend.optimStep.bind(backend);
    backend.optimStep = async (x) => {
      const r = await optimStep(x);
      norms.push(r.metrics['grad_norm']!);
      return r;
    };
    const r = await run(backend, () => norms, optimizer);
    if (r.kind !== 'trained') throw new Error(`the embedded engine refused: ${r.message}`);
    console.log(
      `in process, gradClipNorm ${optimizer.gradClipNorm} (${((Date.now() - t0) / 1000).toFixed(0)} s): grad norms ${r.gradNorms.map((x) => x.toFixed(6)).join(', ')}`,
    );
    rows.push([`in process (clip ${optimizer.gradClipNorm})`, r.table]);
    return r;
  })();
  inProcessRuns.set(key, p);
  return p;
}

const rows: [string, EvalResult][] = [];
let failed = false;
await inProcessRun(optimizerFor('in process'));
for (const engine of engines) {
  const t1 = Date.now();
  const sim = await startEngine(engine, { model: { seed: 0 }, checkpoint: PATHS.sftCheckpoint, keepSamplingSeed: true });
  try {
    const before = sim.record.gradNorms.length;
    const optimizer = optimizerFor(engine);
    const r = await run(
      tinkerBackend({
        engine,
        baseUrl: sim.url,
        baseModel: 'agentrl/local',
        renderer: RENDERER,
        maxContextTokens: MODEL.contextTokens,
        retry: { tryAgainDelayMs: 0 },
        onWarning: () => undefined,
      }),
      () => sim.record.gradNorms.slice(before),
      optimizer,
    );
    const s = ((Date.now() - t1) / 1000).toFixed(0);
    if (r.kind === 'refused') {
      console.log(`${engine} (${s} s): stopped before its first rollout — ${r.message.replace(/\n/g, '\n    ')}`);
      continue;
    }
    const local = await inProcessRun(optimizer);
    rows.push([engine, r.table]);
    const worst = Math.max(...r.gradNorms.map((g, i) => Math.abs(g - local.gradNorms[i]!) / Math.max(1, local.gradNorms[i]!)));
    const same = r.gradNorms.length === local.gradNorms.length && worst <= 1e-5 && TABLE_KEYS.every((k) => r.table.metrics[k] === local.table.metrics[k]);
    failed ||= !same;
    console.log(
      `${engine} (${s} s): grad norms ${r.gradNorms.map((x) => x.toFixed(6)).join(', ')} (max rel. diff ${worst.toExponential(1)}) — ${same ? 'same update and held-out table' : 'DIFFERENT'}`,
    );
  } finally {
    await sim.close();
  }
}
const table = evalTable(26, 'tools');
console.log(table.header(Number(values.n)));
for (const [label, r] of rows) console.log(table.row(label, r));
process.exitCode = failed ? 1 : 0;
