/**
 * mcp-agent: RL on a real MCP server's tools. The official memory server is started once (`connection: 'shared'`);
 * the `reset` hook stores the facts before the first trajectory (it may call tools the model is not offered), and
 * the policy gets the server's `open_nodes` tool. Reward = exact match of `<answer>…</answer>`. Prints reward per step
 * and held-out (disjoint people) Average@4 / Pass@4 / tool use before and after.
 *
 *   node --import tsx examples/mcp-agent/main.ts [--steps 10] [--group 4] [--questions 4] [--checkpoint DIR]
 */
import { parseArgs } from 'node:util';
import { Trainer, evaluate, exactMatch, localBackend, mcpEnvironment, type TrainingBackend } from 'agentrl';
import { SYSTEM_PROMPT, entities, memoryServer, questions } from './task.js';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '10' }, group: { type: 'string', default: '4' }, questions: { type: 'string', default: '4' }, checkpoint: { type: 'string' } } });
const budgets = { maxTurns: 3, maxToolCalls: 2, maxTurnTokens: 48, maxToolResponseTokens: 64 };

let stored: Promise<unknown> | undefined;
const env = await mcpEnvironment({
  server: memoryServer(),
  connection: 'shared',
  tools: ['open_nodes'],
  reset: async (server) => void (await (stored ??= server.callTool('create_entities', { entities: entities() }))),
  initialMessages: (ex) => [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: ex.question }],
});
const backend: TrainingBackend = values.checkpoint ? localBackend({ checkpoint: values.checkpoint }) : localBackend();
const reward = exactMatch();
const heldOut = async () => {
  const r = await evaluate({ sampler: await backend.saveWeightsForSampler(), renderer: await backend.renderer(), env, reward, examples: questions('test'), n: 4, budgets });
  return { average: r.metrics['eval/average_at_n'], pass: r.metrics['eval/pass_at_n'], toolCalls: r.metrics['eval/tool_calls'], validCalls: r.metrics['eval/valid_tool_call_rate'] };
};
try {
  const before = await heldOut();
  const trainer = new Trainer({
    backend,
    env,
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: questions('train'),
    groupSize: Number(values.group),
    questionsPerBatch: Number(values.questions),
    maxSteps: Number(values.steps),
    budgets,
    progress: false,
  });
  trainer.on('step', (e) => console.log(`step ${e.step}  reward/mean ${e.metrics['reward/mean']!.toFixed(3)}  tool calls ${e.metrics['rollout/tool_calls']!.toFixed(2)}  valid calls ${e.metrics['rollout/valid_tool_call_rate']!.toFixed(2)}`));
  await trainer.train();
  const after = await heldOut();
  console.log('held-out (people never trained on):');
  console.log('| | Average@4 | Pass@4 | tool calls | valid calls |\n| --- | --- | --- | --- | --- |');
  for (const [name, m] of [['before', before], ['after', after]] as const) console.log(`| ${name} | ${m.average} | ${m.pass} | ${m.toolCalls} | ${m.validCalls} |`);
} finally {
  await env.close();
  await backend.close?.();
}
