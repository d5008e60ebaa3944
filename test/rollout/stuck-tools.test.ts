import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_STEP_TIMEOUT_MS,
  Trainer,
  defineTool,
  fromAiSdkTools,
  mcpEnvironment,
  toolEnvironment,
  type Environment,
  type Example,
  type Message,
  type Reward,
  type TrainerOptions,
  type Trajectory,
} from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

// Hazard: a tool (or a custom environment's step, or its cleanup) that never settles and ignores its abort signal
// keeps train() waiting forever. Every environment kind has a default per-call deadline; the stuck call's trajectory
// ends as an error with stage `timeout` (an MCP call past callTimeoutMs is a timeout observation instead), its
// signal is aborted, and the run completes.
const HOSTILE_SERVER = fileURLToPath(new URL('../fixtures/mcp/hostile-server.mjs', import.meta.url));
const dataset: Example[] = [{ id: 'q', question: 'Say A.', answer: 'A' }];
const initialMessages = (e: Example): Message[] => [{ role: 'user', content: e.question }];
const callText = (name: string, args: Record<string, unknown> = {}) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const reward: Reward = (t) => ({ reward: t.finalText.includes('A') ? 1 : -1, correct: t.finalText.includes('A'), validFormat: true });
const never = () => new Promise<never>(() => {});

/** One step of 3 branches: branch 0 calls `tool`, then answers A after any tool response; branch 1 answers A, branch 2 B. */
async function train(env: Environment, tool: string, over: Partial<TrainerOptions> = {}) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt, sample }) => (prompt.includes('<tool_response>') ? 'A' : sample === 0 ? callText(tool, { q: 'x' }) : sample === 1 ? 'A' : 'B'),
  });
  const trainer = new Trainer({
    backend: mockBackend({ renderer, sampler }),
    env,
    reward,
    loss: { kind: 'importance_sampling' },
    dataset,
    groupSize: 3,
    questionsPerBatch: 1,
    maxSteps: 1,
    progress: false,
    ...over,
  } as TrainerOptions);
  const trajectories: Trajectory[] = [];
  trainer.on('trajectory', (e) => trajectories.push(e.trajectory));
  const t0 = performance.now();
  const result = await trainer.train();
  return { result, trajectories, stuck: trajectories.find((t) => t.groupIndex === 0)!, wallMs: performance.now() - t0 };
}

/** A tool that never resolves and records whether its signal was aborted. */
function stuckTool(name: string, aborted: string[], over: { timeoutMs?: number } = {}) {
  return defineTool({
    name,
    description: 'Never answers.',
    inputSchema: z.object({ q: z.string() }),
    execute: (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.push(name));
      return never();
    },
    ...over,
  });
}

