/**
 * Parallel tool calls on the embedded CPU model: "Is tea cheaper in Peru or in Chile today?" needs two prices, and the
 * environment lets the model ask for both in ONE turn (`toolEnvironment({ parallelToolCalls: true })`): two
 * `<tool_call>` blocks, run concurrently, answered with one tool message each in call order, then the answer.
 *
 * 1. cold start (`coldStart`) on demonstrations that issue both calls in one turn (1 in 4 guess without the tool);
 * 2. RL (`Trainer`) for a few steps: the metric `rollout/calls_per_tool_turn` shows two calls per tool turn.
 *
 *   node --import tsx examples/custom-env/tea-compare.ts [--sft-steps 120] [--rl-steps 3]
 *
 * Measured so far: only a smoke run (25 cold-start steps, 1 RL step, on a heavily shared machine: 5.6 min wall) — it
 * runs end to end, but 25 steps teach no tool calls yet (loss 4.29, 0 tool turns). The full-length figures are not
 * measured; test/examples/tea-compare.test.ts checks the task, the two-call demonstrations and the reward.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Trainer, coldStart, exactMatch, localBackend, toolEnvironment, runGroup, DEFAULT_BUDGETS, type Demonstration, type Example, type Reward, type RewardResult } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';
import { COUNTRIES, price, toolCallText } from './tea-price.js';

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

/** Demonstrations: both lookups in one turn (two blocks), then the cheaper country; 1 in 4 guess at once. */
export function compareDemonstrations(examples: readonly Example[], seed: number): Demonstration[] {
  const r = mulberry32(seed);
  return examples.map((example) => {
    const a = String(example.meta?.['a']);
    const b = String(example.meta?.['b']);
    const both = `${toolCallText('price', { country: a })}\n${toolCallText('price', { country: b })}`;
    const turns = r() < 3 / 4 ? [both, example.answer] : [r() < 0.5 ? a : b];
    return { example, turns };
  });
}

/** 0.5 for a turn that looked both prices up at once, plus 0.5 for the right country. */
export const compareReward: Reward = (trajectory, example) => {
  const match = exactMatch()(trajectory, example) as RewardResult;
  const parallel = trajectory.turns.some((t) => t.action.kind === 'tool' && t.action.calls.length >= 2 && t.observation !== undefined);
  return { ...match, reward: (parallel ? 0.5 : 0) + (match.correct ? 0.5 : 0) };
};

export const COMPARE_MODEL = { layers: 2, dModel: 64, heads: 4, contextTokens: 160 } as const;
export const COMPARE_BUDGETS = { maxToolCalls: 2, maxTurns: 2, maxTurnTokens: 72, maxTrajectoryTokens: 160, maxToolResponseTokens: 8 } as const;

/** What {@link runTeaCompare} measured. */
export interface CompareRunResult {
  /** Mean reward and mean calls per tool-calling turn of sampled rollouts, after cold start. */
  readonly afterColdStart: { readonly reward: number; readonly callsPerToolTurn: number; readonly parallelTurnRate: number };
  /** Per RL step: `rollout/calls_per_tool_turn` and `reward/mean`. */
  readonly rl: readonly { readonly callsPerToolTurn: number; readonly reward: number }[];
}

/** Cold start, a probe of sampled rollouts, then a few RL steps; logs every figure it returns. */
export async function runTeaCompare(opts: { sftSteps: number; rlSteps: number; seed?: number; log?: (l: string) => void }): Promise<CompareRunResult> {
  const log = opts.log ?? console.log;
  const seed = opts.seed ?? 1;
  const backend = localBackend({ ...COMPARE_MODEL, seed });
  try {
    const train = makeCompareDataset(300, seed);
    await coldStart(backend, compareEnv, compareDemonstrations(train, seed), {
      steps: opts.sftSteps,
      batchSize: 16,
      learningRate: 5e-3,
      warmupSteps: 20,
      seed,
      maxToolResponseTokens: COMPARE_BUDGETS.maxToolResponseTokens,
      onStep: (e) => {
        if (e.step % 25 === 0) log(`cold start step ${e.step}/${opts.sftSteps} loss ${e.loss.toFixed(3)} (${e.elapsedS.toFixed(0)}s)`);
      },
    });
    // Probe: sampled rollouts (temperature 1) of held-out days, scored with the reward.
    const sampler = await backend.saveWeightsForSampler();
    const renderer = await backend.renderer();
    const probe = makeCompareDataset(16, seed + 1000);
    const trajectories = (
      await Promise.all(probe.map((ex, i) => runGroup({ sampler, renderer, env: compareEnv, budgets: { ...DEFAULT_BUDGETS, ...COMPARE_BUDGETS }, sampling: { temperature: 1, topP: 1, seed: 7 + i } }, ex, 2)))
    ).flat();
    const rewards = await Promise.all(trajectories.map(async (t) => (await compareReward(t, t.example)).reward));
    const toolTurns = trajectories.flatMap((t) => t.turns.filter((u) => u.action.kind === 'tool'));
    const callsPerToolTurn = toolTurns.length ? toolTurns.reduce((n, u) => n + (u.action.kind === 'tool' ? u.action.calls.length : 0), 0) / toolTurns.length : 0;
    const afterColdStart = {
      reward: rewards.reduce((a, b) => a + b, 0) / rewards.length,
      callsPerToolTurn,
      parallelTurnRate: toolTurns.filter((u) => u.action.kind === 'tool' && u.action.calls.length >= 2).length / Math.max(1, toolTurns.length),
    };
    log(`after cold start: reward ${afterColdStart.reward.toFixed(3)}, calls per tool turn ${callsPerToolTurn.toFixed(2)} (${toolTurns.length} tool turns)`);
    const trainer = new Trainer({
      backend,
      env: compareEnv,
      reward: compareReward,
      dataset: train,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      groupSize: 4,
      questionsPerBatch: 4,
      maxSteps: opts.rlSteps,
      budgets: COMPARE_BUDGETS,
      optimizer: { learningRate: 3e-3 },
      seed,
      progress: false,
    });
    const rl: { callsPerToolTurn: number; reward: number }[] = [];
    trainer.on('step', (e) => {
      rl.push({ callsPerToolTurn: e.metrics['rollout/calls_per_tool_turn'] ?? Number.NaN, reward: e.metrics['reward/mean'] ?? Number.NaN });
      log(`rl step ${e.step}/${opts.rlSteps} reward ${rl.at(-1)!.reward.toFixed(3)} calls per tool turn ${rl.at(-1)!.callsPerToolTurn.toFixed(2)}`);
    });
    await trainer.train();
    return { afterColdStart, rl };
  } finally {
    await backend.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { 'sft-steps': { type: 'string', default: '120' }, 'rl-steps': { type: 'string', default: '3' }, seed: { type: 'string', default: '1' } } });
  const r = await runTeaCompare({ sftSteps: Number(values['sft-steps']), rlSteps: Number(values['rl-steps']), seed: Number(values.seed) });
  console.log(JSON.stringify(r));
}
