/**
 * The ReTool outcome reward: the last `\boxed{}` in the final `window` characters of the model's
 * response (joined with the boxes right before it when only separators part them: `\boxed{3} and \boxed{5}`
 * is the list `3, 5`, so a hedge `\boxed{3} or \boxed{5}` never scores as `5`), compared with the reference by math equivalence in a worker with a hard timeout;
 * `correct` / `wrong` (+1 / −1 by default). The ReTool recipe's `score_answer` (KMnO4-zx/agentic-rl-lab `05-retool/reward.py`).
 */
import { z } from '../util/zod.js';
import { ConfigError } from '../errors/config-error.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { Reward } from '../types/reward.js';
import { extractLastBoxed, isBlankAnswer } from './math/extract-boxed.js';
import { mathEquivalentSync, type EquivalenceResult } from './math/equivalent.js';
import { MathCheckPool } from './math/pool.js';
import { answerOf, unscoredResult, type EndingOptions } from './ending.js';
import { sameOptionLetter } from './option-letter.js';
import { unreachable } from '../errors/internal-error.js';

/** Options of {@link mathReward}. */
export interface MathRewardOptions extends EndingOptions {
  /** Characters at the end of the response searched for the box (seed `ANSWER_WINDOW_CHARS`). @default 300 */
  readonly window?: number;
  /** Reward for a correct answer. @default 1 */
  readonly correct?: number;
  /** Reward for a wrong, missing, unparseable or timed-out answer. @default -1 */
  readonly wrong?: number;
  /** Per-check deadline in ms; a slower check scores `wrong` with `failure: 'timeout'`. @default 5000 */
  readonly timeoutMs?: number;
  /** Decimals compared when one side is a decimal literal (math-verify `float_rounding`). @default 6 */
  readonly floatRounding?: number;
  /** Worker threads of the reward's own pool (ignored when `pool` is given). @default min(2, cores) */
  readonly workers?: number;
  /** Share an existing pool; the reward's `close()` then leaves it open. */
  readonly pool?: MathCheckPool;
  /**
   * Run checks synchronously in the calling thread (no timeout). For tests and benchmarks only.
   * @default false
   */
  readonly inThread?: boolean;
}

/** A {@link Reward} that owns a worker pool; `close()` terminates it (idempotent). */
export type MathReward = Reward & { close(): Promise<void> };

const schema = z.strictObject({
  window: z.number().int().positive().optional(),
  correct: z.number().finite().optional(),
  wrong: z.number().finite().optional(),
  timeoutMs: z.number().positive().finite().optional(),
  floatRounding: z.number().int().min(0).max(15).optional(),
  workers: z.number().int().positive().optional(),
  pool: z.instanceof(MathCheckPool).optional(),
  inThread: z.boolean().optional(),
  scoreTruncated: z.boolean().optional(),
});

/**
 * Builds the math reward. Scores `trajectory.finalText` only — never the prompt or earlier
 * messages, so a `\boxed{}` in the question earns nothing — and only when the trajectory ended
 * validly (the shared rule, {@link answerOf}): only text after the last `</think>` is searched.
 *
 * Outcomes (`RewardResult`):
 * - the trajectory ended `invalid` → `wrong`, `validFormat: false`, `failure: 'invalid_format'`;
 * - cut by a token budget (`max_turn_tokens`, `max_trajectory_tokens`) → `wrong`, `validFormat: false`,
 *   `failure: 'truncated'` (with `scoreTruncated: true` it is scored like an answer);
 * - ended without an answer (`max_tool_calls`, `max_turns`, `aborted`, an unfinished `<think>`) → `wrong`,
 *   `validFormat: false`, `failure: 'no_answer'`;
 * - no closed `\boxed{…}` in the window, or the last box is blank (`\boxed{}`, `\boxed{\,}`, `\boxed{\text{}}`: an
 *   echo of "put your final answer within \boxed{}" is no answer) → `wrong`, `validFormat: false`, `failure: 'no_answer'`;
 * - the reference is a multiple-choice letter (`B`, `(B)`, `\text{B}`): correct when the box names that letter, alone
 *   or with its option text (`B) 12`, `(B) 12`); naming two letters is wrong (`optionLetter`, docs/metrics.md);
 * - equivalent → `correct`, `correct: true`;
 * - not equivalent → `wrong`;
 * - the prediction does not parse → `wrong`, `failure: 'unparseable_prediction'`;
 * - the check exceeded `timeoutMs` or its worker crashed → `wrong`, `failure: 'timeout'`;
 * - the reference answer is empty or does not parse → reward 0, `drop: true`,
 *   `failure: 'gold_unparseable'` (the sample is excluded and counted, never rewarded).
 * @throws ConfigError for invalid options (every issue with its dotted path).
 */
export function mathReward(options: MathRewardOptions = {}): MathReward {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    throw new ConfigError(
      'mathReward options',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  const window = options.window ?? 300;
  const correct = options.correct ?? 1;
  const wrong = options.wrong ?? -1;
  const timeoutMs = options.timeoutMs ?? 5000;
  const policy = options.floatRounding === undefined ? {} : { floatRounding: options.floatRounding };
  let pool = options.pool;
  const ownsPool = pool === undefined;

  const check = async (gold: string, pred: string): Promise<EquivalenceResult> => {
    if (options.inThread === true) return mathEquivalentSync(gold, pred, policy);
    pool ??= new MathCheckPool({ timeoutMs, ...(options.workers === undefined ? {} : { size: options.workers }) });
    return pool.check(gold, pred, { ...policy, timeoutMs });
  };

  const reward = async (trajectory: Trajectory, example: Example): Promise<RewardResult> => {
    const ending = answerOf(trajectory, options);
    if (!ending.scorable) return unscoredResult(ending, wrong);
    const answer = extractLastBoxed(ending.text, { window, joinAdjacent: true });
    if (answer === null || isBlankAnswer(answer)) return { reward: wrong, correct: false, validFormat: false, failure: 'no_answer' };
    if (example.answer.trim() === '') {
      return { reward: 0, correct: false, validFormat: true, answer, failure: 'gold_unparseable', drop: true };
    }
    const letter = sameOptionLetter(example.answer, answer);
    if (letter !== null) return { reward: letter ? correct : wrong, correct: letter, validFormat: true, answer };
    // Boxing marks both as LaTeX for the normaliser (`2,3` is a list there, not 2.3), as the recipe's `parse(f"${x}$")` (`05-retool/reward.py`).
    const result = await check(`\\boxed{${example.answer}}`, `\\boxed{${answer}}`);
    switch (result.status) {
      case 'ok':
        return result.equal ? { reward: correct, correct: true, validFormat: true, answer } : { reward: wrong, correct: false, validFormat: true, answer };
      case 'gold_unparseable':
        return { reward: 0, correct: false, validFormat: true, answer, failure: 'gold_unparseable', drop: true };
      case 'unparseable_prediction':
        return { reward: wrong, correct: false, validFormat: true, answer, failure: 'unparseable_prediction' };
      case 'timeout':
      case 'error':
        return { reward: wrong, correct: false, validFormat: true, answer, failure: 'timeout' };
      default:
        return unreachable(result.status, 'equivalence status');
    }
  };

  return Object.assign(reward, {
    close: async (): Promise<void> => {
      if (ownsPool && pool !== undefined) await pool.close();
      if (ownsPool) pool = undefined;
    },
  });
}
