import type { Message, ToolCall } from '../types/message.js';
import type { Example } from '../types/example.js';
import type { SampledSequence } from '../types/sampling.js';
import type { Trajectory, TrajectoryError, TrajectoryErrorStage, TrajectoryStopReason, Turn } from '../types/trajectory.js';
import type { ToolContext } from '../env/types.js';
import type { RolloutContext } from './types.js';
import { deriveSeed } from './seed.js';
import { boundObservation } from '../env/bound-observation.js';
import { TemplateRewriteError } from '../errors/chat-errors.js';
import { trajectoryError, untilAborted, userAborted } from './abortable.js';

/** Mutable state of one branch while it is rolled out; frozen into a {@link Trajectory} at the end. */
interface BranchState {
  readonly id: string;
  readonly groupIndex: number;
  readonly example: Example;
  messages: Message[];
  turns: Turn[];
  toolCalls: number;
  /** What the branch is doing now (reported when it throws). */
  stage: TrajectoryErrorStage;
}

function finish(s: BranchState, stopReason: TrajectoryStopReason, error?: TrajectoryError): Trajectory {
  const last = s.turns[s.turns.length - 1];
  return {
    id: s.id,
    example: s.example,
    groupIndex: s.groupIndex,
    messages: s.messages,
    turns: s.turns,
    stopReason,
    toolCalls: s.toolCalls,
    finalText: last?.text ?? '',
    ...(error ? { error } : {}),
  };
}

function stripStop(tokens: readonly number[], stop: readonly number[]): readonly number[] {
  const last = tokens[tokens.length - 1];
  return last !== undefined && stop.includes(last) ? tokens.slice(0, -1) : tokens;
}

/** Where a branch starts: its group's prompt and the first sampled sequence of the group fork. */
export interface BranchInit {
  readonly example: Example;
  readonly groupIndex: number;
  readonly messages: readonly Message[];
  readonly promptTokens: readonly number[];
  readonly first: SampledSequence;
  /** Trajectory id. @default `${example.id}/${groupIndex}` */
  readonly id?: string;
}

/**
 * Advances one branch to the end: parse → (tool → observation → next prompt → sample)* → done.
 * Starts from the first sampled sequence of its group fork. Never decodes-and-re-encodes sampled
 * tokens: each turn's prompt is built by extension with `renderer.nextPrompt`.
 * Model mistakes end the trajectory as values. Never rejects: anything that throws (`env.step`, the chat
 * template's rewrite check, the sampler, the parser) ends the trajectory with `stopReason: 'error'` and its cause;
 * an abort of `ctx.signal` ends it as `aborted` without waiting for the sampler or tool call in flight.
 */
export async function runBranch(ctx: RolloutContext, init: BranchInit): Promise<Trajectory> {
  const s: BranchState = {
    id: init.id ?? `${init.example.id}/${init.groupIndex}`,
    groupIndex: init.groupIndex,
    example: init.example,
    messages: [...init.messages],
    turns: [],
    toolCalls: 0,
    stage: 'parse',
  };
  const signal = ctx.signal ?? new AbortController().signal;
  let toolCtx: ToolContext | undefined;
  try {
    return await advance(ctx, init, s, signal, (c) => (toolCtx = c));
  } catch (e) {
    if (userAborted(signal)) return finish(s, 'aborted');
    return finish(s, 'error', trajectoryError(signal.aborted ? 'timeout' : s.stage, signal.aborted ? signal.reason : e));
  } finally {
    // Per-trajectory resources of the environment (e.g. an interpreter session) end with it,
    // whatever the stop reason, an abort or a throw.
    if (toolCtx) await ctx.env.endTrajectory?.(toolCtx).catch(() => {});
  }
}

