/**
 * The task and its environment, over a real MCP server: the official memory server (a knowledge graph) from npm.
 * Replace them with yours: any MCP server (stdio `{ command, args, env }` or Streamable HTTP `{ url }`), the tools
 * the model is offered, a `reset` hook that seeds the server for one trajectory, and the reward.
 *
 * Task: "What did tea cost in Peru on day 17?" The server's knowledge graph holds one entity per country and day
 * (`Peru 17`, observation `tea 42`), so only `open_nodes` knows the answer: the model has to call it with the right
 * entity name and copy the price out of the server's JSON reply. Held-out questions ask about days never trained on.
 */
import { fileURLToPath } from 'node:url';
import { exactMatch, mcpEnvironment, type Reward } from 'agentrl';
import { COUNTRIES, HELD_OUT_DAYS, TRAIN_DAYS, entityName, priceOn, type TeaExample } from './data.js';
/** Every price of the task, as the memory server's entities (stored once, by the first `reset`). */
const entities = () => {
  const out: { name: string; entityType: string; observations: string[] }[] = [];
  for (let day = HELD_OUT_DAYS.first; day <= TRAIN_DAYS.last; day++) {
    for (const c of COUNTRIES) out.push({ name: entityName(c, day), entityType: 'price', observations: [`tea ${priceOn(c, day)}`] });
  }
  return out;
};

/**
 * The environment: one server process serves every trajectory (`connection: 'shared'`; the graph is read-only once
 * stored); the model is offered only `open_nodes`, while `reset` may call any of the server's tools. Use
 * `connection: 'per-trajectory'` (a fresh process per trajectory) for a server whose state trajectories must not
 * share. `env.close()` stops the server.
 */
let stored: Promise<unknown> | undefined;
export const env = await mcpEnvironment<TeaExample>({
  name: 'tea-price-mcp',
  server: { command: process.execPath, args: [fileURLToPath(new URL('./memory-server.mjs', import.meta.url))] },
  connection: 'shared',
  tools: ['open_nodes'],
  reset: async (server) => void (await (stored ??= server.callTool('create_entities', { entities: entities() }))),
  initialMessages: (example) => [{ role: 'user', content: example.question }],
});

/**
 * The reward: 0.5 for looking the price up (a tool call that ran) plus 0.5 for the exact price. The tool-use half
 * gives RL a signal while the model still learns to copy the result; `correct` (what the eval table counts) is the
 * exact match alone.
 */
export const reward: Reward<TeaExample> = (trajectory, example) => {
  const match = exactMatch()(trajectory, example);
  return { ...match, reward: (trajectory.toolCalls > 0 ? 0.5 : 0) + (match.correct ? 0.5 : 0) };
};
