import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { MetricsSink } from '../trainer/metrics-sink.js';
import type { TrajectoryEvent } from '../trainer/events.js';
import type { Turn } from '../types/trajectory.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const OTEL_SINK_OPTIONS = optionKeys<OtelSinkOptions>({ tracer: true, stepSpans: true });

/** Options of {@link otelSink}. */
export interface OtelSinkOptions {
  /** Where spans go. @default `trace.getTracer('agentrl')` (the global tracer provider your OpenTelemetry SDK registered) */
  readonly tracer?: Tracer;
  /** Also one `agentrl.step` span per step carrying the step metrics as attributes. @default true */
  readonly stepSpans?: boolean;
}

/** Start of the step's rollout and, per trajectory, when each of its turns ended (ms since the epoch). */
interface Timing {
  readonly rolloutStartMs: Map<number, number>;
  readonly turnEndsMs: Map<string, number[]>;
}

const key = (step: number, trajectoryId: string) => `${step}\u0000${trajectoryId}`;

/**
 * OpenTelemetry tracing of rollouts: one `agentrl.trajectory` span per finished trajectory (its own trace), with a
 * child span per assistant turn (`chat`, GenAI semantic conventions) and, under a turn that ran a tool, an
 * `execute_tool <name>` span. Attributes:
 * - trajectory: `agentrl.step`, `agentrl.trajectory.id`, `agentrl.example.id`, `agentrl.group_index`,
 *   `agentrl.stop_reason`, `agentrl.reward`, `agentrl.correct`, `agentrl.valid_format`, `agentrl.tool_calls`,
 *   `agentrl.turns`, `gen_ai.usage.input_tokens` (the last turn's prompt), `gen_ai.usage.output_tokens` (all sampled
 *   tokens), `agentrl.weights_version`; status ERROR with the cause when the trajectory failed (`stopReason: 'error'`);
 * - turn: `agentrl.turn.index`, `agentrl.action` (`tool | answer | invalid`), `agentrl.invalid_reason`,
 *   `agentrl.sample.stop_reason`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`;
 * - tool call: `gen_ai.tool.name`, `gen_ai.operation.name` = `execute_tool`, `agentrl.exec.status`,
 *   `agentrl.tool.output_bytes`, `agentrl.tool.ms`; status ERROR when the sandbox run was not `ok`.
 *
 * Timing: a trajectory span starts when its step's rollout starts and ends when the trajectory is scored; a turn
 * span runs from the end of the previous turn (or the trajectory's start) to the moment the engine reported the
 * turn; a tool span is the last `toolMs` of its turn. With `stepSpans`, one `agentrl.step` span per step (from the
 * rollout start to the update) carries the step's metrics (`reward/mean` → `agentrl.metric.reward/mean`).
 *
 * Needs `@opentelemetry/api` (an optional peer dependency of agentrl) and an SDK that registers a tracer provider
 * (e.g. `@opentelemetry/sdk-trace-node` with an OTLP exporter) — or pass `tracer`.
 * @example
 * ```ts
 * import { otelSink } from 'agentrl/otel';
 * new Trainer({ ...options, sinks: [otelSink()] });
 * ```
 */
export function otelSink(opts: OtelSinkOptions = {}): MetricsSink {
  checkOptions('otelSink options', OTEL_SINK_OPTIONS, opts, { optional: true });
  const tracer = opts.tracer ?? trace.getTracer('agentrl');
  const stepSpans = opts.stepSpans ?? true;
  const t: Timing = { rolloutStartMs: new Map(), turnEndsMs: new Map() };
  return {
    rolloutStart(e) {
      if (!t.rolloutStartMs.has(e.step)) t.rolloutStartMs.set(e.step, Date.now());
    },
    turn(e) {
      const k = key(e.step, e.trajectoryId);
      const ends = t.turnEndsMs.get(k) ?? [];
      ends.push(Date.now());
      t.turnEndsMs.set(k, ends);
    },
    trajectory(e) {
      const k = key(e.step, e.trajectory.id);
      // A retried trajectory reported turns of its failed tries first: its own turns are the last ones.
      const ends = (t.turnEndsMs.get(k) ?? []).slice(-e.trajectory.turns.length);
      t.turnEndsMs.delete(k);
      traceTrajectory(tracer, e, t.rolloutStartMs.get(e.step) ?? Date.now(), ends);
    },
    write(record) {
      const step = Number(record['step']);
      const startMs = t.rolloutStartMs.get(step);
      t.rolloutStartMs.delete(step);
      if (!stepSpans) return;
      const attributes: Attributes = { 'agentrl.step': step };
      for (const [name, v] of Object.entries(record))
        if (name !== 'step' && (typeof v === 'number' || typeof v === 'string')) attributes[`agentrl.metric.${name}`] = v;
      tracer.startSpan('agentrl.step', { kind: SpanKind.INTERNAL, startTime: startMs ?? Date.now(), attributes }).end();
    },
    close() {
      t.rolloutStartMs.clear();
      t.turnEndsMs.clear();
    },
  };
}

