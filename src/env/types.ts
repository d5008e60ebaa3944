import type { Example } from '../types/example.js';
import type { Message, ToolCall, ToolDefinition } from '../types/message.js';
import type { InvalidReason, ParsedAction } from '../types/action.js';
import type { ExecResult } from '../types/exec-result.js';

/**
 * Per-trajectory context handed to {@link Environment.step}. The rollout engine creates a fresh one
 * for each branch, so branches of a group never share state by accident.
 */
export interface ToolContext<E extends Example = Example> {
  /** `${example.id}/${groupIndex}` unless the engine is told otherwise. */
  readonly trajectoryId: string;
  /** Branch index within the group, 0-based. */
  readonly groupIndex: number;
  /** The dataset example this trajectory answers. */
  readonly example: E;
  /** Tool calls already executed in this trajectory (before this one). */
  readonly toolCalls: number;
  /** Maximum tokens an observation may take (the tool-response budget). */
  readonly maxToolResponseTokens: number;
  /**
   * Counts the tokens `text` takes as tool output in the model's context (after special-token escaping), for
   * budget-aware truncation.
   */
  countTokens(text: string): number;
  /** Aborted when the rollout is cancelled; pass it to long operations. */
  readonly signal: AbortSignal;
  /** Per-trajectory scratch state, created empty for each branch. */
  readonly state: Map<string, unknown>;
}

/**
 * What an environment returns for one assistant turn: more observations (the episode goes on)
 * or `done` (the reply is final).
 */
export type StepOutcome =
  | {
      readonly done: false;
      /** Observation messages; the engine cuts each to the tool-response budget (`boundObservation`) if the env did not. */
      readonly observation: readonly Message[];
      readonly exec?: ExecResult;
      /** UTF-8 bytes of the output before the env cut it itself (recorded as `Turn.observationBytes`). */
      readonly rawBytes?: number;
    }
  | { readonly done: true; readonly reason?: 'answer' | 'invalid' | 'env_done' };

/**
 * An agent task: the tools it offers, how an episode opens, and how it reacts to each assistant turn.
 * One object serves a whole group; per-trajectory state lives in `ctx.state`.
 * `step` should resolve: model mistakes and tool faults are observations, not throws. If `step` or
 * `initialMessages` throws anyway, the rollout engine ends that trajectory (or that example's group) with
 * `stopReason: 'error'` and the cause; it is dropped from training and counted in `rollout/error_rate`.
 * `step` must honour `ctx.signal`: the engine stops waiting when it aborts (trainer abort, trajectory timeout).
 */
export interface Environment<E extends Example = Example> {
  /** Stable id used in metric names and logs, e.g. `'code-interpreter'`. */
  readonly name: string;
  /** Tool definitions rendered by the chat template. */
  readonly tools: readonly ToolDefinition[];
  /** Messages that open one trajectory for `example` (system prompt + question). */
  initialMessages(example: E): Message[];
  /**
   * Handles one parsed assistant turn, whatever it was parsed as (`tool`, `answer` or `invalid`), unless a budget
   * ended the trajectory first. A `tool` action returns the observation (`done: false`) or ends the episode; an
   * `answer` or `invalid` action usually returns `{ done: true, reason: action.kind }` (an environment may instead
   * answer it with an observation and let the model go on, e.g. a hint after an invalid call).
   */
  step(action: ParsedAction, ctx: ToolContext<E>): Promise<StepOutcome>;
  /**
   * Called once when a trajectory ends (any stop reason), is aborted or its rollout throws, with the
   * same context its `step` calls got; releases per-trajectory resources (e.g. an interpreter
   * session kept in `ctx.state`). Must not throw (a rejection is ignored).
   */
  endTrajectory?(ctx: ToolContext<E>): Promise<void>;
  /**
   * The environment's own rule for a tool call the chat parser found well-formed and schema-valid (e.g. the code
   * interpreter refuses blank code): `null` when the call is fine, else the {@link InvalidReason} that makes the turn
   * `invalid` (it ends the trajectory and counts as a malformed call). Pure and fast: it runs on the trainer's thread.
   */
  checkToolCall?(call: ToolCall): InvalidReason | null;
  /**
   * Several tool calls in one assistant turn are a valid action (`action.calls`, in order); `step` answers each with
   * its own tool message, in call order. Off (the default, and the ReTool recipe's rule, KMnO4-zx/agentic-rl-lab
   * `05-retool/protocol.py`), a second call makes the turn
   * `invalid` (`multiple_tool_calls`). The rollout budgets count every call (`maxToolCalls`).
   */
  readonly parallelToolCalls?: boolean;
  /**
   * This environment's deadline for one `step` call in ms (the run's `rollout.stepTimeoutMs` overrides it): a step
   * still pending then ends its trajectory as an `error` with stage `timeout`, and `ctx.signal` is aborted.
   * `Infinity` when every step is bounded by the environment itself. @default 60000 (`DEFAULT_STEP_TIMEOUT_MS`)
   */
  readonly stepTimeoutMs?: number;
  /** Releases resources (sandboxes, databases). */
  close?(): Promise<void>;
  /**
   * Several environments in one (`mixEnvironments`): the environment that runs `example`. The rollout engine runs
   * the example's whole group in it, and the Trainer reports its metrics under `env/<name>/…` as well.
   */
  envFor?(example: E): Environment<E>;
}
