import type { Renderer } from '../chat/types.js';
import type { Environment, ToolContext } from '../env/types.js';
import type { Datum } from '../types/datum.js';
import type { Example } from '../types/example.js';
import type { Message } from '../types/message.js';
import { supervisedDatum } from '../loss/index.js';

/** One demonstrated assistant turn; `observation` fixes what followed it instead of running `env.step`. */
export interface DemonstrationTurn {
  readonly text: string;
  readonly observation?: readonly Message[];
}

/**
 * Renders a demonstration exactly as a rollout would produce it — `renderPrompt`, then per tool turn
 * `renderer.nextPrompt` with the observation (given, or from `env.step` for a parsed tool call) — and returns a
 * `cross_entropy` datum with mask 1 on the assistant tokens (and their stop token) only. Cold-start SFT on such
 * datums trains on the same token sequences RL later samples. The demonstration ends at the first turn that is not
 * followed by an observation.
 * @param opts.maxToolResponseTokens - observation budget handed to `env.step` (tokens).
 * @param opts.maxTokens - cut the datum to this many positions (tokens); default unlimited.
 */
export async function demonstrationDatum(
  renderer: Renderer,
  env: Environment,
  example: Example,
  turns: readonly DemonstrationTurn[],
  opts: { maxToolResponseTokens: number; maxTokens?: number },
): Promise<Datum> {
  let messages: Message[] = env.initialMessages(example);
  let prompt = renderer.renderPrompt(messages, { tools: env.tools, addGenerationPrompt: true });
  const tokens: number[] = [...prompt];
  const mask: number[] = prompt.map(() => 0);
  const stop = renderer.stopTokens[0]!;
  let toolCalls = 0;
  // One context for the whole demonstration: per-trajectory state (an interpreter session) persists across its turns.
  const toolCtx: ToolContext = {
    trajectoryId: `${example.id}/demo`,
    groupIndex: 0,
    example,
    get toolCalls() {
      return toolCalls;
    },
    maxToolResponseTokens: opts.maxToolResponseTokens,
    countTokens: (s) => renderer.encode(s).length,
    signal: new AbortController().signal,
    state: new Map(),
  };
  try {
    for (const turn of turns) {
      const completion = [...renderer.encode(turn.text), stop];
      tokens.push(...completion);
      mask.push(...completion.map(() => 1));
      let observation = turn.observation;
      if (observation === undefined) {
        const action = renderer.parseAssistant(turn.text, env.tools);
        if (action.kind !== 'tool') break;
        const outcome = await env.step(action, toolCtx);
        toolCalls++;
        if (outcome.done) break;
        observation = outcome.observation;
      }
      const next = renderer.nextPrompt({ messagesBeforeAssistant: messages, prevPromptTokens: prompt, completionTokens: completion, observation, tools: env.tools });
      const delta = next.slice(tokens.length);
      tokens.push(...delta);
      mask.push(...delta.map(() => 0));
      messages = [...messages, { role: 'assistant', content: turn.text }, ...observation];
      prompt = next;
    }
  } finally {
    await env.endTrajectory?.(toolCtx).catch(() => {});
  }
  return supervisedDatum({ tokens, mask, ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}) });
}
