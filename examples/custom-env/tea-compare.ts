/**
 * Parallel tool calls on the embedded CPU model: "Is tea cheaper in Peru or in Chile today?" needs two prices, and the
 * environment lets the model ask for both in ONE turn (`toolEnvironment({ parallelToolCalls: true })`): two
 * `<tool_call>` blocks, run concurrently, answered with one tool message each in call order, then the answer.
 *
 * 1. cold start (`coldStart`) on demonstrations that issue both calls in one turn (1 in 4 guess without the tool);
 * 2. RL (`Trainer`): the reward pays 0.5 for a turn that looked both prices up at once and 0.5 for the right country;
 * 3. a held-out table (days never trained on, sampled at temperature 1) before, after cold start and after RL: the
 *    share of rollouts with a two-call turn, the share whose two calls name exactly the question's two countries,
 *    calls per tool turn, accuracy and reward.
 *
 *   node --import tsx examples/custom-env/tea-compare.ts [--sft-steps 600] [--rl-steps 10] [--eval-days 32] [--seed 1]
 *
 * Measured (examples/custom-env/README.md, seed 1, 64 held-out rollouts): after 600 cold-start steps 67% of rollouts
 * make a two-call turn (48% ask for exactly the two countries asked about); accuracy stays ~20%; 10 RL steps raised
 * the training reward but not the held-out figures. About 6 CPU-minutes.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import {
  Trainer,
  coldStart,
  exactMatch,
  localBackend,
  toolEnvironment,
  runGroup,
  DEFAULT_BUDGETS,
  type Demonstration,
  type Example,
  type Reward,
  type RewardResult,
  type TrainingBackend,
  type Trajectory,
} from 'agentrl';
import { mulberry32 } from 'agentrl/internal';
import { COUNTRIES, TEA_RL, price } from './tea-price.js';

/** The environment: one `price` tool, several calls per turn allowed. */
export const compareEnv = toolEnvironment({
  name: 'tea-compare',
  tools: [price],
  parallelToolCalls: true,
  initialMessages: (ex) => [{ role: 'user', content: ex.question }],
});

/** `n` days: `Is tea cheaper in A or in B today?`; the answer is the cheaper country (prices never tie). */
export function makeCompareDataset(n: number, seed: number): Example[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const a = COUNTRIES[Math.floor(r() * COUNTRIES.length)]!;
    let b = a;
    while (b === a) b = COUNTRIES[Math.floor(r() * COUNTRIES.length)]!;
    const prices = Object.fromEntries(COUNTRIES.map((c) => [c, 10 + Math.floor(r() * 90)])) as Record<string, number>;
    if (prices[a] === prices[b]) prices[b] = (prices[a]! % 89) + 11;
    const answer = prices[a]! < prices[b]! ? a : b;
    return { id: `day-${i}`, question: `Is tea cheaper in ${a} or in ${b} today?`, answer, meta: { a, b, prices } };
  });
}

/** Demonstrations: both lookups in one turn (`calls`: the template writes two blocks), then the cheaper country; 1 in 4 guess at once. */
export function compareDemonstrations(examples: readonly Example[], seed: number): Demonstration[] {
  const r = mulberry32(seed);
  return examples.map((example) => {
    const [a, b] = [String(example.meta?.['a']), String(example.meta?.['b'])];
    const both = {
      calls: [
        { name: 'price', arguments: { country: a } },
        { name: 'price', arguments: { country: b } },
      ],
    };
    return { example, turns: r() < 3 / 4 ? [both, { answer: example.answer }] : [{ answer: r() < 0.5 ? a : b }] };
  });
}

/** True when a turn of the trajectory issued two or more calls and they ran (the environment answered). */
export const hasParallelTurn = (trajectory: Trajectory): boolean =>
  trajectory.turns.some((t) => t.action.kind === 'tool' && t.action.calls.length >= 2 && t.observation !== undefined);

/** 0.5 for a turn that looked both prices up at once, plus 0.5 for the right country. */
export const compareReward: Reward = (trajectory, example) => {
  const match = exactMatch()(trajectory, example) as RewardResult;
  return { ...match, reward: (hasParallelTurn(trajectory) ? 0.5 : 0) + (match.correct ? 0.5 : 0) };
};