/** A custom environment whose tool step never resolves (ignoring its signal), nor its endTrajectory. */
function stuckEnv(aborted: string[], over: Partial<Environment> = {}): Environment {
  return {
    name: 'stuck',
    tools: [{ type: 'function', function: { name: 'lookup', description: 'd', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
    initialMessages,
    step: async (action, ctx) => {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      ctx.signal.addEventListener('abort', () => aborted.push('step'));
      return never();
    },
    endTrajectory: () => never(),
    ...over,
  };
}

describe('a stuck call ends its trajectory (stage timeout), and train() completes', () => {
  it('toolEnvironment: callTimeoutMs, a tool’s own timeoutMs, AI SDK tools; the call’s signal is aborted', async () => {
    const aborted: string[] = [];
    const a = await train(toolEnvironment({ name: 'tools', tools: [stuckTool('hang', aborted)], initialMessages, callTimeoutMs: 300 }), 'hang');
    expect(a.result.steps).toBe(1);
    expect(a.stuck.stopReason).toBe('error');
    expect(a.stuck.error).toMatchObject({ stage: 'timeout', code: 'TOOL_TIMEOUT' });
    expect(a.stuck.error!.message).toMatch(/'hang' did not resolve within 300 ms/);
    expect(aborted).toEqual(['hang']);
    // A tool's own deadline wins over the environment's.
    const b = await train(
      toolEnvironment({ name: 'tools', tools: [stuckTool('slow', aborted, { timeoutMs: 200 })], initialMessages, callTimeoutMs: 60_000 }),
      'slow',
    );
    expect(b.stuck.error).toMatchObject({ stage: 'timeout', code: 'TOOL_TIMEOUT' });
    expect(b.wallMs).toBeLessThan(20_000);
    const ai = fromAiSdkTools({ hang: { description: 'never', inputSchema: z.object({ q: z.string() }), execute: () => never() } });
    const c = await train(toolEnvironment({ name: 'ai', tools: ai, initialMessages, callTimeoutMs: 250 }), 'hang');
    expect(c.stuck.error).toMatchObject({ stage: 'timeout' });
  });

  it('a custom environment: rollout.stepTimeoutMs, else its own stepTimeoutMs; a stuck endTrajectory is not waited on', async () => {
    const aborted: string[] = [];
    const a = await train(stuckEnv(aborted), 'lookup', { rollout: { stepTimeoutMs: 300 } } as Partial<TrainerOptions>);
    expect(a.result.steps).toBe(1);
    expect(a.stuck.error).toMatchObject({ stage: 'timeout', code: 'TIMEOUT' });
    expect(a.stuck.error!.message).toMatch(/300 ms/);
    expect(aborted).toEqual(['step']);
    const b = await train(stuckEnv(aborted, { stepTimeoutMs: 250 }), 'lookup');
    expect(b.stuck.error).toMatchObject({ stage: 'timeout' });
    expect(b.stuck.error!.message).toMatch(/250 ms/);
    // A step that returns a synchronous value, or throws synchronously, is handled the same way as an async one.
    const c = await train(stuckEnv(aborted, { stepTimeoutMs: 250, step: (() => never()) as Environment['step'] }), 'lookup');
    expect(c.stuck.error).toMatchObject({ stage: 'timeout' });
  });

  it('the option is validated', () => {
    expect(
      () =>
        new Trainer({
          backend: {} as never,
          env: stuckEnv([]),
          reward,
          loss: { kind: 'importance_sampling' },
          dataset,
          groupSize: 2,
          questionsPerBatch: 1,
          maxSteps: 1,
          rollout: { stepTimeoutMs: -1 },
        } as never),
    ).toThrow(/rollout\.stepTimeoutMs/);
    expect(() => toolEnvironment({ name: 't', tools: [], initialMessages, callTimeoutMs: 0 })).toThrow(/callTimeoutMs/);
  });

  it('under the defaults: toolEnvironment (30 s), a custom environment (60 s) and an MCP server that never answers (30 s, an observation) all complete', async () => {
    expect(DEFAULT_STEP_TIMEOUT_MS).toBe(60_000);
    const aborted: string[] = [];
    const mcp = await mcpEnvironment({
      server: {
        command: process.execPath,
        args: [HOSTILE_SERVER],
        env: { HOSTILE_TOOLS: JSON.stringify([{ name: 'hang', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }]) },
      },
      initialMessages,
    });
    try {
      const [tools, custom, server] = await Promise.all([
        train(toolEnvironment({ name: 'tools', tools: [stuckTool('hang', aborted)], initialMessages }), 'hang'),
        train(stuckEnv(aborted), 'lookup'),
        train(mcp, 'hang'),
      ]);
      expect(tools.stuck.error).toMatchObject({ stage: 'timeout', code: 'TOOL_TIMEOUT' });
      expect(tools.stuck.error!.message).toMatch(/30000 ms/);
      expect(custom.stuck.error).toMatchObject({ stage: 'timeout', code: 'TIMEOUT' });
      expect(custom.stuck.error!.message).toMatch(/60000 ms/);
      expect(server.stuck.stopReason).toBe('answer');
      expect(server.stuck.turns[0]!.observation![0]!.content).toMatch(/timed out after 30000 ms/);
      for (const r of [tools, custom, server]) expect(r.result.steps).toBe(1);
      expect(aborted.sort()).toEqual(['hang', 'step']);
    } finally {
      await mcp.close();
    }
  }, 150_000);
});
