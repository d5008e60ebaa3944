/**
 * python-agent's pieces: the agent program, its system prompt and tool as `agent.py` sends them (asked from the
 * program itself, so the cold start renders exactly the agent's prompts), and the environment that renders the demonstrations.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Demonstration, DemonstrationCall, Environment, Example, ToolDefinition } from 'agentrl';
import { demonstrations } from '../mcp-agent/task.js';

/** Path of the agent program. */
export const AGENT = fileURLToPath(new URL('./agent.py', import.meta.url));

/** The shipped cold-start checkpoint the default run starts from (written by `main.ts --cold-start --save DIR`). */
export const COLD_START_CHECKPOINT = fileURLToPath(new URL('./checkpoints/cold-start', import.meta.url));

/** The Python interpreter that runs the agent. */
export const PYTHON = process.env.PYTHON ?? 'python3';

const described = JSON.parse(execFileSync(PYTHON, [AGENT, '--describe'], { encoding: 'utf8' })) as { system_prompt: string; tools: ToolDefinition[] };

/** `agent.py`'s `SYSTEM_PROMPT` (from `agent.py --describe`). */
export const SYSTEM_PROMPT = described.system_prompt;

/** `agent.py`'s one tool, exactly as its requests send it (from `agent.py --describe`). */
export const TOOL: ToolDefinition = described.tools[0]!;

/**
 * The agent's prompt and tool as an environment, only to render cold-start demonstrations: `read_text_file` reads
 * `dir` like `agent.py` does.
 */
export function demonstrationEnv(dir: string): Environment {
  return {
    name: 'records',
    tools: [TOOL],
    initialMessages: (ex: Example) => [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: ex.question },
    ],
    step: async (action) => {
      if (action.kind !== 'tool') return { done: true, reason: action.kind };
      const path = String(action.call.function.arguments['path'] ?? '');
      let content: string;
      try {
        content = readFileSync(join(dir, path), 'utf8');
      } catch {
        content = `Error: no such record: ${path}`;
      }
      return { done: false, observation: [{ role: 'tool', name: 'read_text_file', content }] };
    },
  };
}

/** A call as the chat template wrote it before it wrote arguments compactly: `{"name": "…", "arguments": {"path": "…"}}`. */
const spacedCallText = (c: DemonstrationCall): string =>
  `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": {${Object.entries(c.arguments ?? {})
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}}\n</tool_call>`;

/**
 * The cold-start demonstrations the shipped `checkpoints/cold-start` was trained on: mcp-agent's, with the call as
 * raw text in the spaced form the template wrote before it wrote arguments compactly (the shipped checkpoint puts
 * ≈ 0 probability on the compact call). Use mcp-agent's structured `demonstrations` instead once the checkpoint is
 * regenerated (`main.ts --cold-start --save`) and this README's table re-measured.
 */
export function coldStartDemonstrations(...args: Parameters<typeof demonstrations>): Demonstration[] {
  return demonstrations(...args).map((d) => ({
    ...d,
    turns: d.turns.map((t) =>
      typeof t === 'object' && 'call' in t ? { text: spacedCallText(t.call), ...(t.observation ? { observation: t.observation } : {}) } : t,
    ),
  }));
}
