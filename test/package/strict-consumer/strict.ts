// A user's project with TypeScript's defaults for libraries (`skipLibCheck: false`) and `strict`: agentrl's
// declarations must type-check without its optional peers installed (@ai-sdk/provider, @modelcontextprotocol/sdk,
// @opentelemetry/api, @wandb/sdk, the native adapters). Compiled by scripts/check-package.sh; not run.
import { z } from 'zod';
import {
  defineTool,
  exactMatch,
  localBackend,
  policyLanguageModel,
  toolEnvironment,
  trainAndEvaluate,
  type Demonstration,
  type Example,
  type Reward,
  type ToolContext,
} from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';

type OrderExample = Example<{ orders: Record<string, string> }>;
const getOrder = defineTool({
  name: 'get_order',
  description: 'Status of an order.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }, ctx: ToolContext<OrderExample>) => ctx.example.meta.orders[id] ?? 'unknown order',
});
const env = toolEnvironment<OrderExample>({ name: 'support', tools: [getOrder], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
const reward: Reward<OrderExample> = (t, ex) => exactMatch()(t, ex);
const examples: OrderExample[] = [{ id: 'c1', question: 'Where is order A1?', answer: 'shipped', meta: { orders: { A1: 'shipped' } } }];
const demos: Demonstration<OrderExample>[] = examples.map((example) => ({
  example,
  turns: [{ call: { name: 'get_order', arguments: { id: 'A1' } } }, { answer: example.answer }],
}));
export const run = () =>
  trainAndEvaluate({
    backend: localBackend({ contextTokens: 128 }),
    env,
    reward,
    train: examples,
    heldOut: examples,
    budgets: { maxTurnTokens: 48 },
    coldStart: { demonstrations: demos, steps: 1, batchSize: 1, learningRate: 1e-3 },
    rl: { maxSteps: 1 },
  });
export const model = policyLanguageModel({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'x' });
export const sandbox = localSandbox;
