import type { Message, ToolCall } from '../types/message.js';
import type { Example } from '../types/example.js';
import type { SampledSequence } from '../types/sampling.js';
import type { Trajectory, TrajectoryError, TrajectoryErrorStage, TrajectoryStopReason, Turn } from '../types/trajectory.js';
import type { ToolContext } from '../env/types.js';
import type { RolloutContext } from './types.js';
import type { ParsedAction } from '../types/action.js';
import { deriveSeed } from './seed.js';
import { turnSamplingParams, turnTokenLimit } from '../types/turn-sampling.js';
import { boundObservation } from '../env/bound-observation.js';
import { withCallIds } from '../env/parallel-calls.js';
import { PromptPrefixError } from '../errors/data-errors.js';
import { checkStepOutcome } from './check-outcome.js';
import { END_TRAJECTORY_TIMEOUT_MS, linkedController, stepDeadlineMs, trajectoryError, userAborted, withDeadline } from './abortable.js';
import { untilAborted } from '../util/until-aborted.js';
import { parseWithEnv } from './parse-with-env.js';
import { checkSampledSequence } from './check-sample.js';
import { SamplerResponseError } from '../errors/sampler-errors.js';

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
  // The environment's signal: the trajectory's, also aborted when one of its steps runs past the step deadline.
  const envSignal = linkedController(signal);
  const deadlineMs = stepDeadlineMs(ctx.stepTimeoutMs, ctx.env);
  let toolCtx: ToolContext | undefined;
  try {
    return await advance(ctx, init, s, signal, envSignal.controller, deadlineMs, (c) => (toolCtx = c));
  } catch (e) {
    if (userAborted(signal)) return finish(s, 'aborted');
    const stage = signal.aborted ? 'timeout' : s.stage;
    const base = trajectoryError(stage, signal.aborted ? signal.reason : e);
    // The turn being played: env_step / next_prompt follow the turn already sampled (and pushed, for next_prompt).
    const turn = stage === 'env_step' || stage === 'parse' ? s.turns.length + 1 : Math.max(1, s.turns.length + (stage === 'sample' ? 1 : 0));
    return finish(s, 'error', { ...base, env: ctx.env.name, turn });
  } finally {
    envSignal.dispose();
    // Per-trajectory resources of the environment (e.g. an interpreter session) end with it, whatever the stop
    // reason, an abort or a throw — within END_TRAJECTORY_TIMEOUT_MS: a stuck cleanup is left behind, never waited on.
    if (toolCtx && ctx.env.endTrajectory)
      await withDeadline(
        Promise.resolve().then(() => ctx.env.endTrajectory?.(toolCtx!)),
        Math.min(deadlineMs, END_TRAJECTORY_TIMEOUT_MS),
        new AbortController(),
      ).catch(() => {});
  }
}

/** The current turn: its sampled sequence, parsed action, and the turn record so far. */
interface TurnInProgress {
  readonly index: number;
  readonly seq: SampledSequence;
  readonly action: ParsedAction;
  /** The sequence stopped at the token limit. */
  readonly truncated: boolean;
  readonly base: Turn;
  readonly assistant: Message;
}

/** Decodes and parses the sampled sequence of the turn about to be played (a truncated tool call is `invalid`). */
function parseTurn(ctx: RolloutContext, s: BranchState, prompt: readonly number[], seq: SampledSequence): TurnInProgress {
  s.stage = 'parse';
  const { renderer, env } = ctx;
  const text = renderer.decode(stripStop(seq.tokens, renderer.stopTokens));
  const truncated = seq.stopReason === 'length';
  const parsed = parseWithEnv(renderer, env, text);
  // A reply cut by the token limit is `truncated` whatever its half-written tool call looks like (an unclosed
  // block would otherwise read as `stray_tool_tag`, a malformed call); a cut plain answer stays an answer here and
  // the trajectory ends with the budget's stop reason.
  const action: ParsedAction = truncated && parsed.kind !== 'answer' ? { kind: 'invalid', reason: 'truncated', content: text, raw: text } : parsed;
  const assistant: Message =
    action.kind === 'tool' ? { role: 'assistant', content: action.content, toolCalls: callsOf(action) } : { role: 'assistant', content: text };
  return {
    index: s.turns.length,
    seq,
    action,
    truncated,
    base: { promptTokens: prompt, completionTokens: seq.tokens, logprobs: seq.logprobs, text, stopReason: seq.stopReason, action },
    assistant,
  };
}