function traceTrajectory(tracer: Tracer, e: TrajectoryEvent, startMs: number, turnEndsMs: readonly number[]): void {
  const tr = e.trajectory;
  const endMs = Math.max(Date.now(), startMs);
  const outputTokens = tr.turns.reduce((n, u) => n + u.completionTokens.length, 0);
  const root = tracer.startSpan('agentrl.trajectory', {
    kind: SpanKind.INTERNAL,
    startTime: startMs,
    root: true,
    attributes: {
      'agentrl.step': e.step,
      'agentrl.trajectory.id': tr.id,
      'agentrl.example.id': tr.example.id,
      'agentrl.group_index': tr.groupIndex,
      'agentrl.stop_reason': tr.stopReason,
      'agentrl.reward': e.reward.reward,
      'agentrl.correct': e.reward.correct,
      'agentrl.valid_format': e.reward.validFormat,
      'agentrl.tool_calls': tr.toolCalls,
      'agentrl.turns': tr.turns.length,
      'gen_ai.usage.input_tokens': tr.turns.at(-1)?.promptTokens.length ?? 0,
      'gen_ai.usage.output_tokens': outputTokens,
      ...(tr.weightsVersion !== undefined ? { 'agentrl.weights_version': tr.weightsVersion } : {}),
      ...(e.reward.failure ? { 'agentrl.reward.failure': e.reward.failure } : {}),
    },
  });
  if (tr.stopReason === 'error') root.setStatus({ code: SpanStatusCode.ERROR, message: `${tr.error?.stage ?? 'error'}: ${tr.error?.message ?? ''}` });
  const parent = trace.setSpan(context.active(), root);
  let prevMs = startMs;
  tr.turns.forEach((turn, i) => {
    const turnEndMs = Math.min(Math.max(turnEndsMs[i] ?? endMs, prevMs), endMs);
    traceTurn(tracer, parent, turn, i, prevMs, turnEndMs);
    prevMs = turnEndMs;
  });
  root.end(endMs);
}

function traceTurn(tracer: Tracer, parent: ReturnType<typeof context.active>, turn: Turn, index: number, startMs: number, endMs: number): void {
  const span: Span = tracer.startSpan(
    'chat',
    {
      kind: SpanKind.CLIENT,
      startTime: startMs,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'agentrl.turn.index': index,
        'agentrl.action': turn.action.kind,
        'agentrl.sample.stop_reason': turn.stopReason,
        'gen_ai.usage.input_tokens': turn.promptTokens.length,
        'gen_ai.usage.output_tokens': turn.completionTokens.length,
        ...(turn.action.kind === 'invalid' ? { 'agentrl.invalid_reason': turn.action.reason } : {}),
      },
    },
    parent,
  );
  if (turn.action.kind === 'tool' && (turn.observation !== undefined || turn.exec !== undefined)) {
    const toolMs = Math.min(turn.toolMs ?? 0, endMs - startMs);
    const name = turn.action.call.function.name;
    const tool = tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: endMs - toolMs,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'agentrl.tool.ms': turn.toolMs ?? 0,
          ...(turn.observationBytes !== undefined ? { 'agentrl.tool.output_bytes': turn.observationBytes } : {}),
          ...(turn.exec ? { 'agentrl.exec.status': turn.exec.status } : {}),
        },
      },
      trace.setSpan(parent, span),
    );
    if (turn.exec && turn.exec.status !== 'ok') tool.setStatus({ code: SpanStatusCode.ERROR, message: turn.exec.status });
    tool.end(endMs);
  }
  span.end(endMs);
}
