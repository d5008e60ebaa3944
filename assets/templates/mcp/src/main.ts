/**
 * Held-out eval → cold start → RL → held-out eval of an agent whose tools come from an MCP server, on the embedded
 * CPU model:
 *
 *   npm start                                   # 1000 cold-start steps, 20 RL steps
 *   npm start -- --sft-steps 60 --rl-steps 2    # a quick smoke run
 *
 * Prints the held-out table (with 95% intervals) and writes the RL run to runs/.
 */
import { parseArgs } from 'node:util';
import { localBackend, trainAndEvaluate } from 'agentrl';
import { env, reward } from './env.js';
import { HELD_OUT_DAYS, TRAIN_DAYS, demonstrations, makeDataset } from './data.js';

const { values: arg } = parseArgs({
  options: {
    'sft-steps': { type: 'string', default: '1000' },
    'rl-steps': { type: 'string', default: '20' },
    'eval-problems': { type: 'string', default: '32' },
    seed: { type: 'string', default: '1' },
  },
});
const seed = Number(arg.seed);
// Tokens of the embedded tokenizer: the prompt (with the server's tool schema), tool call ≈ 30, the server's
// reply up to the price ≈ 100 (pretty-printed JSON), answer 2. One budgets object for every stage.
const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 48, maxTrajectoryTokens: 320, maxToolResponseTokens: 112 };
const backend = localBackend({ layers: 2, dModel: 64, heads: 4, contextTokens: 320, seed });
const train = makeDataset(400, seed, TRAIN_DAYS);
const heldOut = makeDataset(Number(arg['eval-problems']), seed + 1000, HELD_OUT_DAYS); // days never trained on

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
    coldStart: {
      demonstrations: demonstrations(train, seed),
      steps: Number(arg['sft-steps']),
      batchSize: 16,
      learningRate: 5e-3,
      warmupSteps: 20,
      heldOut: demonstrations(heldOut, seed + 1, 1),
    },
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
  await env.close(); // stops every MCP server process the environment started
  await backend.close();
}
