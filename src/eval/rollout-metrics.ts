import type { Trajectory } from '../types/trajectory.js';
import type { RewardResult } from '../types/reward.js';
import { endedValidly } from '../reward/ending.js';

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Total tokens of a trajectory: the last prompt plus its completion (prompt and observations included). */
export function trajectoryTokens(t: Trajectory): number {
  const last = t.turns[t.turns.length - 1];
  return last ? last.promptTokens.length + last.completionTokens.length : 0;
}

/**
 * Rollout statistics of one round, under the documented metric names.
 * - `reward/mean`, `reward/correct`, `reward/format`: over the samples that were kept (a dropped sample, e.g.
 *   `gold_unparseable`, has no meaningful reward); 0 when none was kept. `reward/format` counts a sample only when
 *   its reward said `validFormat` AND the trajectory ended validly (the shared rule, `endedValidly`), so a custom
 *   reward that forgets the rule cannot inflate it.
 * - `rollout/valid_tool_call_rate`: valid tool calls / turns that attempted a tool call or were malformed
 *   (`tool` + `invalid` actions); a turn cut by the token budget (`invalid` with reason `truncated`) is neither;
 *   0 when there were none.
 * - `sandbox/*`: over executed tool calls; `sandbox/latency_ms` is the mean tool wall time of the calls that ran
 *   (a tool turn refused by a budget or ended by the environment did not run and is not averaged).
 * - `rollout/degenerate_group_rate`: groups whose rewards were all equal / groups.
 * - `rollout/error_rate`: trajectories that failed (`stopReason: 'error'`, dropped from training) / trajectories.
 * @param groups - trajectories per group with their rewards, same shape.
 */
export function rolloutMetrics(
  groups: readonly { trajectories: readonly Trajectory[]; rewards: readonly RewardResult[]; degenerate: boolean }[],
): Record<string, number> {
  const trajs = groups.flatMap((g) => g.trajectories);
  const rewards = groups.flatMap((g) => g.rewards);
  const kept = groups.flatMap((g) => g.rewards.flatMap((r, i) => (r.drop === true ? [] : [{ r, t: g.trajectories[i] }])));
  const turns = trajs.flatMap((t) => t.turns);
  const toolTurns = turns.filter((t) => t.action.kind === 'tool');
  const ranTurns = toolTurns.filter((t) => t.observation !== undefined || t.exec !== undefined);
  const invalidTurns = turns.filter((t) => t.action.kind === 'invalid' && t.action.reason !== 'truncated');
  const execs = turns.flatMap((t) => (t.exec ? [t.exec] : []));
  const rate = (n: number, d: number) => (d > 0 ? n / d : 0);
  return {
    'reward/mean': mean(kept.map(({ r }) => r.reward)),
    'reward/correct': mean(kept.map(({ r }) => (r.correct ? 1 : 0))),
    'reward/format': mean(kept.map(({ r, t }) => (r.validFormat && t !== undefined && endedValidly(t) ? 1 : 0))),
    'reward/dropped': rewards.filter((r) => r.drop).length,
    'rollout/trajectories': trajs.length,
    'rollout/valid_tool_call_rate': rate(toolTurns.length, toolTurns.length + invalidTurns.length),
    'rollout/error_rate': rate(trajs.filter((t) => t.stopReason === 'error').length, trajs.length),
    'rollout/invalid_rate': rate(trajs.filter((t) => t.stopReason === 'invalid').length, trajs.length),
    'rollout/tool_use_rate': rate(trajs.filter((t) => t.toolCalls > 0).length, trajs.length),
    'rollout/tool_calls': mean(trajs.map((t) => t.toolCalls)),
    // Calls per tool-calling turn: 1 unless the environment allows parallel tool calls.
    'rollout/calls_per_tool_turn': mean(toolTurns.map((t) => (t.action.kind === 'tool' ? (t.action.calls?.length ?? 1) : 0))),
    'rollout/turns': mean(trajs.map((t) => t.turns.length)),
    'rollout/trajectory_tokens': mean(trajs.map(trajectoryTokens)),
    'rollout/completion_tokens': mean(trajs.map((t) => t.turns.reduce((s, u) => s + u.completionTokens.length, 0))),
    'rollout/degenerate_group_rate': rate(groups.filter((g) => g.degenerate).length, groups.length),
    'sandbox/calls': execs.length,
    'sandbox/success_rate': rate(execs.filter((e) => e.status === 'ok').length, execs.length),
    'sandbox/error_rate': rate(execs.filter((e) => e.status !== 'ok' && e.status !== 'timeout').length, execs.length),
    'sandbox/timeout_rate': rate(execs.filter((e) => e.status === 'timeout').length, execs.length),
    'sandbox/latency_ms': mean(ranTurns.map((t) => t.toolMs ?? 0)),
  };
}

/**
 * {@link rolloutMetrics} of each environment's groups, under `env/<name>/<metric>` (a run of `mixEnvironments`).
 * @param groups - as for `rolloutMetrics`, each with the name of the environment it ran in.
 */
export function perEnvironmentMetrics(
  groups: readonly { trajectories: readonly Trajectory[]; rewards: readonly RewardResult[]; degenerate: boolean; env: string }[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of new Set(groups.map((g) => g.env))) {
    const m = rolloutMetrics(groups.filter((g) => g.env === name));
    for (const [k, v] of Object.entries(m)) out[`env/${name}/${k}`] = v;
    out[`env/${name}/groups`] = groups.filter((g) => g.env === name).length;
  }
  return out;
}