/**
 * Why the trajectory must end before the environment sees this turn: a malformed (or truncated) action, or a tool
 * call past `maxToolCalls` / `maxTurns`. `undefined` when the turn may go on to `env.step`.
 */
function budgetStopReason(ctx: RolloutContext, s: BranchState, turn: TurnInProgress, limitedByRoom: boolean): TrajectoryStopReason | undefined {
  const { budgets } = ctx;
  if (turn.action.kind === 'invalid') return turn.truncated ? (limitedByRoom ? 'max_trajectory_tokens' : 'max_turn_tokens') : 'invalid';
  // Every call of the turn counts: a turn whose calls would pass the budget does not run.
  if (turn.action.kind === 'tool' && s.toolCalls + callsOf(turn.action).length > budgets.maxToolCalls) return 'max_tool_calls';
  if (turn.action.kind === 'tool' && s.turns.length + 1 >= budgets.maxTurns) return 'max_turns';
  return undefined;
}

/** Records a turn in the branch (and its assistant message unless already recorded) and emits its `turn` event. */
function recordTurn(ctx: RolloutContext, s: BranchState, turn: TurnInProgress, record: Turn, pushAssistant: boolean): void {
  s.turns.push(record);
  if (pushAssistant) s.messages.push(turn.assistant);
  ctx.onTurn?.({
    trajectoryId: s.id,
    groupIndex: s.groupIndex,
    turnIndex: turn.index,
    action: turn.action.kind,
    ...(turn.action.kind === 'invalid' ? { invalidReason: turn.action.reason } : {}),
    completionTokens: turn.seq.tokens.length,
    toolCalls: turn.action.kind === 'tool' ? callsOf(turn.action).length : 0,
    ...(record.exec ? { execStatus: record.exec.status } : {}),
    toolMs: record.toolMs ?? 0,
  });
}

/** Ends the trajectory after the environment said `done` on this turn. */
function endTurn(
  ctx: RolloutContext,
  s: BranchState,
  turn: TurnInProgress,
  outcome: { reason?: TrajectoryStopReason },
  toolMs: number,
  limitedByRoom: boolean,
): Trajectory {
  recordTurn(ctx, s, turn, { ...turn.base, toolMs }, true);
  if (turn.action.kind === 'answer' && turn.truncated) return finish(s, limitedByRoom ? 'max_trajectory_tokens' : 'max_turn_tokens');
  return finish(s, turn.action.kind === 'answer' ? 'answer' : (outcome.reason ?? 'env_done'));
}

/** Samples the next turn from `prompt` with at most `maxTokens` new tokens (seed derived from the branch and turn). */
async function sampleTurn(ctx: RolloutContext, s: BranchState, prompt: readonly number[], maxTokens: number, signal: AbortSignal): Promise<SampledSequence> {
  s.stage = 'sample';
  const seed = ctx.sampling?.seed !== undefined ? deriveSeed(ctx.sampling.seed, hashId(s.id), s.turns.length) : undefined;
  const [sampled] = await untilAborted(
    ctx.sampler.sample(prompt, turnSamplingParams(ctx.sampling, { numSamples: 1, maxTokens, stop: ctx.renderer.stopTokens, seed, signal })),
    signal,
  );
  if (!sampled) throw new SamplerResponseError('sequences', null, 'the sampler returned no sequence');
  checkSampledSequence(sampled, { vocabSize: ctx.renderer.vocabSize, maxTokens });
  return sampled;
}

