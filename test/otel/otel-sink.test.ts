import { afterEach, describe, expect, it, vi } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanStatusCode } from '@opentelemetry/api';
import { Trainer, codeInterpreter, exactMatch, type Environment, type Example, type MetricsSink } from 'agentrl';
import { otelSink } from 'agentrl/otel';
import { fakeSandbox, mockBackend, scriptedSampler, type Script } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const dataset: Example[] = [{ id: 'q1', question: 'What is 2 + 3?', answer: '5' }];
const budgets = { maxToolCalls: 2, maxTurns: 3, maxTurnTokens: 64, maxTrajectoryTokens: 512, maxToolResponseTokens: 32 };
// Branch 0 runs good code, branch 1 code the sandbox fails; after the tool's reply both answer.
const script: Script = ({ prompt, sample }) => (prompt.includes('<tool_response>') ? '5' : toolCall(sample === 0 ? 'print(2 + 3)' : 'boom()'));
const sandbox = () =>
  fakeSandbox(async (req) => {
    await new Promise((r) => setTimeout(r, 20));
    return req.code.includes('boom') ? { status: 'error', exitCode: 1, stderr: 'NameError: boom' } : { status: 'ok', stdout: '5\n' };
  });

async function run(env: Environment, sinks: MetricsSink[], extra: Record<string, unknown> = {}) {
  const renderer = await localRenderer();
  const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
  const trainer = new Trainer({
    backend,
    env,
    reward: exactMatch(),
    dataset,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    groupSize: 2,
    questionsPerBatch: 1,
    maxSteps: 1,
    budgets,
    progress: false,
    sinks,
    ...extra,
  });
  return trainer.train();
}

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}
const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

afterEach(() => vi.restoreAllMocks());

// Hazard: spans that do not nest (a turn under the wrong trajectory, a tool outside its turn), lose the attributes a
// trace viewer filters on, or hide a failed tool call / trajectory behind an OK status.
describe('otelSink (in-memory exporter)', () => {
  it('one trace per trajectory: trajectory → turns → tool call, nested in time, with tokens, reward, stop reason and status', async () => {
    const { exporter, tracer } = tracing();
    await run(codeInterpreter({ sandbox: sandbox() }), [otelSink({ tracer })]);
    const spans = exporter.getFinishedSpans();
    const roots = spans.filter((s) => s.name === 'agentrl.trajectory');
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((r) => r.spanContext().traceId)).size).toBe(2);
    for (const root of roots) {
      expect(parentOf(root)).toBeUndefined();
      const a = root.attributes;
      expect(a).toMatchObject({
        'agentrl.step': 1,
        'agentrl.example.id': 'q1',
        'agentrl.stop_reason': 'answer',
        'agentrl.turns': 2,
        'agentrl.tool_calls': 1,
        'agentrl.correct': true,
        'agentrl.reward': 1,
      });
      expect(a['gen_ai.usage.output_tokens']).toBeGreaterThan(10);
      expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
      const turns = spans.filter((s) => parentOf(s) === root.spanContext().spanId).sort((x, y) => ms(x.startTime) - ms(y.startTime));
      expect(turns.map((t) => [t.name, t.attributes['agentrl.turn.index'], t.attributes['agentrl.action']])).toEqual([
        ['chat', 0, 'tool'],
        ['chat', 1, 'answer'],
      ]);
      expect(ms(turns[0]!.startTime)).toBeGreaterThanOrEqual(ms(root.startTime));
      expect(ms(turns[1]!.startTime)).toBeGreaterThanOrEqual(ms(turns[0]!.endTime));
      expect(ms(turns[1]!.endTime)).toBeLessThanOrEqual(ms(root.endTime));
      const tools = spans.filter((s) => parentOf(s) === turns[0]!.spanContext().spanId);
      expect(tools).toHaveLength(1);
      const tool = tools[0]!;
      expect(tool.name).toBe('execute_tool code_interpreter');
      expect(tool.attributes['gen_ai.tool.name']).toBe('code_interpreter');
      expect(ms(tool.startTime)).toBeGreaterThanOrEqual(ms(turns[0]!.startTime));
      expect(ms(tool.endTime)).toBeLessThanOrEqual(ms(turns[0]!.endTime) + 1e-6);
      expect(tool.attributes['agentrl.tool.ms'] as number).toBeGreaterThanOrEqual(15);
      expect(spans.filter((s) => parentOf(s) === turns[1]!.spanContext().spanId)).toHaveLength(0);
      const failed = a['agentrl.group_index'] === 1;
      expect(tool.attributes['agentrl.exec.status']).toBe(failed ? 'error' : 'ok');
      expect(tool.status.code).toBe(failed ? SpanStatusCode.ERROR : SpanStatusCode.UNSET);
    }
    const step = spans.filter((s) => s.name === 'agentrl.step');
    expect(step).toHaveLength(1);
    expect(step[0]!.attributes['agentrl.metric.reward/mean']).toBe(1);
  });

  it('a trajectory that failed (env.step threw) is an ERROR span naming the stage and cause', async () => {
    const { exporter, tracer } = tracing();
    const broken: Environment = {
      name: 'broken',
      tools: codeInterpreter({ sandbox: sandbox() }).tools,
      initialMessages: (ex) => [{ role: 'user', content: ex.question }],
      step: async () => {
        throw new Error('database is locked');
      },
    };
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await run(broken, [otelSink({ tracer, stepSpans: false })]);
    const roots = exporter.getFinishedSpans().filter((s) => s.name === 'agentrl.trajectory');
    expect(roots.length).toBeGreaterThan(0);
    for (const r of roots) {
      expect(r.attributes['agentrl.stop_reason']).toBe('error');
      expect(r.status).toEqual({ code: SpanStatusCode.ERROR, message: 'env_step: database is locked' });
    }
    expect(exporter.getFinishedSpans().some((s) => s.name === 'agentrl.step')).toBe(false);
  });
});

