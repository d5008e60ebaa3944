/**
 * The one rule every reward follows before it looks at an answer (DESIGN invariant: "a reward scores only an
 * answer the trajectory ended with validly"). The ReTool recipe (KMnO4-zx/agentic-rl-lab `05-retool/rollout.py`):
 * `answer` ends the trajectory and is scored,
 * `invalid` ends it and counts as wrong.
 */
import { z } from '../util/zod.js';
import { ConfigError } from '../errors/config-error.js';
import type { Example } from '../types/example.js';
import type { RewardFailure, RewardResult } from '../types/reward.js';
import type { Trajectory, TrajectoryStopReason } from '../types/trajectory.js';
import type { Reward } from '../types/reward.js';

/** Options of the ending rule ({@link answerOf}, {@link withValidEnding}). */
export interface EndingOptions {
  /**
   * Score a trajectory cut by a token budget (`max_turn_tokens`, `max_trajectory_tokens`) as if it had ended
   * with an answer. Off by default: a cut reply never finished its answer (a box written before the cut may be a
   * draft), and crediting it teaches the policy to run out of tokens. Turn it on only for tasks whose answer is
   * complete before the budget ends (e.g. a fixed-length generation). @default false
   */
  readonly scoreTruncated?: boolean;
}

/** Stop reasons cut by a token budget: wrong unless {@link EndingOptions.scoreTruncated}. */
export const TOKEN_BUDGET_STOPS: readonly TrajectoryStopReason[] = ['max_turn_tokens', 'max_trajectory_tokens'];

/**
 * Stop reasons that are valid endings: the model answered (`answer`), or the environment itself ended the
 * episode (`env_done`, whose validity the environment defines). Everything else (`invalid`, `max_tool_calls`,
 * `max_turns`, `aborted`, any failure) is not an answer.
 */
export const VALID_ENDINGS: readonly TrajectoryStopReason[] = ['answer', 'env_done'];

/**
 * What the ending rule says about a trajectory: `scorable` with the text a reward may search (`text`: the final
 * reply after its last `</think>`), or not scorable with the failure to report.
 */
export type Ending =
  | { readonly scorable: true; readonly text: string }
  | { readonly scorable: false; readonly failure: RewardFailure; readonly detail: string };

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/** Harmony (GPT-OSS): the header of the `final` channel; what precedes it is analysis / commentary. */
const HARMONY_FINAL = '<|channel|>final<|message|>';
const HARMONY_CHANNEL = '<|channel|>';

/**
 * The answer part of a reply: the text after the last `</think>` (reasoning is not the answer); for a harmony reply
 * (GPT-OSS), the text of its `final` channel.
 * @returns `null` when a `<think>` block is still open at the end, or a harmony reply has no `final` channel (the reply
 *   is reasoning only).
 * @example answerPart('<think>maybe \\boxed{7}</think>\n\nSo it is 8.') === '\n\nSo it is 8.'
 */
export function answerPart(text: string): string | null {
  if (text.trimStart().startsWith(HARMONY_CHANNEL)) {
    const f = text.lastIndexOf(HARMONY_FINAL);
    if (f < 0) return null;
    const final = text.slice(f + HARMONY_FINAL.length);
    const end = final.indexOf('<|end|>');
    return end < 0 ? final : final.slice(0, end);
  }
  const close = text.lastIndexOf(THINK_CLOSE);
  const after = close < 0 ? text : text.slice(close + THINK_CLOSE.length);
  if (after.includes(THINK_OPEN)) return null;
  return after;
}

/**
 * Applies the ending rule to `trajectory`:
 * - `invalid` → not scorable, `invalid_format`;
 * - `max_turn_tokens` / `max_trajectory_tokens` → not scorable, `truncated` (unless `scoreTruncated`);
 * - any other stop reason that is not a valid ending ({@link VALID_ENDINGS}: `max_tool_calls`, `max_turns`,
 *   `aborted`, `error`, …) → not scorable, `no_answer`;
 * - a reply whose `<think>` block never closes → not scorable, `no_answer`;
 * - otherwise scorable, with `text` = the final reply after its last `</think>`.
 */
export function answerOf(trajectory: Trajectory, options: EndingOptions = {}): Ending {
  const stop: string = trajectory.stopReason;
  if (stop === 'invalid') return { scorable: false, failure: 'invalid_format', detail: 'the trajectory ended with an invalid turn' };
  const cut = (TOKEN_BUDGET_STOPS as readonly string[]).includes(stop);
  if (cut && options.scoreTruncated !== true) {
    return { scorable: false, failure: 'truncated', detail: `the trajectory was cut by a token budget (${stop})` };
  }
  if (!cut && !(VALID_ENDINGS as readonly string[]).includes(stop)) {
    return { scorable: false, failure: 'no_answer', detail: `the trajectory ended without an answer (${stop})` };
  }
  const text = answerPart(trajectory.finalText);
  if (text === null) return { scorable: false, failure: 'no_answer', detail: 'the reply ends inside an unfinished <think> block' };
  return { scorable: true, text };
}

/** True when {@link answerOf} would score `trajectory` (used by the format metrics). */
export function endedValidly(trajectory: Trajectory, options: EndingOptions = {}): boolean {
  return answerOf(trajectory, options).scorable;
}

/** The result for a trajectory the rule does not score: `wrong`, not correct, `validFormat: false`, with the failure. */
export function unscoredResult(ending: Ending & { scorable: false }, wrong: number): RewardResult {
  return { reward: wrong, correct: false, validFormat: false, failure: ending.failure };
}

/** Options of {@link withValidEnding}. */
export interface WithValidEndingOptions extends EndingOptions {
  /** Reward given to a trajectory the rule does not score. @default -1 */
  readonly wrong?: number;
}

const wrapSchema = z.strictObject({ wrong: z.number().finite().optional(), scoreTruncated: z.boolean().optional() });

/**
 * Puts a custom reward under the shared ending rule: a trajectory that did not end validly ({@link answerOf}) gets
 * `wrong` with `validFormat: false` and the failure, without calling `reward`; otherwise `reward` is called with a
 * trajectory whose `finalText` is the answer part only (text after the last `</think>`). The built-in rewards
 * (`mathReward`, `exactMatch`, `sqlExecutionMatch`) already apply the same rule.
 * @example const r = withValidEnding((t, ex) => ({ reward: t.finalText.includes(ex.answer) ? 1 : -1, correct: …, validFormat: true }));
 * @throws ConfigError for invalid options.
 */
export function withValidEnding<E extends Example>(reward: Reward<E>, options: WithValidEndingOptions = {}): Reward<E> {
  const parsed = wrapSchema.safeParse(options);
  if (!parsed.success) {
    throw new ConfigError(
      'withValidEnding options',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  const wrong = options.wrong ?? -1;
  return (trajectory, example) => {
    const ending = answerOf(trajectory, options);
    if (!ending.scorable) return unscoredResult(ending, wrong);
    return reward({ ...trajectory, finalText: ending.text }, example);
  };
}
