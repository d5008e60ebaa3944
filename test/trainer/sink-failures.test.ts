import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SINK_LIMITS, Trainer, type Environment, type Example, type MetricsSink, type Reward, type TrainerOptions, type WarningEvent } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

// Hazard: a metrics sink (the user's, or the run's own metrics.jsonl) that throws, never settles, or falls behind
// ends or hangs train(). Each failure is a `sink_failed` warning (once per sink and kind), the wait for a sink is
// bounded per call and at close, its queue is bounded (dropped calls counted), and the run completes.
const dataset: Example[] = ['a', 'b', 'c'].map((id) => ({ id, question: `q ${id}`, answer: 'A' }));
const env: Environment = {
  name: 'plain',
  tools: [],
  initialMessages: (e) => [{ role: 'user', content: e.question }],
  step: async (a) => ({ done: true, reason: a.kind === 'answer' ? 'answer' : 'invalid' }),
};
const reward: Reward = (t) => ({ reward: t.finalText.includes('A') ? 1 : -1, correct: t.finalText.includes('A'), validFormat: true });
const never = () => new Promise<never>(() => {});

afterEach(() => vi.restoreAllMocks());

async function train(sinks: MetricsSink[], over: Partial<TrainerOptions> = {}) {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ sample }) => (sample % 2 === 0 ? 'A' : 'B') });
  const trainer = new Trainer({
    backend: mockBackend({ renderer, sampler }),
    env,
    reward,
    loss: { kind: 'importance_sampling' },
    dataset,
    groupSize: 4,
    questionsPerBatch: 1,
    maxSteps: 3,
    progress: false,
    sinks,
    ...over,
  } as TrainerOptions);
  const warnings: WarningEvent[] = [];
  trainer.on('warning', (w) => warnings.push(w));
  const t0 = performance.now();
  const result = await trainer.train();
  return { result, sinkWarnings: warnings.filter((w) => w.code === 'sink_failed'), wallMs: performance.now() - t0 };
}

describe('a failing sink is a warning, never the end of the run', () => {
  it.each([
    [
      'write throws',
      {
        write: () => {
          throw new Error('disk full');
        },
      },
      /#0 failed in write\(\): disk full/,
    ],
    [
      'write rejects',
      {
        write: async () => {
          throw new TypeError('bad row');
        },
      },
      /#0 failed in write\(\): bad row/,
    ],
    [
      'trajectory and turn throw',
      {
        write: () => undefined,
        trajectory: () => {
          throw new Error('x');
        },
        turn: async () => {
          throw new Error('y');
        },
      },
      /#0 failed in (trajectory|turn)\(\)/,
    ],
    [
      'config, rolloutStart and warning throw',
      {
        write: () => undefined,
        config: () => {
          throw new Error('c');
        },
        rolloutStart: () => {
          throw new Error('r');
        },
        warning: () => {
          throw new Error('w');
        },
      },
      /#0 failed in config\(\): c/,
    ],
    [
      'close throws',
      {
        write: () => undefined,
        close: () => {
          throw new Error('gone');
        },
      },
      /#0 failed in close\(\): gone/,
    ],
  ] as Array<[string, MetricsSink, RegExp]>)('%s', async (_, sink, said) => {
    const ok: string[] = [];
    const { result, sinkWarnings } = await train([sink, { write: (r) => void ok.push(String(r['step'])) }]);
    expect(result.steps).toBe(3);
    expect(ok).toEqual(['1', '2', '3']); // the other sink got every row
    expect(sinkWarnings.filter((w) => /#0 failed in/.test(w.message))).toHaveLength(1); // once per sink and kind
    expect(sinkWarnings[0]!.message).toMatch(said);
    expect(sinkWarnings.some((w) => w.message.includes('#1'))).toBe(false);
  });

  it('the run’s own metrics.jsonl failing (its path is a folder) is a warning too', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'agentrl-sink-'));
    mkdirSync(join(logDir, 'metrics.jsonl'));
    const { result, sinkWarnings } = await train([], { logDir });
    expect(result.steps).toBe(3);
    expect(sinkWarnings).toHaveLength(1);
    expect(sinkWarnings[0]!.message).toMatch(/metrics\.jsonl sink failed in write\(\)/);
  });
});

describe('a stalled sink is bounded: per call, in its queue, and at close', () => {
  it('write never settles: the run waits once (callTimeoutMs), then not at all; one timeout warning', async () => {
    const { result, sinkWarnings, wallMs } = await train([{ write: () => never() }], { sinkLimits: { callTimeoutMs: 300 } });
    expect(result.steps).toBe(3);
    expect(sinkWarnings.map((w) => w.message).filter((m) => /did not finish write\(\) within 300 ms/.test(m))).toHaveLength(1);
    expect(wallMs).toBeLessThan(10_000);
  });

  it('trajectory never settles, with a queue of 5: calls past it are dropped and counted; close has a deadline', async () => {
    const written: number[] = [];
    const { result, sinkWarnings, wallMs } = await train(
      [{ write: (r) => void written.push(Number(r['step'])), trajectory: () => never(), close: () => never() }],
      { sinkLimits: { callTimeoutMs: 200, maxQueuedCalls: 5, closeTimeoutMs: 500 } },
    );
    expect(result.steps).toBe(3);
    const dropped = sinkWarnings.find((w) => /dropped \d+ call/.test(w.message));
    expect(dropped?.count).toBeGreaterThan(0);
    expect(sinkWarnings.some((w) => /did not close within 500 ms/.test(w.message))).toBe(true);
    expect(sinkWarnings.filter((w) => /did not finish/.test(w.message))).toHaveLength(1);
    expect(wallMs).toBeLessThan(15_000);
  });

  it('the options are validated', async () => {
    await expect(train([], { sinkLimits: { callTimeoutMs: -1 } })).rejects.toThrow(/sinkLimits\.callTimeoutMs/);
    await expect(train([], { sinkLimits: { maxQueuedCalls: 0 } })).rejects.toThrow(/sinkLimits\.maxQueuedCalls/);
  });

  it('under the defaults: write never settles (one sink), close never settles (another): the run ends within the limits', async () => {
    expect(DEFAULT_SINK_LIMITS).toEqual({ callTimeoutMs: 5_000, maxQueuedCalls: 1_000, closeTimeoutMs: 35_000 });
    const { result, sinkWarnings, wallMs } = await train([
      { write: () => never() },
      { write: () => undefined, trajectory: () => never(), close: () => never() },
    ]);
    expect(result.steps).toBe(3);
    expect(sinkWarnings.some((w) => /#0 did not finish write\(\) within 5000 ms/.test(w.message))).toBe(true);
    expect(sinkWarnings.some((w) => /#1 did not close within 35000 ms/.test(w.message))).toBe(true);
    expect(wallMs).toBeLessThan(DEFAULT_SINK_LIMITS.callTimeoutMs * 2 + DEFAULT_SINK_LIMITS.closeTimeoutMs + 10_000);
  }, 90_000);
});
