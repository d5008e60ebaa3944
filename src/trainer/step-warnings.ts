import type { RolloutBudgets } from '../rollout/types.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { WarningEvent } from './events.js';

/** One scored group as the warnings see it. */
export interface WarnedGroup {
  readonly trajectories: readonly Trajectory[];
  readonly rewards: readonly (RewardResult & { shapeWarning?: string })[];
  readonly degenerate: boolean;
  readonly droppedGroup: boolean;
}

/** Steps in a row with every group degenerate before `degenerate_groups` is emitted. @default 3 */
export const DEGENERATE_STEPS_WARNING = 3;

/**
 * Watches each step for the mistakes that otherwise fail silently and returns the warnings to emit (each at most
 * once per run, with counts): most tool calls name a tool the environment does not offer (`unknown_tool_calls`);
 * most turns are cut by `budgets.maxTurnTokens` (`turn_budget_exhausted`); every group degenerate for
 * `degenerateSteps` steps in a row (`degenerate_groups`, with the likely cause); a reward result of the wrong shape
 * (`reward_shape`).
 */
export class StepWarnings {
  readonly #emitted = new Set<string>();
  #degenerateRun = 0;
  constructor(private readonly opts: { envName: string; toolNames: readonly string[]; budgets: RolloutBudgets; degenerateSteps?: number }) {}

  /** The warnings for one step's scored groups. */
  check(step: number, groups: readonly WarnedGroup[]): WarningEvent[] {
    const out: WarningEvent[] = [];
    const once = (e: WarningEvent) => {
      if (this.#emitted.has(e.code)) return;
      this.#emitted.add(e.code);
      out.push(e);
    };
    const trajectories = groups.flatMap((g) => g.trajectories);
    const turns = trajectories.flatMap((t) => t.turns);

    // Tool calls naming a tool the environment does not offer (each is an `invalid` turn that ends the trajectory).
    const attempts = turns.filter(
      (t) => t.action.kind === 'tool' || (t.action.kind === 'invalid' && t.action.reason !== 'truncated' && t.text.includes('<tool_call>')),
    );
    const unknown = turns.filter((t) => t.action.kind === 'invalid' && t.action.reason === 'unknown_tool');
    if (attempts.length > 0 && unknown.length * 2 > attempts.length) {
      const names = [...new Set(unknown.map((t) => /"name"\s*:\s*"([^"]*)"/.exec(t.text)?.[1]).filter((n): n is string => !!n))].slice(0, 5);
      once({
        step,
        code: 'unknown_tool_calls',
        count: unknown.length,
        total: attempts.length,
        message:
          `${unknown.length} of ${attempts.length} tool calls name a tool environment '${this.opts.envName}' does not offer` +
          `${names.length ? ` (${names.map((n) => `'${n}'`).join(', ')})` : ''}; it offers ${this.opts.toolNames.map((n) => `'${n}'`).join(', ') || 'no tools'}. ` +
          `Check the tool names in your prompt and demonstrations match env.tools.`,
      });
    }

    // Turns cut by the per-turn token budget.
    const cut = trajectories.filter((t) => t.stopReason === 'max_turn_tokens');
    if (trajectories.length > 0 && cut.length * 2 > trajectories.length) {
      once({
        step,
        code: 'turn_budget_exhausted',
        count: cut.length,
        total: trajectories.length,
        message: `${cut.length} of ${trajectories.length} trajectories ended because a turn reached budgets.maxTurnTokens (${this.opts.budgets.maxTurnTokens} tokens) before its stop token; raise budgets.maxTurnTokens or ask for shorter replies`,
      });
    }

    // Every group degenerate (all samples of each group scored alike): no advantage, no update.
    const live = groups.filter((g) => !g.droppedGroup);
    if (live.length > 0 && live.every((g) => g.degenerate)) this.#degenerateRun++;
    else this.#degenerateRun = 0;
    const n = this.opts.degenerateSteps ?? DEGENERATE_STEPS_WARNING;
    if (this.#degenerateRun === n) {
      once({
        step,
        code: 'degenerate_groups',
        count: n,
        total: n,
        message: `every group was degenerate (all samples scored alike) for ${n} steps in a row, so nothing was trained: ${this.#likelyCause(live)}`,
      });
    }

    // Reward results with missing / non-boolean `correct` or `validFormat`.
    const bad = groups.flatMap((g) => g.rewards).filter((r) => r.shapeWarning);
    if (bad.length > 0) {
      once({
        step,
        code: 'reward_shape',
        count: bad.length,
        total: groups.reduce((k, g) => k + g.rewards.length, 0),
        message: `the reward returned a result of the wrong shape ${bad.length} time(s): ${bad[0]!.shapeWarning}`,
      });
    }
    return out;
  }

  /** The likeliest reason every group is degenerate, from the last step's samples. */
  #likelyCause(groups: readonly WarnedGroup[]): string {
    const trajectories = groups.flatMap((g) => g.trajectories);
    const rewards = groups.flatMap((g) => g.rewards.filter((r) => !r.drop).map((r) => r.reward));
    const budgetEnds = trajectories.filter((t) => t.stopReason === 'max_turn_tokens' || t.stopReason === 'max_trajectory_tokens').length;
    if (trajectories.length > 0 && budgetEnds * 2 > trajectories.length) {
      return `budget too small: ${budgetEnds} of ${trajectories.length} trajectories ran out of tokens (budgets.maxTurnTokens ${this.opts.budgets.maxTurnTokens}, maxTrajectoryTokens ${this.opts.budgets.maxTrajectoryTokens})`;
    }
    const distinct = new Set(rewards);
    const invalid = trajectories.filter((t) => t.stopReason === 'invalid').length;
    if (distinct.size === 1 && trajectories.length > 0) {
      const value = [...distinct][0]!;
      const correct = groups.flatMap((g) => g.rewards).filter((r) => r.correct).length;
      const usedTools = trajectories.filter((t) => t.toolCalls > 0).length;
      if (correct === 0 && usedTools * 2 > trajectories.length) {
        return (
          `every sample scored ${value} and none was correct although ${usedTools} of ${trajectories.length} called a tool: ` +
          `check that the final reply can match what the reward expects (e.g. exactMatch compares it with example.answer), or train longer on demonstrations`
        );
      }
      if (correct === 0) {
        return (
          `every sample scored ${value} and none was correct (${invalid} of ${trajectories.length} malformed): the model likely cannot do the task yet ` +
          `(an untrained model does not know the tool-call format); warm it up with coldStart() on demonstrations first (docs/custom-environment.md)`
        );
      }
      return `every sample scored ${value}: the reward may be constant (check that it depends on the answer), or the task is already solved`;
    }
    return 'each group scored alike but groups differ: raise groupSize or the sampling temperature for more varied samples';
  }
}
