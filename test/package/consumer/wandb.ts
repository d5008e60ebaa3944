/**
 * `agentrl/wandb` in a user's project, run by scripts/check-package.sh against the packed tarball:
 * - `missing`: before `@wandb/sdk` is installed, `wandbSink()` throws MissingPeerDependencyError naming the install;
 * - `installed`: after it, one RL step whose metrics the real SDK streams to a loopback stand-in for W&B's API
 *   (wandb-server.ts, copied beside this file). Prints `wandb missing ok` / `wandb ok`.
 */
import { MissingPeerDependencyError, Trainer, exactMatch, localBackend, toolEnvironment, type Example } from 'agentrl';
import { wandbSink } from 'agentrl/wandb';
import { wandbServer } from './wandb-server.js';

if (process.argv[2] === 'missing') {
  try {
    wandbSink();
    throw new Error('wandbSink() without @wandb/sdk did not throw');
  } catch (e) {
    if (!MissingPeerDependencyError.isInstance(e) || !e.message.includes('npm install @wandb/sdk@')) throw e;
    console.log(e.message);
    console.log('wandb missing ok');
  }
} else {
  const w = await wandbServer();
  const env = toolEnvironment({ name: 'echo', tools: [], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
  const dataset: Example[] = [{ id: 'q', question: 'Say 1', answer: '1' }];
  const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 1 });
  const budgets = { maxToolCalls: 0, maxTurns: 1, maxTurnTokens: 8, maxTrajectoryTokens: 64, maxToolResponseTokens: 8 };
  const trainer = new Trainer({
    backend,
    env,
    reward: exactMatch(),
    dataset,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    groupSize: 2,
    questionsPerBatch: 1,
    maxSteps: 1,
    budgets,
    progress: false,
    sinks: [wandbSink({ project: 'consumer', apiKey: 'k'.repeat(40), baseUrl: w.url })],
  });
  const summary = await trainer.train();
  await backend.close();
  await w.close();
  const rows = w.history();
  if (rows.length !== 1 || rows[0]!['_step'] !== 1 || rows[0]!['reward/mean'] !== summary.lastMetrics['reward/mean'])
    throw new Error(`history: ${JSON.stringify(rows)}`);
  if (!w.requests.some((r) => r.body.complete === true)) throw new Error('the run was not finished');
  console.log('wandb ok');
}
