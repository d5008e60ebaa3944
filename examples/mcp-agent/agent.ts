/**
 * The same task through agentEnvironment: the agent is an ordinary `openai`-client tool loop that runs the
 * filesystem server's `read_text_file` itself through the MCP SDK client — agentrl only serves it the policy and
 * records what it sampled. `--checkpoint DIR` starts from a saved state (e.g. `main.ts --save DIR`'s cold start).
 *
 *   node --import tsx examples/mcp-agent/agent.ts [--steps 3] [--group 4] [--questions 4] [--checkpoint DIR]
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Trainer, agentEnvironment, exactMatch, localBackend, type AgentRunArgs } from 'agentrl';
import { BUDGETS, MODEL, SYSTEM_PROMPT, TOOL, questions, recordsServer } from './task.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '3' },
    group: { type: 'string', default: '4' },
    questions: { type: 'string', default: '4' },
    checkpoint: { type: 'string' },
  },
});

// The agent's own MCP connection (one for the run) to the filesystem server on the records folder.
const { dir, ...server } = recordsServer();
const mcp = new Client({ name: 'mcp-agent', version: '1.0.0' });
await mcp.connect(new StdioClientTransport({ command: server.command, args: [...(server.args ?? [])], stderr: 'ignore' }));
const tools = (await mcp.listTools()).tools
  .filter((t) => t.name === TOOL)
  .map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema as Record<string, unknown> },
  }));

/** An existing agent: chat completions with tools, tool calls executed on the MCP server, until it answers. */
async function agent({ baseURL, apiKey, model, example, signal }: AgentRunArgs): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: example.question },
  ];
  for (let step = 0; step < 2; step++) {
    const reply = (await client.chat.completions.create({ model, messages, tools, max_tokens: BUDGETS.maxTurnTokens }, { signal })).choices[0]!.message;
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? '';
    for (const c of reply.tool_calls) {
      if (c.type !== 'function') continue;
      let content: string;
      try {
        const r = await mcp.callTool({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown> }, undefined, { signal });
        content = (r.content as { type: string; text?: string }[]).map((p) => p.text ?? '').join('\n');
      } catch (e) {
        content = `Error: ${e instanceof Error ? e.message : String(e)}`;
      }
      messages.push({ role: 'tool', tool_call_id: c.id, content });
    }
  }
  return '';
}

const env = agentEnvironment({ run: agent, timeoutMs: 60_000 });
const backend = values.checkpoint ? localBackend({ checkpoint: values.checkpoint }) : localBackend(MODEL);
try {
  const trainer = new Trainer({
    backend,
    env,
    reward: exactMatch(),
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: questions('train'),
    groupSize: Number(values.group),
    questionsPerBatch: Number(values.questions),
    maxSteps: Number(values.steps),
    budgets: BUDGETS,
    onPrefixMismatch: 'split',
    progress: false,
  });
  trainer.on('warning', (w) => console.warn(`warning ${w.code}: ${w.message}`));
  trainer.on('step', (e) =>
    console.log(
      `step ${e.step}  reward/mean ${e.metrics['reward/mean']!.toFixed(3)}  turns ${e.metrics['rollout/turns']!.toFixed(2)}  errors ${e.metrics['rollout/error_rate']!.toFixed(2)}`,
    ),
  );
  await trainer.train();
} finally {
  await env.close();
  await mcp.close();
  await backend.close?.();
  rmSync(dir, { recursive: true, force: true });
}
