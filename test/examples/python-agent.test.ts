import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { DEFAULT_BUDGETS, agentEnvironment, runGroup, type AgentEnvironment } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { BUDGETS, demonstrations, lookupCall, questions, recordsServer } from '../../examples/mcp-agent/task.js';
import { AGENT, PYTHON, SYSTEM_PROMPT, TOOL, demonstrationEnv } from '../../examples/python-agent/task.js';
import { renderDemonstration } from '../../src/rollout/demonstration.js';
import { localRenderer } from '../helpers/local-renderer.js';

const { dir } = recordsServer();
const envs: AgentEnvironment[] = [];
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** Hazard: a cold start on prompts the agent never sends (another system prompt or tool schema), so nothing transfers to the agent's own rollouts. */
describe('python-agent example', () => {
  it("agent.py reads its record and answers; its recorded tokens are exactly the cold start's demonstration", async () => {
    expect(SYSTEM_PROMPT).toBe('Read the record, then answer.');
    expect(TOOL.function.name).toBe('read_text_file');
    const renderer = await localRenderer();
    const [example] = questions('test');
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt }) => {
        const seen = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/.exec(prompt)?.[1];
        return seen === undefined ? lookupCall(example!) : `<answer>${seen}</answer>`;
      },
    });
    const env = agentEnvironment({ command: [PYTHON, AGENT], env: { RECORDS_DIR: dir, MAX_TURN_TOKENS: String(BUDGETS.maxTurnTokens) } });
    envs.push(env);
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, ...BUDGETS, maxTrajectoryTokens: 4096 } }, { example: example!, groupSize: 1 });
    expect(t!.error?.message).toBeUndefined();
    expect(t!.finalText).toBe(`<answer>${example!.answer}</answer>`);
    expect(t!.turns).toHaveLength(2);
    // the same episode as a cold-start demonstration renders to the same tokens the agent's requests produced
    const demo = demonstrations([example!], { passes: 1, guessShare: 0, seed: 1 })[0]!;
    const { tokens } = await renderDemonstration(renderer, demonstrationEnv(dir), { example: example!, turns: demo.turns.map((x) => (typeof x === 'string' ? { text: x } : x)) }, { maxToolResponseTokens: BUDGETS.maxToolResponseTokens });
    const recorded = [...t!.turns[1]!.promptTokens, ...t!.turns[1]!.completionTokens];
    expect(tokens).toEqual(recorded);
  });
});
