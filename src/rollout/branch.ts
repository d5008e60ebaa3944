import type { Message, ToolCall } from '../types/message.js';
import type { Example } from '../types/example.js';
import type { SampledSequence } from '../types/sampling.js';
import type { Trajectory, TrajectoryError, TrajectoryErrorStage, TrajectoryStopReason, Turn } from '../types/trajectory.js';
import type { ToolContext } from '../env/types.js';
import type { RolloutContext } from './types.js';
import { deriveSeed } from './seed.js';
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
  try {
    return await advance(ctx, init, s, signal);
  } catch (e) {
    if (userAborted(signal)) return finish(s, 'aborted');
    const stage = signal.aborted ? 'timeout' : s.stage;
    const base = trajectoryError(stage, signal.aborted ? signal.reason : e);
    // The turn being played: env_step / next_prompt follow the turn already sampled (and pushed, for next_prompt).
    const turn = stage === 'env_step' || stage === 'parse' ? s.turns.length + 1 : Math.max(1, s.turns.length + (stage === 'sample' ? 1 : 0));
    return finish(s, 'error', { ...base, env: ctx.env.name, turn });
  }
}

async function advance(ctx: RolloutContext, init: BranchInit, s: BranchState, signal: AbortSignal): Promise<Trajectory> {
  const { renderer, env, budgets, sampler } = ctx;
  const toolCtx: ToolContext = {
    trajectoryId: s.id,
    groupIndex: init.groupIndex,
    example: init.example,
    get toolCalls() {
      return s.toolCalls;
    },
    maxToolResponseTokens: budgets.maxToolResponseTokens,
    countTokens: (text: string) => renderer.encode(text).length,
    signal,
    state: new Map(),
  };
  let prompt = init.promptTokens;
  let seq = init.first;
  // True when the current turn's maxTokens was cut to the room left in the trajectory budget.
  let limitedByRoom = budgets.maxTrajectoryTokens - prompt.length < budgets.maxTurnTokens;
  for (;;) {
    s.stage = 'parse';
    const text = renderer.decode(stripStop(seq.tokens, renderer.stopTokens));
    const truncated = seq.stopReason === 'length';
    const parsed = renderer.parseAssistant(text, env.tools);
    const action = truncated && parsed.kind === 'tool' ? { kind: 'invalid' as const, reason: 'truncated' as const, content: text, raw: text } : parsed;
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
    const turn: Turn = { ...base, observation: outcome.observation, toolMs, ...(outcome.exec ? { exec: outcome.exec } : {}) };
    s.turns.push(turn);
    emit(turn);
    s.stage = 'next_prompt';
    const next = renderer.nextPrompt({
      messagesBeforeAssistant: s.messages,
      prevPromptTokens: prompt,
      completionTokens: seq.tokens,
      observation: outcome.observation,
      tools: env.tools,
      ...(ctx.templateKwargs ? { templateKwargs: ctx.templateKwargs } : {}),
    });
    s.messages.push(assistant, ...outcome.observation);
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

function hashId(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) >>> 0;
  return h;
}
