/**
 * Held-out eval → cold start → RL → held-out eval, on the embedded CPU model (no GPU, no download):
 *
 *   npm start                                   # 1000 cold-start steps, 20 RL steps
 *   npm start -- --sft-steps 60 --rl-steps 2    # a quick smoke run
 *
 * Prints the held-out table (with 95% intervals) and writes the RL run to runs/.
 */
import { parseArgs } from 'node:util';
import { localBackend, trainAndEvaluate } from 'agentrl';
import { env, reward } from './env.js';
import { demonstrations, makeDataset } from './data.js';

const { values: arg } = parseArgs({
  options: {
    'sft-steps': { type: 'string', default: '1000' },
    'rl-steps': { type: 'string', default: '20' },
    'eval-problems': { type: 'string', default: '32' },
    seed: { type: 'string', default: '1' },
  },
});
const seed = Number(arg.seed);
// Tokens of the embedded tokenizer: prompt ≈ 40, tool call ≈ 30, tool reply ≈ 15. One budgets object for every stage.
const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 48, maxTrajectoryTokens: 128, maxToolResponseTokens: 8 };
const backend = localBackend({ layers: 2, dModel: 64, heads: 4, contextTokens: 128, seed });
const train = makeDataset(400, seed);
const heldOut = makeDataset(Number(arg['eval-problems']), seed + 1000); // other days, never trained on

try {
  await trainAndEvaluate({
    backend,
    env,
    reward,
    train,
    heldOut,
    budgets,
    seed,
    eval: { samples: 2 },
    // the copy of the argument forms late (measured between steps 500 and 700); heldOut checks the calls it writes
    coldStart: {
      demonstrations: demonstrations(train, seed),
      steps: Number(arg['sft-steps']),
      batchSize: 16,
      learningRate: 5e-3,
      warmupSteps: 20,
      heldOut: demonstrations(heldOut, seed + 1, 1),
    },
    // 3e-3 raised tool calls faster but made them copy worse (held-out 32.8% → 20.3%)
    rl: {
      maxSteps: Number(arg['rl-steps']),
      groupSize: 8,
      questionsPerBatch: 4,
      optimizer: { learningRate: 1e-3 },
      logDir: `runs/${new Date().toISOString().replace(/[:.]/g, '-')}`,
      progress: true,
    },
  });
} finally {
  await backend.close();
}
