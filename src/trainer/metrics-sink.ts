import { appendFile, mkdir } from '../platform/fs.js';
import { dirname } from '../platform/path.js';
import { progressStream } from '../platform/host.js';
import type { EvalEvent, RolloutStartEvent, TrajectoryEvent, WarningEvent } from './events.js';
import type { TurnEvent } from '../rollout/types.js';

/**
 * Where a run's record goes: pass sinks to `new Trainer({ sinks: [...] })` (the Trainer also uses this interface for
 * its own `metrics.jsonl` and progress line). Every method but `write` is optional; a sink implements what it stores.
 * Calls come in this order: `config` once at the start of `train()`; per step `rolloutStart`, then `turn` and
 * `trajectory` as the rollout runs, then `write` (and `eval` on eval steps) after the update; `close` once at the end
 * (also after a failure). Calls reach a sink in that order through one bounded queue (Trainer option `sinkLimits`):
 * a step's `write` is awaited before the next step for at most `callTimeoutMs` (5 s), the other methods are not
 * awaited, and `close` waits for what is queued for at most `closeTimeoutMs` (35 s). A sink that throws, rejects,
 * never settles or falls behind (queue full: calls dropped and counted) is a `warning` event (`sink_failed`, once per
 * sink and kind; also printed once with `console.warn`), never the run's end or a hang. Built-in: `jsonlSink`, `progressSink`, `otelSink` (`agentrl/otel`), `wandbSink` (`agentrl/wandb`).
 */
export interface MetricsSink {
  /**
   * Step metrics, one flat record per step: `{ step, ...metrics }` with the `step` event's names (`reward/mean`,
   * `optim/loss`, `time/rollout_s`, …; docs/metrics.md) and, on eval steps, the `eval/*` metrics.
   */
  write(record: Readonly<Record<string, number | string>>): Promise<void> | void;
  /**
   * The run's resolved configuration (defaults filled in) as plain JSON — what `config.json` holds: functions and
   * objects that are not plain data (backend, environment, reward) are replaced by a short description, the dataset
   * by its size.
   */
  config?(config: Readonly<Record<string, unknown>>): Promise<void> | void;
  /** A step's rollout begins (the `rollout:start` event). */
  rolloutStart?(e: RolloutStartEvent): Promise<void> | void;
  /** One assistant turn ended (the `turn` event: action, tokens, tool status and wall time). */
  turn?(e: TurnEvent & { readonly step: number }): Promise<void> | void;
  /** One finished, scored trajectory (the `trajectory` event: the whole trajectory and its reward). */
  trajectory?(e: TrajectoryEvent): Promise<void> | void;
  /** Held-out metrics of an evaluation during training (the `eval` event; also in that step's `write`). */
  eval?(e: EvalEvent): Promise<void> | void;
  /** The Trainer's `warning` events (the progress sink prints them). */
  warning?(e: WarningEvent): void;
  /** The run ended (finished, stopped, or failed): flush and release. */
  close?(): Promise<void> | void;
}

/** Appends one JSON object per line to `path` (created with its folder). */
export function jsonlSink(path: string): MetricsSink {
  let ready: Promise<unknown> | undefined;
  return {
    async write(record) {
      ready ??= mkdir(dirname(path), { recursive: true });
      await ready;
      await appendFile(path, JSON.stringify(record) + '\n');
    },
  };
}

/**
 * One progress line per step, each on a line of its own (appended, on a TTY too, so the history stays visible):
 * `step 3/20 ███░░ reward -0.250 correct 0.38 tool 0.91 valid 0.95 loss 0.012 | 4.1s`, and every `warning` on a line
 * of its own: `warning [degenerate_groups] step 3 (3/3): every group was degenerate …`.
 */
export function progressSink(opts: { maxSteps: number; stream?: NodeJS.WriteStream }): MetricsSink {
  const stream = opts.stream ?? progressStream();
  const width = 20;
  return {
    write(r) {
      const step = Number(r['step'] ?? 0);
      const filled = Math.round((step / opts.maxSteps) * width);
      const bar = '█'.repeat(filled) + '░'.repeat(Math.max(0, width - filled));
      const f = (k: string, d = 2) => (typeof r[k] === 'number' ? (r[k] as number).toFixed(d) : '-');
      const secs = (Number(r['time/rollout_s'] ?? 0) + Number(r['time/train_s'] ?? 0)).toFixed(1);
      const line =
        `step ${step}/${opts.maxSteps} ${bar} reward ${f('reward/mean', 3)} correct ${f('reward/correct')} ` +
        `tool ${f('rollout/tool_calls')} valid ${f('rollout/valid_tool_call_rate')} loss ${f('optim/loss', 4)} | ${secs}s`;
      // The held-out curve as it is computed (step 0: before the first update).
      const held = typeof r['eval/average_at_n'] === 'number' ? ` | held-out Average@n ${f('eval/average_at_n', 3)} Pass@n ${f('eval/pass_at_n', 3)}` : '';
      stream.write(line + held + '\n');
    },
    warning(e) {
      const where = [e.step !== undefined ? `step ${e.step}` : '', e.count !== undefined ? `(${e.count}${e.total !== undefined ? `/${e.total}` : ''})` : '']
        .filter(Boolean)
        .join(' ');
      stream.write(`warning [${e.code}]${where ? ` ${where}` : ''}: ${e.message}\n`);
    },
  };
}