/**
 * The branch loop: parse → budget check → env.step (within `stepDeadline` ms) → (end | observation → next prompt →
 * sample). Hands its tool
 * context to `expose` as soon as it exists (so `runBranch` can end the environment's per-trajectory resources).
 */
async function advance(
  ctx: RolloutContext,
  init: BranchInit,
  s: BranchState,
  signal: AbortSignal,
  envController: AbortController,
  stepDeadline: number,
  expose: (toolCtx: ToolContext) => void,
): Promise<Trajectory> {
  const { renderer, env, budgets } = ctx;
  const toolCtx: ToolContext = {
    trajectoryId: s.id,
    groupIndex: init.groupIndex,
    example: init.example,
    get toolCalls() {
      return s.toolCalls;
    },
    maxToolResponseTokens: budgets.maxToolResponseTokens,
    countTokens: (text: string) => countToolTokens(text),
    signal: envController.signal,
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
  let limitedByRoom = turnTokenLimit(budgets, prompt.length).limitedByRoom;
  for (;;) {
    const turn = parseTurn(ctx, s, prompt, seq);
    const budgetStop = budgetStopReason(ctx, s, turn, limitedByRoom);
    if (budgetStop) {
      recordTurn(ctx, s, turn, turn.base, true);
      return finish(s, budgetStop);
    }
    if (signal.aborted) throw signal.reason; // never start a tool call for a trajectory that has ended
    const t0 = performance.now();
    s.stage = 'env_step';
    // Every step has a deadline (a StepTimeout ends the trajectory with stage `timeout`), so one stuck tool never
    // holds the run; the environment's signal is aborted with it.
    const outcome = checkStepOutcome(
      await withDeadline(
        Promise.resolve().then(() => env.step(turn.action, toolCtx)),
        stepDeadline,
        envController,
      ),
      env.name,
    );
    const toolMs = turn.action.kind === 'tool' ? performance.now() - t0 : 0;
    if (turn.action.kind === 'tool') s.toolCalls += callsOf(turn.action).length;
    if (outcome.done) return endTurn(ctx, s, turn, outcome, toolMs, limitedByRoom);
    // Every environment's output, built-in or custom, is bounded before it is rendered; the trajectory keeps only
    // what the model saw plus the original size.
    const bounded = boundObservation({ ...outcome, observation: withCallIds(turn.action, outcome.observation) }, budgets.maxToolResponseTokens, (text, role) =>
      role === 'tool' ? countToolTokens(text) : renderer.encode(text).length,
    );
    recordTurn(
      ctx,
      s,
      turn,
      { ...turn.base, observation: bounded.observation, observationBytes: bounded.bytes, toolMs, ...(bounded.exec ? { exec: bounded.exec } : {}) },
      false,
    );
    s.stage = 'next_prompt';
    const next = nextPromptOrRerender(ctx, s.messages, turn.assistant, prompt, seq.tokens, bounded.observation);
    s.messages.push(turn.assistant, ...bounded.observation);
    const limit = turnTokenLimit(budgets, next.length);
    if (limit.room < 1) return finish(s, 'max_trajectory_tokens');
    if (signal.aborted) throw signal.reason;
    prompt = next;
    limitedByRoom = limit.limitedByRoom;
    seq = await sampleTurn(ctx, s, prompt, limit.maxTokens, signal);
  }
}

/**
 * The next prompt by extension (`renderer.nextPrompt`); under `onPrefixMismatch: 'split'`, a template that rewrites
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
    if (ctx.onPrefixMismatch !== 'split' || !PromptPrefixError.isInstance(e)) throw e;
    return ctx.renderer.renderPrompt([...before, assistant, ...observation], { tools: ctx.env.tools, addGenerationPrompt: true, ...kwargs });
  }
}

/** The calls of a `tool` action, in order (`calls`; `[call]` for an action built without it). */
function callsOf(action: Extract<ParsedAction, { kind: 'tool' }>): readonly ToolCall[] {
  return action.calls !== undefined && action.calls.length > 0 ? action.calls : [action.call];
}

function hashId(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) >>> 0;
  return h;
}
