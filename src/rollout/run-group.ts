import type { Example } from '../types/example.js';
import type { Trajectory } from '../types/trajectory.js';
import type { RolloutContext } from './types.js';
import { runBranch } from './branch.js';
import { deriveSeed } from './seed.js';

/**
 * Rolls out one group: `groupSize` trajectories for one example. The first turn forks all
 * branches with ONE `sample` call (`numSamples = groupSize`) from the shared prompt; after that each
 * branch advances on its own (sample → parse → execute → observation → sample) without waiting for
 * the others, and tool calls of different branches run concurrently through the sandbox.
 * Each branch starts from its own copy of the prompt state.
 * @returns trajectories in branch order (`groupIndex` 0..G−1).
 * @see ReTool seed §8.4.6 (first-turn fork, per-branch continuation).
 */
export async function runGroup(ctx: RolloutContext, example: Example, groupSize: number, groupSeedIndex = 0): Promise<Trajectory[]> {
  const messages = ctx.env.initialMessages(example);
  const promptTokens = ctx.renderer.renderPrompt(messages, {
    tools: ctx.env.tools,
    addGenerationPrompt: true,
    ...(ctx.templateKwargs ? { templateKwargs: ctx.templateKwargs } : {}),
  });
  const room = ctx.budgets.maxTrajectoryTokens - promptTokens.length;
  if (room < 1) {
    return Array.from({ length: groupSize }, (_, g) => ({
      id: `${example.id}/${g}`,
      example,
      groupIndex: g,
      messages,
      turns: [],
      stopReason: 'max_trajectory_tokens' as const,
      toolCalls: 0,
      finalText: '',
    }));
  }
  const seed = deriveSeed(ctx.sampling?.seed, groupSeedIndex);
  const first = await ctx.sampler.sample(promptTokens, {
    numSamples: groupSize,
    maxTokens: Math.min(ctx.budgets.maxTurnTokens, room),
    temperature: ctx.sampling?.temperature ?? 1,
    topP: ctx.sampling?.topP ?? 1,
    ...(ctx.sampling?.topK !== undefined ? { topK: ctx.sampling.topK } : {}),
    stop: ctx.renderer.stopTokens,
    ...(seed !== undefined ? { seed } : {}),
  });
  return Promise.all(
    first.map((seq, g) =>
      runBranch(ctx, { example, groupIndex: g, messages: structuredClone(messages), promptTokens: [...promptTokens], first: seq }),
    ),
  );
}

/**
 * Rolls out every example's group concurrently (`examples.length × groupSize` trajectories).
 * @returns one array of trajectories per example, in input order.
 */
export async function runRollouts(ctx: RolloutContext, examples: readonly Example[], groupSize: number, seedOffset = 0): Promise<Trajectory[][]> {
  return Promise.all(examples.map((ex, i) => runGroup(ctx, ex, groupSize, seedOffset + i)));
}