describe('MetricsSink hooks', () => {
  it('config, rolloutStart, turn, trajectory, write and eval reach a user sink in order; close comes last', async () => {
    const calls: string[] = [];
    let config: Record<string, unknown> = {};
    const sink: MetricsSink = {
      config: (c) => {
        calls.push('config');
        config = { ...c };
      },
      rolloutStart: (e) => void calls.push(`rolloutStart ${e.step}`),
      turn: (e) => void calls.push(`turn ${e.trajectoryId}#${e.turnIndex}`),
      trajectory: async (e) => {
        await new Promise((r) => setTimeout(r, 5));
        calls.push(`trajectory ${e.trajectory.id} ${e.reward.reward}`);
      },
      eval: (e) => void calls.push(`eval ${e.step} ${e.metrics['eval/average_at_n']}`),
      write: (r) => void calls.push(`write ${r['step']} ${r['reward/mean']}`),
      close: () => void calls.push('close'),
    };
    await run(codeInterpreter({ sandbox: sandbox() }), [sink], { eval: { dataset, every: 1, samples: 1 } });
    expect(config).toMatchObject({ groupSize: 2, maxSteps: 1, dataset: { examples: 1 } });
    expect(calls[0]).toBe('config');
    // With `eval` set the run is evaluated (and that point written) once before the first update, then step 1 starts.
    expect(calls[1]).toMatch(/^eval 0 /);
    expect(calls[2]).toMatch(/^write 0 /);
    expect(calls[3]).toBe('rolloutStart 1');
    expect(calls.filter((c) => c.startsWith('turn '))).toHaveLength(4);
    expect(calls.filter((c) => c.startsWith('trajectory ')).sort()).toEqual(['trajectory q1/0 1', 'trajectory q1/1 1']);
    expect(calls).toContain('write 1 1');
    expect(calls).toContain('eval 1 1');
    expect(calls.at(-1)).toBe('close');
  });

  it('a sink that throws in a hook is reported once and never stops training; a non-sink is a ConfigError', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const bad: MetricsSink = {
      write: () => undefined,
      trajectory: () => {
        throw new Error('disk full');
      },
      turn: async () => {
        throw new Error('network down');
      },
    };
    const summary = await run(codeInterpreter({ sandbox: sandbox() }), [bad]);
    expect(summary.steps).toBe(1);
    const msgs = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('metrics sink'));
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatch(/metrics sink #0 failed in (turn|trajectory)\(\): (disk full|network down)/);
    await expect(run(codeInterpreter({ sandbox: sandbox() }), [{ flush: () => 1 } as never])).rejects.toThrow(/sinks\.0: expected a MetricsSink/);
  });
});