/**
 * Model shape and budgets (tokens of the embedded tokenizer): prompt ≈ 48, the two-call turn ≈ 50 with its stop
 * token, the two tool responses ≈ 20, the answer 2 — a whole demonstration is 121 tokens.
 */
export const COMPARE_MODEL = { layers: 2, dModel: 64, heads: 4, contextTokens: 160 } as const;
export const COMPARE_BUDGETS = { maxToolCalls: 2, maxTurns: 2, maxTurnTokens: 72, maxTrajectoryTokens: 160, maxToolResponseTokens: 8 } as const;

/** One row of the held-out table. Every rate is a share of the sampled rollouts (0..1). */
export interface HeldOutRow {
  readonly phase: string;
  readonly rollouts: number;
  /** Rollouts with a turn that issued two or more calls that ran. */
  readonly twoCallRate: number;
  /** Rollouts whose first turn called `price` exactly twice, for the question's two countries (either order), and ran. */
  readonly rightPairRate: number;
  /** Mean calls per tool-calling turn (0 when no turn called a tool). */
  readonly callsPerToolTurn: number;
  /** Rollouts whose final reply is the cheaper country. */
  readonly accuracy: number;
  readonly reward: number;
}

/** Samples `samples` rollouts (temperature 1) of each held-out day with the backend's current weights and scores them. */
export async function heldOutRow(backend: TrainingBackend, phase: string, days: readonly Example[], samples: number): Promise<HeldOutRow> {
  const sampler = await backend.saveWeightsForSampler();
  const renderer = await backend.renderer();
  const ctx = { sampler, renderer, env: compareEnv, budgets: { ...DEFAULT_BUDGETS, ...COMPARE_BUDGETS }, sampling: { temperature: 1, topP: 1, seed: 7 } };
  const trajectories = (await Promise.all(days.map((ex, i) => runGroup(ctx, { example: ex, groupSize: samples, groupSeedIndex: i })))).flat();
  const scores = await Promise.all(trajectories.map(async (t) => (await compareReward(t, t.example)) as RewardResult));
  const toolTurns = trajectories.flatMap((t) => t.turns.filter((u) => u.action.kind === 'tool'));
  const calls = toolTurns.reduce((n, u) => n + (u.action.kind === 'tool' ? u.action.calls.length : 0), 0);
  const rightPair = (t: Trajectory): boolean => {
    const first = t.turns[0]?.action;
    if (first?.kind !== 'tool' || first.calls.length !== 2 || t.turns[0]!.observation === undefined) return false;
    const asked = first.calls.map((c) => (c.function.name === 'price' ? String(c.function.arguments['country']) : '')).sort();
    return asked.join('|') === [String(t.example.meta?.['a']), String(t.example.meta?.['b'])].sort().join('|');
  };
  const share = (k: number) => (trajectories.length ? k / trajectories.length : 0);
  return {
    phase,
    rollouts: trajectories.length,
    twoCallRate: share(trajectories.filter(hasParallelTurn).length),
    rightPairRate: share(trajectories.filter(rightPair).length),
    callsPerToolTurn: toolTurns.length ? calls / toolTurns.length : 0,
    accuracy: share(scores.filter((s) => s.correct).length),
    reward: share(scores.reduce((a, s) => a + s.reward, 0)),
  };
}

/** The held-out table as Markdown. */
export function formatHeldOut(rows: readonly HeldOutRow[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  return [
    '| phase | rollouts | two-call turn | both countries asked | calls per tool turn | accuracy | reward |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.phase} | ${r.rollouts} | ${pct(r.twoCallRate)} | ${pct(r.rightPairRate)} | ${r.callsPerToolTurn.toFixed(2)} | ${pct(r.accuracy)} | ${r.reward.toFixed(3)} |`,
    ),
  ].join('\n');
}

