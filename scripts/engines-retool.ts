/**
 * A ReTool-shaped run through every engine simulator: the shipped cold-start checkpoint, the code interpreter (local
 * sandbox), GSPO, a KL penalty to the base weights, rollout correction and a cosine learning-rate schedule, a few RL
 * steps, then the held-out table (tool mode). Each engine either gives the same table and the same updates as the
 * embedded engine in process, or stops before its first rollout with the ConfigError its profile promises.
 *
 *   node --import tsx scripts/engines-retool.ts [--steps 3] [--problems 8] [--n 2] [--engines skyrl-jax,tuft]
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ConfigError, Trainer, evalTable, evaluate, loadMathDataset, localBackend, mathReward, tinkerBackend, type EvalResult, type TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from '../examples/retool/config.js';
import { toolEnv } from '../examples/retool/env.js';
import { SIMULATED_ENGINES, startEngine, type SimEngine } from '../test/engines/simulators/index.js';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '3' }, problems: { type: 'string', default: '8' }, n: { type: 'string', default: '2' }, engines: { type: 'string' } } });
const STEPS = Number(values.steps);
const engines = (values.engines?.split(',') ?? [...SIMULATED_ENGINES]) as SimEngine[];
const RENDERER = fileURLToPath(new URL('../assets/local-model', import.meta.url));

const TABLE_KEYS = ['eval/average_at_n', 'eval/pass_at_n', 'eval/format_rate', 'eval/valid_tool_call_rate', 'eval/tool_calls', 'eval/turns'];

type Outcome = { kind: 'trained'; gradNorms: number[]; table: EvalResult } | { kind: 'refused'; message: string };

/** Trains and evaluates `backend`; `gradNormsOf` reads the gradient norm of every optimizer step afterwards. */
async function run(backend: TrainingBackend, gradNormsOf: () => number[]): Promise<Outcome> {
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
      kl: { coef: 0.02, estimator: 'k3' },
      rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 },
      optimizer: { learningRate: 3e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1, schedule: { kind: 'cosine', warmupSteps: 1 } },
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
    const table = await evaluate({ sampler: await backend.saveWeightsForSampler(), renderer: await backend.renderer(), env, reward, examples, n: Number(values.n), budgets: BUDGETS, sampling: { ...SAMPLING, seed: 1 } });
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

const t0 = Date.now();
const inProcess = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
const localNorms: number[] = [];
const optimStep = inProcess.optimStep.bind(inProcess);
inProcess.optimStep = async (p) => {
  const r = await optimStep(p);
  localNorms.push(r.metrics['grad_norm']!);
  return r;
};
const local = await run(inProcess, () => localNorms);
if (local.kind !== 'trained') throw new Error(`the embedded engine refused: ${local.message}`);
console.log(`in process (${((Date.now() - t0) / 1000).toFixed(0)} s): grad norms ${local.gradNorms.map((x) => x.toFixed(6)).join(', ')}`);
const rows: [string, EvalResult][] = [['in process', local.table]];
let failed = false;
for (const engine of engines) {
  const t1 = Date.now();
  const sim = await startEngine(engine, { model: { seed: 0 }, checkpoint: PATHS.sftCheckpoint, keepSamplingSeed: true });
  try {
    const before = sim.record.gradNorms.length;
    const r = await run(
      tinkerBackend({ engine, baseUrl: sim.url, baseModel: 'agentrl/local', renderer: RENDERER, maxContextTokens: MODEL.contextTokens, retry: { tryAgainDelayMs: 0 }, onWarning: () => undefined }),
      () => sim.record.gradNorms.slice(before),
    );
    const s = ((Date.now() - t1) / 1000).toFixed(0);
    if (r.kind === 'refused') {
      console.log(`${engine} (${s} s): stopped before its first rollout — ${r.message.replace(/\n/g, '\n    ')}`);
      continue;
    }
    rows.push([engine, r.table]);
    const worst = Math.max(...r.gradNorms.map((g, i) => Math.abs(g - local.gradNorms[i]!) / Math.max(1, local.gradNorms[i]!)));
    const same = r.gradNorms.length === local.gradNorms.length && worst <= 1e-5 && TABLE_KEYS.every((k) => r.table.metrics[k] === local.table.metrics[k]);
    failed ||= !same;
    console.log(`${engine} (${s} s): grad norms ${r.gradNorms.map((x) => x.toFixed(6)).join(', ')} (max rel. diff ${worst.toExponential(1)}) — ${same ? 'same update and held-out table' : 'DIFFERENT'}`);
  } finally {
    await sim.close();
  }
}
const table = evalTable(22, 'tools');
console.log(table.header(Number(values.n)));
for (const [label, r] of rows) console.log(table.row(label, r));
process.exitCode = failed ? 1 : 0;
