import type { Renderer } from '../chat/types.js';
import type { Environment, ToolContext } from '../env/types.js';
import type { Datum } from '../types/datum.js';
import type { Example } from '../types/example.js';
import type { Message } from '../types/message.js';
import { supervisedDatum } from '../loss/index.js';
import { DemonstrationError } from '../errors/data-errors.js';
import { parseWithEnv } from './parse-with-env.js';
import { checkOptions, checkArgumentCount, strictKeys, objectValue, anyValue, nonNegativeInt } from '../util/check-options.js';
import { z } from '../util/zod.js';

const DEMONSTRATION = strictKeys([], { example: objectValue, turns: z.array(anyValue) });
const DEMONSTRATION_OPTIONS = strictKeys(['maxTokens'], { maxToolResponseTokens: nonNegativeInt });

/** One demonstrated assistant turn; `observation` fixes what followed it instead of running `env.step`. */
export interface DemonstrationTurn {
  /** The assistant turn's full text as the model would have written it (tool-call markup included). */
  readonly text: string;
  /** What the environment answered; when absent `env.step` runs on the parsed action. */
  readonly observation?: readonly Message[];
}

/**
 * Renders a demonstration exactly as a rollout would produce it — `renderPrompt`, then per tool turn
 * `renderer.nextPrompt` with the observation (given, or from `env.step` for a parsed tool call) — and returns a
 * `cross_entropy` datum with mask 1 on the assistant tokens (and their stop token) only. Cold-start SFT on such
 * datums trains on the same token sequences RL later samples. The demonstration ends at the first turn that is not
 * followed by an observation (an answer, or a deliberately malformed call): it must be the last turn.
 *
 * The tool-call text must be what the model would write, e.g. with the Qwen/Hermes-style templates
 * `<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>` (see `docs/custom-environment.md`).
 * @throws DemonstrationError when a turn calls a tool `env.tools` does not list, omits a required argument or gives
 *   one of the wrong type (the call would be `invalid` in a rollout, so the demonstration would teach a dead end),
 *   or when turns follow the turn that ends the episode.
 * @param demonstration - the example and its demonstrated assistant turns, in order.
 * @param opts.maxToolResponseTokens - observation budget handed to `env.step` (tokens).
 * @param opts.maxTokens - cut the datum to this many positions (tokens); default unlimited.
 */
export async function demonstrationDatum(
  renderer: Renderer,
  env: Environment,
  demonstration: { readonly example: Example; readonly turns: readonly DemonstrationTurn[] },
  opts: { maxToolResponseTokens: number; maxTokens?: number },
): Promise<Datum> {
  checkArgumentCount('demonstrationDatum', arguments.length, 4, 'demonstrationDatum(renderer, env, { example, turns }, { maxToolResponseTokens, maxTokens? })');
  checkOptions('demonstrationDatum demonstration', DEMONSTRATION, demonstration, { signature: 'demonstrationDatum(renderer, env, { example, turns }, { maxToolResponseTokens })' });
  checkOptions('demonstrationDatum options', DEMONSTRATION_OPTIONS, opts, { signature: 'demonstrationDatum(renderer, env, { example, turns }, { maxToolResponseTokens })' });
  const { tokens, mask } = await renderDemonstration(renderer, env, demonstration, opts);
  return supervisedDatum({ tokens, mask, ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}) });
}

/** A rendered demonstration: its tokens, mask 1 on the assistant tokens, and where each rendered turn starts. */
export interface RenderedDemonstration {
  readonly tokens: readonly number[];
  readonly mask: readonly number[];
  /** Per rendered turn: the index in `tokens` of its first assistant token (its prompt is `tokens.slice(0, start)`). */
  readonly turnStarts: readonly number[];
}

/**
 * The token sequence behind {@link demonstrationDatum} (same rules and errors), with the start of each assistant turn,
 * so a caller can sample from the exact prompt a demonstrated turn was written at.
 * @internal
 */
export async function renderDemonstration(
  renderer: Renderer,
  env: Environment,
  demonstration: { readonly example: Example; readonly turns: readonly DemonstrationTurn[] },
  opts: { maxToolResponseTokens: number },
): Promise<RenderedDemonstration> {
  const { example, turns } = demonstration;
  const turnStarts: number[] = [];
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
    for (const [k, turn] of turns.entries()) {
      const completion = [...renderer.encode(turn.text), stop];
      turnStarts.push(tokens.length);
      tokens.push(...completion);
      mask.push(...completion.map(() => 1));
      let observation = turn.observation;
      if (observation === undefined) {
        const action = parseWithEnv(renderer, env, turn.text);
        if (action.kind === 'invalid' && (action.reason === 'unknown_tool' || action.reason === 'bad_arguments')) {
          throw new DemonstrationError(example.id, k, describeBadCall(action.reason, turn.text, env));
        }
        const ends = (why: string) => new DemonstrationError(example.id, k, `${why}, but ${turns.length - k - 1} more turn(s) follow; end the demonstration here or fix this turn`);
        if (action.kind !== 'tool') {
          if (k < turns.length - 1) throw ends(action.kind === 'answer' ? 'this turn is a final answer (no tool call)' : `this turn's tool call is malformed (${action.reason})`);
          break;
        }
        const outcome = await env.step(action, toolCtx);
        toolCalls += action.calls?.length ?? 1;
        if (outcome.done) {
          if (k < turns.length - 1) throw ends(`the environment ended the episode after this tool call`);
          break;
        }
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
  return { tokens, mask, turnStarts };
}

/** Names the tool or argument a demonstrated call gets wrong, and what the environment offers. */
function describeBadCall(reason: 'unknown_tool' | 'bad_arguments', text: string, env: Environment): string {
  const offered = env.tools.map((t) => t.function.name);
  const name = /"name"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? '?';
  if (reason === 'unknown_tool') {
    return `calls tool '${name}', which environment '${env.name}' does not offer (tools: ${offered.join(', ') || 'none'})`;
  }
  const tool = env.tools.find((t) => t.function.name === name);
  const required = tool?.function.parameters.required ?? [];
  let args: Record<string, unknown> = {};
  try {
    const body = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
    args = (JSON.parse(body) as { arguments?: Record<string, unknown> }).arguments ?? {};
  } catch {
    // the exact problem is reported generically below
  }
  const missing = required.filter((r) => !(r in args));
  if (missing.length > 0) return `call to '${name}' omits required argument(s) ${missing.map((m) => `'${m}'`).join(', ')} (schema: ${JSON.stringify(tool?.function.parameters ?? {})})`;
  return `call to '${name}' has arguments that do not fit its schema ${JSON.stringify(tool?.function.parameters ?? {})}`;
}
