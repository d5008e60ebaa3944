/**
 * SQL agent (SkyRL-SQL recipe, scaled down): a model explores a SQLite database with an `execute_sql` tool,
 * then answers with a final ```sql block; reward = execution match against the gold SQL (Spider rules: bags
 * of rows, order only when the gold has ORDER BY), query results masked out of the loss, GRPO + PPO.
 *
 *   node --import tsx examples/sql-agent/train.ts [--steps 20] [--questions 4] [--group 8] [--lr 1e-4] [--checkpoint DIR]
 *
 * Queries run read-only in child processes, killed at 5 s. The embedded CPU model starts from scratch
 * (or from --checkpoint), so expect rewards near 0 for a long time; this script shows the wiring, the same
 * code trains a real model on a capable backend. `node --import tsx examples/sql-agent/data/build-data.ts`
 * regenerates `data/` (database + questions).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Trainer, loadMathDataset, localBackend, sqlAgent, sqlExecutionMatch } from 'agentrl';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '20' },
    questions: { type: 'string', default: '4' },
    group: { type: 'string', default: '8' },
    lr: { type: 'string', default: '1e-4' },
    checkpoint: { type: 'string' },
    'log-dir': { type: 'string', default: here('../../runs/sql-agent') },
  },
});

const database = readFileSync(here('./data/countries.sqlite'));
// No system prompt: the schema (in the user turn) and the tool list fill most of a 2048-token byte-level context.
const env = sqlAgent({ database, maxTurns: 3, rowLimit: 10, timeoutMs: 5_000, systemPrompt: null });
const reward = sqlExecutionMatch({ database, timeoutMs: 5_000 });
const backend = localBackend(values.checkpoint ? { checkpoint: values.checkpoint } : { layers: 2, dModel: 128, heads: 4, contextTokens: 2048, seed: 1 });
const trainer = new Trainer({
  backend,
  env,
  reward,
  loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
  dataset: await loadMathDataset(here('./data/train.jsonl')),
  groupSize: Number(values.group),
  questionsPerBatch: Number(values.questions),
  maxSteps: Number(values.steps),
  budgets: { maxToolCalls: 2, maxTurns: 3, maxTrajectoryTokens: 2048, maxTurnTokens: 128, maxToolResponseTokens: 256 },
  optimizer: { learningRate: Number(values.lr), beta1: 0.9, beta2: 0.99 },
  microBatch: { maxTokens: 8 * 2048, maxDatums: 8 },
  logDir: values['log-dir'],
  progress: true,
});
trainer.on('warning', (w) => console.warn(`warning [${w.code}] ${w.message}`));
process.once('SIGINT', () => trainer.stop());
try {
  const summary = await trainer.train();
  console.log(`trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`);
} finally {
  await env.close?.();
  await reward.close();
  await backend.close();
}