/** Options of {@link runTeaCompare}. */
export interface CompareRunOptions {
  readonly sftSteps: number;
  readonly rlSteps: number;
  /** Held-out days per table row. @default 32 */
  readonly evalDays?: number;
  /** Sampled rollouts per held-out day. @default 2 */
  readonly evalSamples?: number;
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

/** What {@link runTeaCompare} measured. */
export interface CompareRunResult {
  /** Held-out rows: fresh weights, after cold start, after RL. */
  readonly heldOut: readonly HeldOutRow[];
  /** Per RL step: `rollout/calls_per_tool_turn` and `reward/mean` of the training rollouts. */
  readonly rl: readonly { readonly callsPerToolTurn: number; readonly reward: number }[];
  readonly coldStartLoss: number;
}

/** Held-out row, cold start, held-out row, RL, held-out row; logs every figure it returns. */
export async function runTeaCompare(opts: CompareRunOptions): Promise<CompareRunResult> {
  const log = opts.log ?? console.log;
  const seed = opts.seed ?? 1;
  const backend = localBackend({ ...COMPARE_MODEL, seed });
  const days = makeCompareDataset(opts.evalDays ?? 32, seed + 1000);
  const samples = opts.evalSamples ?? 2;
  const heldOut: HeldOutRow[] = [];
  const row = async (phase: string) => {
    heldOut.push(await heldOutRow(backend, phase, days, samples));
    log(formatHeldOut(heldOut.slice(-1)).split('\n')[2]!);
  };
  try {
    const train = makeCompareDataset(600, seed);
    await row('fresh weights');
    let coldStartLoss = Number.NaN;
    await coldStart(backend, compareEnv, compareDemonstrations(train, seed), {
      steps: opts.sftSteps,
      batchSize: 16,
      learningRate: 5e-3,
      warmupSteps: 20,
      seed,
      maxToolResponseTokens: COMPARE_BUDGETS.maxToolResponseTokens,
      maxTurnTokens: COMPARE_BUDGETS.maxTurnTokens,
      onStep: (e) => {
        coldStartLoss = e.loss;
        if (e.step % 50 === 0) log(`cold start step ${e.step}/${opts.sftSteps} loss ${e.loss.toFixed(3)} (${e.elapsedS.toFixed(0)}s)`);
      },
    });
    await row(`after cold start (${opts.sftSteps} steps)`);
    const trainer = new Trainer({
      backend,
      env: compareEnv,
      reward: compareReward,
      dataset: train,
      ...TEA_RL,
      maxSteps: opts.rlSteps,
      budgets: COMPARE_BUDGETS,
      seed,
    });
    const rl: { callsPerToolTurn: number; reward: number }[] = [];
    trainer.on('warning', (w) => log(`warning [${w.code}]: ${w.message}`));
    trainer.on('step', (e) => {
      rl.push({ callsPerToolTurn: e.metrics['rollout/calls_per_tool_turn'] ?? Number.NaN, reward: e.metrics['reward/mean'] ?? Number.NaN });
      log(`rl step ${e.step}/${opts.rlSteps} reward ${rl.at(-1)!.reward.toFixed(3)} calls per tool turn ${rl.at(-1)!.callsPerToolTurn.toFixed(2)}`);
    });
    if (opts.rlSteps > 0) {
      await trainer.train();
      await row(`after RL (${opts.rlSteps} steps)`);
    }
    return { heldOut, rl, coldStartLoss };
  } finally {
    await backend.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const usage = 'Usage: node --import tsx examples/custom-env/tea-compare.ts [--sft-steps 600] [--rl-steps 10] [--eval-days 32] [--eval-samples 2] [--seed 1]';
  const names = ['sft-steps', 'rl-steps', 'eval-days', 'eval-samples', 'seed'] as const;
  const defaults: Record<(typeof names)[number], string> = { 'sft-steps': '600', 'rl-steps': '10', 'eval-days': '32', 'eval-samples': '2', seed: '1' };
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: Object.fromEntries(names.map((k) => [k, { type: 'string', default: defaults[k] }])) as Record<string, { type: 'string'; default: string }>,
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    process.exit(2); // usage error
  }
  for (const k of names) {
    if (!/^\d+$/.test(values[k] ?? '') || ((k === 'eval-days' || k === 'eval-samples') && Number(values[k]) === 0)) {
      console.error(`--${k} expects a whole number${k.startsWith('eval') ? ' ≥ 1' : ''}, got '${values[k]}'\n${usage}`);
      process.exit(2);
    }
  }
  const t0 = performance.now();
  const r = await runTeaCompare({
    sftSteps: Number(values['sft-steps']),
    rlSteps: Number(values['rl-steps']),
    evalDays: Number(values['eval-days']),
    evalSamples: Number(values['eval-samples']),
    seed: Number(values.seed),
  });
  console.log(
    `\n${formatHeldOut(r.heldOut)}\n\nheld-out days ${values['eval-days']} × ${values['eval-samples']} samples (temperature 1), ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
