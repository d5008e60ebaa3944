import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, type Environment, type TrainerOptions } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { trainerOptionsSchema } from '../../src/trainer/config.js';
import { resolveTrainerOptions, type ResolvedTrainerOptions } from '../../src/trainer/resolved-options.js';
import { schemaKeyPaths } from '../../src/errors/config-issues.js';
import { batchSourceFor } from '../../src/trainer/choose-batch-source.js';
import { DEFAULT_BUDGETS } from '../../src/rollout/types.js';
import { localRenderer } from '../helpers/local-renderer.js';

// What each mode's batch source is built with, captured instead of rolling anything out.
const built = vi.hoisted(() => ({ last: undefined as { mode: string; options: Record<string, unknown> } | undefined }));
vi.mock('../../src/trainer/sync-batch-source.js', () => ({
  syncBatchSource: (options: Record<string, unknown>) => ((built.last = { mode: 'sync', options }), {}),
}));
vi.mock('../../src/trainer/group-stream.js', () => ({
  GroupStream: class {
    constructor(options: Record<string, unknown>) {
      built.last = { mode: 'streaming', options };
    }
  },
}));

type Mode = 'streaming' | 'sync';

/**
 * How every documented Trainer option takes effect, per mode. `rollout`: read by the mode's batch source; this test
 * sets it to `value` and checks that what each mode's source is built with changes (or that the config is refused
 * where the entry says so). `step`: read by the Trainer outside the batch source (the same code in both modes);
 * `test` names the test file that shows its effect. `container`: an object whose keys are entries of their own.
 */
type Entry =
  | { readonly kind: 'rollout'; readonly value: unknown; readonly refusedIn?: Mode }
  | { readonly kind: 'step'; readonly test: string }
  | { readonly kind: 'container' };

const rollout = (value: unknown, refusedIn?: Mode): Entry => ({ kind: 'rollout', value, ...(refusedIn ? { refusedIn } : {}) });
const step = (test: string): Entry => ({ kind: 'step', test: `test/${test}` });
const container: Entry = { kind: 'container' };

const otherEnv: Environment = { name: 'other', tools: [], initialMessages: () => [{ role: 'user', content: 'x' }], step: async () => ({ done: true }) };

const OPTIONS: Record<string, Entry> = {
  backend: step('trainer/e2e.test.ts'),
  env: rollout(otherEnv),
  reward: rollout(() => ({ reward: 1, correct: true, validFormat: true })),
  loss: step('trainer/algorithms.test.ts'),
  dataset: rollout([{ id: 'z', question: 'other', answer: '1' }]),
  groupSize: rollout(3),
  questionsPerBatch: rollout(3),
  maxSteps: step('trainer/budgets.test.ts'),
  budgets: container,
  'budgets.maxToolCalls': step('trainer/budgets.test.ts'),
  'budgets.maxTurns': step('trainer/budgets.test.ts'),
  'budgets.maxTrajectoryTokens': step('trainer/budgets.test.ts'),
  'budgets.maxTurnTokens': step('trainer/temperature.test.ts'),
  'budgets.maxToolResponseTokens': step('trainer/e2e.test.ts'),
  sampling: container,
  'sampling.temperature': rollout(0.5),
  'sampling.topP': rollout(0.9),
  'sampling.topK': rollout(5),
  optimizer: container,
  'optimizer.learningRate': step('trainer/algorithms.test.ts'),
  'optimizer.beta1': step('backend/tinker/tinker-backend.test.ts'),
  'optimizer.beta2': step('backend/tinker/tinker-backend.test.ts'),
  'optimizer.eps': step('backend/local-training.test.ts'),
  'optimizer.weightDecay': step('backend/local-training.test.ts'),
  'optimizer.gradClipNorm': step('backend/local-losses.test.ts'),
  'optimizer.schedule': step('trainer/algorithms.test.ts'),
  'optimizer.schedule.kind': step('trainer/algorithms.test.ts'),
  'optimizer.schedule.warmupSteps': step('trainer/algorithms.test.ts'),
  advantage: container,
  'advantage.normalize': step('trainer/failures.test.ts'),
  microBatch: container,
  'microBatch.maxTokens': step('trainer/learning.test.ts'),
  'microBatch.maxDatums': step('loss/pack.test.ts'),
  rollout: container,
  'rollout.failure': rollout({ kind: 'fail_fast' }),
  'rollout.trajectoryTimeoutMs': rollout(5000),
  'rollout.stepTimeoutMs': rollout(1500),
  'rollout.maxConcurrentGroups': rollout(2),
  'rollout.streaming': step('trainer/rollout-concurrency.test.ts'),
  'rollout.maxConcurrentTrajectories': rollout(4),
  onPrefixMismatch: rollout('split'),
  async: container,
  'async.maxStaleness': rollout(1, 'sync'),
  groupReward: rollout(() => [0, 0]),
  rewardTimeoutMs: rollout(1234),
  skipDegenerateGroups: step('trainer/algorithms.test.ts'),
  seed: rollout(7),
  shuffle: rollout(false),
  logDir: step('trainer/e2e.test.ts'),
  checkpointEvery: step('trainer/e2e.test.ts'),
  checkpointKeepLast: step('trainer/checkpoint-keep-last.test.ts'),
  resume: step('trainer/streaming.test.ts'),
  eval: container,
  'eval.dataset': step('trainer/eval-during-training.test.ts'),
  'eval.every': step('trainer/eval-during-training.test.ts'),
  'eval.samples': step('trainer/eval-during-training.test.ts'),
  'eval.concurrency': step('eval/evaluate.test.ts'),
  'eval.seed': step('eval/train-and-evaluate.test.ts'),
  trajectoryLog: container,
  'trajectoryLog.perStep': step('trainer/trajectory-log.test.ts'),
  progress: step('trainer/first-hour.test.ts'),
  sinks: step('otel/otel-sink.test.ts'),
  sinkLimits: container,
  'sinkLimits.callTimeoutMs': step('trainer/sink-failures.test.ts'),
  'sinkLimits.maxQueuedCalls': step('trainer/sink-failures.test.ts'),
  'sinkLimits.closeTimeoutMs': step('trainer/sink-failures.test.ts'),
  templateKwargs: rollout({ enable_thinking: false }),
  kl: container,
  'kl.coef': step('trainer/algorithms.test.ts'),
  'kl.reference': step('trainer/algorithms.test.ts'),
  'kl.estimator': step('trainer/algorithms.test.ts'),
  'kl.placement': step('trainer/algorithms.test.ts'),
  entropyBonus: container,
  'entropyBonus.coef': step('trainer/algorithms.test.ts'),
  rolloutCorrection: container,
  'rolloutCorrection.level': step('trainer/algorithms.test.ts'),
  'rolloutCorrection.mode': step('trainer/algorithms.test.ts'),
  'rolloutCorrection.cap': step('trainer/algorithms.test.ts'),
  dynamicSampling: container,
  'dynamicSampling.maxAttempts': step('trainer/algorithms.test.ts'),
  'dynamicSampling.metric': step('trainer/dapo-sampling.test.ts'),
  overlong: step('trainer/algorithms.test.ts'),
  updatesPerBatch: container,
  'updatesPerBatch.minibatches': step('trainer/algorithms.test.ts'),
  'updatesPerBatch.epochs': step('trainer/algorithms.test.ts'),
  distill: container,
  'distill.teacher': step('trainer/algorithms.test.ts'),
  'distill.coef': step('trainer/algorithms.test.ts'),
  runName: step('trainer/eval-during-training.test.ts'),
};