/** The body of {@link runBranch}; hands its tool context to `expose` as soon as it exists. */
async function advance(ctx: RolloutContext, init: BranchInit, s: BranchState, signal: AbortSignal, expose: (toolCtx: ToolContext) => void): Promise<Trajectory> {
  const { renderer, env, budgets, sampler } = ctx;
  const toolCtx: ToolContext = {
    trajectoryId: s.id,
    groupIndex: init.groupIndex,
    example: init.example,
    get toolCalls() {
      return s.toolCalls;
    },
    maxToolResponseTokens: budgets.maxToolResponseTokens,
    countTokens: (text: string) => countToolTokens(text),
    signal,
    state: new Map(),
  };
  // Tool output is counted as the model sees it: after special-token escaping.
  function countToolTokens(text: string): number {
    return renderer.countObservationTokens?.(text) ?? renderer.encode(text).length;
  }
  expose(toolCtx);
  let prompt = init.promptTokens;
  let seq = init.first;
  // True when the current turn's maxTokens was cut to the room left in the trajectory budget.
  let limitedByRoom = budgets.maxTrajectoryTokens - prompt.length < budgets.maxTurnTokens;
  for (;;) {
    s.stage = 'parse';
    const text = renderer.decode(stripStop(seq.tokens, renderer.stopTokens));
    const truncated = seq.stopReason === 'length';
    const parsed = renderer.parseAssistant(text, env.tools);
    // A reply cut by the token limit is `truncated` whatever its half-written tool call looks like (an unclosed
    // block would otherwise read as `stray_tool_tag`, a malformed call); a cut plain answer stays an answer here and
    // the trajectory ends with the budget's stop reason below.
    const action = truncated && parsed.kind !== 'answer' ? { kind: 'invalid' as const, reason: 'truncated' as const, content: text, raw: text } : parsed;
    const turnIndex = s.turns.length;
    const base: Turn = { promptTokens: prompt, completionTokens: seq.tokens, logprobs: seq.logprobs, text, stopReason: seq.stopReason, action };
    const assistant: Message =
      action.kind === 'tool'
        ? { role: 'assistant', content: action.content, toolCalls: [action.call as ToolCall] }
        : { role: 'assistant', content: text };
    const emit = (extra: Partial<Turn> = {}) =>
      ctx.onTurn?.({
        trajectoryId: s.id,
        groupIndex: s.groupIndex,
        turnIndex,
        action: action.kind,
        ...(action.kind === 'invalid' ? { invalidReason: action.reason } : {}),
        completionTokens: seq.tokens.length,
        ...(extra.exec ? { execStatus: extra.exec.status } : {}),
        toolMs: extra.toolMs ?? 0,
      });

    if (action.kind === 'invalid') {
      s.turns.push(base);
      s.messages.push(assistant);
      emit();
      return finish(s, truncated ? (limitedByRoom ? 'max_trajectory_tokens' : 'max_turn_tokens') : 'invalid');
    }
    if (action.kind === 'tool' && s.toolCalls >= budgets.maxToolCalls) {
      s.turns.push(base);
      s.messages.push(assistant);
      emit();
      return finish(s, 'max_tool_calls');
    }
    if (action.kind === 'tool' && s.turns.length + 1 >= budgets.maxTurns) {
      s.turns.push(base);
      s.messages.push(assistant);
      emit();
      return finish(s, 'max_turns');
    }
    if (signal.aborted) throw signal.reason; // never start a tool call for a trajectory that has ended
    const t0 = performance.now();
    s.stage = 'env_step';
    const outcome = await untilAborted(env.step(action, toolCtx), signal);
    const toolMs = action.kind === 'tool' ? performance.now() - t0 : 0;
    if (action.kind === 'tool') s.toolCalls++;
    if (outcome.done) {
      s.turns.push({ ...base, toolMs });
      s.messages.push(assistant);
      emit({ toolMs });
      if (action.kind === 'answer' && truncated) return finish(s, limitedByRoom ? 'max_trajectory_tokens' : 'max_turn_tokens');
      return finish(s, action.kind === 'answer' ? 'answer' : (outcome.reason ?? 'env_done'));
    }
    // Every environment's output, built-in or custom, is bounded before it is rendered; the trajectory keeps only
    // what the model saw plus the original size.
    const bounded = boundObservation(outcome, budgets.maxToolResponseTokens, (text, role) => (role === 'tool' ? countToolTokens(text) : renderer.encode(text).length));
    const turn: Turn = { ...base, observation: bounded.observation, observationBytes: bounded.bytes, toolMs, ...(bounded.exec ? { exec: bounded.exec } : {}) };
    s.turns.push(turn);
    emit(turn);
    s.stage = 'next_prompt';
    const next = nextPromptOrRerender(ctx, s.messages, assistant, prompt, seq.tokens, bounded.observation);
    s.messages.push(assistant, ...bounded.observation);
    const room = budgets.maxTrajectoryTokens - next.length;
    if (room < 1) return finish(s, 'max_trajectory_tokens');
    if (signal.aborted) throw signal.reason;
    prompt = next;
    limitedByRoom = room < budgets.maxTurnTokens;
    s.stage = 'sample';
    const [sampled] = await untilAborted(sampler.sample(prompt, {
      numSamples: 1,
      maxTokens: Math.min(budgets.maxTurnTokens, room),
      temperature: ctx.sampling?.temperature ?? 1,
      topP: ctx.sampling?.topP ?? 1,
      ...(ctx.sampling?.topK !== undefined ? { topK: ctx.sampling.topK } : {}),
      stop: renderer.stopTokens,
      ...(ctx.sampling?.seed !== undefined ? { seed: deriveSeed(ctx.sampling.seed, hashId(s.id), s.turns.length)! } : {}),
      signal,
    }), signal);
    if (!sampled) throw new Error('the sampler returned no sequence');
    seq = sampled;
  }
}

/**
 * The next prompt by extension (`renderer.nextPrompt`); under `prefixMismatch: 'split'`, a template that rewrites
 * history gets the whole conversation re-rendered instead (the new prompt no longer extends the sampled tokens).
 */
function nextPromptOrRerender(
  ctx: RolloutContext,
  before: readonly Message[],
  assistant: Message,
  prevPromptTokens: readonly number[],
  completionTokens: readonly number[],
  observation: readonly Message[],
): number[] {
  const kwargs = ctx.templateKwargs ? { templateKwargs: ctx.templateKwargs } : {};
  try {
    return ctx.renderer.nextPrompt({ messagesBeforeAssistant: before, prevPromptTokens, completionTokens, observation, tools: ctx.env.tools, ...kwargs });
  } catch (e) {
    if (ctx.prefixMismatch !== 'split' || !(e instanceof TemplateRewriteError)) throw e;
    return ctx.renderer.renderPrompt([...before, assistant, ...observation], { tools: ctx.env.tools, addGenerationPrompt: true, ...kwargs });
  }
}

function hashId(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) >>> 0;
  return h;
}
