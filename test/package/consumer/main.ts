/**
 * A user's program, type-checked and run by scripts/check-package.sh in a temp project OUTSIDE the repository, against
 * the packed tarball (and zod installed by the project itself): typed tools, the code interpreter over the local
 * sandbox, one RL step on the embedded model. Prints `consumer ok` when everything held.
 */
import { z } from 'zod';
import { Trainer, codeInterpreter, defineTool, exactMatch, localBackend, mathReward, toolEnvironment, type Example } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';

const lookup = defineTool({
  name: 'lookup',
  description: 'Population of a city, in millions.',
  inputSchema: z.object({ city: z.enum(['Lima', 'Oslo']), year: z.number().int().min(1900).optional() }),
  execute: ({ city, year }) => `${city === 'Lima' ? 10 : 0.7}${year === undefined ? '' : ` (${year})`}`, // city: 'Lima' | 'Oslo'
});
const cities = toolEnvironment({ name: 'cities', tools: [lookup], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
if (cities.tools[0]?.function.parameters.required?.[0] !== 'city') throw new Error('defineTool did not render the schema');

const sandbox = localSandbox({ workers: 1, timeoutMs: 10_000 });
const ran = await sandbox.run({ code: 'import sympy\nprint(6 * 7)' });
if (ran.status !== 'ok' || ran.stdout.trim() !== '42') throw new Error(`sandbox: ${JSON.stringify(ran)}`);

const dataset: Example[] = Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) }));
const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 16, maxTrajectoryTokens: 96, maxToolResponseTokens: 16 };
for (const [env, reward] of [
  [codeInterpreter({ sandbox }), mathReward()],
  [cities, exactMatch()],
] as const) {
  const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 1 });
  const trainer = new Trainer({
    backend,
    env,
    reward,
    dataset,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    groupSize: 2,
    questionsPerBatch: 2,
    maxSteps: 1,
    budgets,
    optimizer: { learningRate: 1e-3 },
    progress: false,
  });
  const summary = await trainer.train();
  if (summary.steps !== 1) throw new Error(`${env.name}: ${summary.steps} steps`);
  console.log(`${env.name}: 1 step, reward/mean ${summary.lastMetrics['reward/mean']}`);
  await backend.close();
}
await sandbox.close();
console.log('consumer ok');