/** `{ a: { b: v } }` for path `a.b`. */
function nested(path: string, value: unknown): Record<string, unknown> {
  return path.split('.').reduceRight<unknown>((v, k) => ({ [k]: v }), value) as Record<string, unknown>;
}

/** Comparable form of what a source was built with: functions and objects by identity, examples by their first ids. */
function fingerprint(options: Record<string, unknown>, ids: Map<unknown, number>): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'function' || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype)) {
      if (!ids.has(v)) ids.set(v, ids.size);
      return `#${ids.get(v)}`;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const { newSampler: _fresh, examples, ...rest } = options;
  const it = examples as Iterator<{ id: string }>;
  const firstIds = Array.from({ length: 6 }, () => it.next().value?.id);
  return { ...(walk(rest) as object), firstIds };
}

describe('every documented Trainer option takes effect in every mode or is refused', () => {
  let base: TrainerOptions;
  beforeAll(async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    base = {
      backend: mockBackend({ renderer, sampler }),
      env: { name: 'base', tools: [], initialMessages: () => [{ role: 'user', content: 'q' }], step: async () => ({ done: true }) },
      reward: () => ({ reward: 0, correct: false, validFormat: true }),
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, question: `question ${i}`, answer: '1' })),
      groupSize: 2,
      questionsPerBatch: 2,
    };
  });

  it('the table lists exactly the schema keys (a new option cannot be added without saying how it takes effect)', () => {
    expect(Object.keys(OPTIONS).sort()).toEqual(schemaKeyPaths(trainerOptionsSchema).sort());
  });

  it('each step option names a test file that exercises it', () => {
    for (const [path, e] of Object.entries(OPTIONS)) {
      if (e.kind !== 'step') continue;
      expect(existsSync(e.test), `${path}: ${e.test}`).toBe(true);
      expect(readFileSync(e.test, 'utf8'), `${path} in ${e.test}`).toContain(path.split('.').at(-1)!);
    }
  });

  const run = { renderer: undefined as never, budgets: DEFAULT_BUDGETS, startAt: 0, weightsVersion: 0, signal: new AbortController().signal, onTurn: () => {} };
  const build = (o: ResolvedTrainerOptions) => {
    built.last = undefined;
    batchSourceFor(o, run);
    return built.last!;
  };

  it.each(['streaming', 'sync'] as const)('each rollout option changes what the %s source is built with, or is refused', (mode) => {
    const modeOpts = { rollout: { streaming: mode === 'streaming' } };
    const ids = new Map<unknown, number>();
    const baseline = build(resolveTrainerOptions({ ...base, ...modeOpts }));
    expect(baseline.mode).toBe(mode);
    const before = fingerprint(baseline.options, ids);
    const rolloutEntries = Object.entries(OPTIONS).filter((kv): kv is [string, Extract<Entry, { kind: 'rollout' }>] => kv[1].kind === 'rollout');
    expect(rolloutEntries.length).toBeGreaterThan(10);
    for (const [path, e] of rolloutEntries) {
      const over = nested(path, e.value);
      const opts = { ...base, ...over, rollout: { ...modeOpts.rollout, ...(over.rollout as object | undefined) } };
      if (e.refusedIn === mode) {
        expect(() => resolveTrainerOptions(opts), path).toThrow(ConfigError);
        try {
          resolveTrainerOptions(opts);
        } catch (err) {
          expect(
            (err as ConfigError).issues.map((i) => i.path),
            path,
          ).toContain(path);
        }
        continue;
      }
      const after = build(resolveTrainerOptions(opts));
      expect(after.mode, path).toBe(mode);
      expect(fingerprint(after.options, ids), `${path} has no effect in ${mode} mode`).not.toEqual(before);
    }
  });
});
