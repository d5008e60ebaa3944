import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Trainer, codeInterpreter, localBackend, mathReward, type TrainerEventName } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';

/**
 * A whole Trainer run on the embedded backend with a tiny randomly initialised model, the real local
 * sandbox and the real reward: guards the wiring of rollout → reward → advantages → datums → update,
 * the metrics file and the event order.
 */
describe('Trainer end to end (tiny model)', () => {
  it('runs a few steps, writes metrics.jsonl and a checkpoint, and emits events in order', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'agentrl-e2e-'));
    const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: 256, seed: 3 });
    const sandbox = localSandbox({ workers: 2, timeoutMs: 3000 });
    const reward = mathReward();
    const dataset = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) }));
    const trainer = new Trainer({
      backend,
      env: codeInterpreter({ sandbox, systemPrompt: null }),
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset,
      groupSize: 4,
      questionsPerBatch: 2,
      maxSteps: 3,
      budgets: { maxToolCalls: 2, maxTurns: 3, maxTrajectoryTokens: 256, maxTurnTokens: 24, maxToolResponseTokens: 32 },
      optimizer: { learningRate: 1e-3 },
      skipDegenerateGroups: false,
      logDir,
      checkpointEvery: 3,
      progress: false,
    });
    const events: TrainerEventName[] = [];
    const names: TrainerEventName[] = ['config', 'rollout:start', 'trajectory', 'group', 'rollout:end', 'step', 'checkpoint'];
    for (const n of names) trainer.on(n, () => events.push(n));
    try {
      const summary = await trainer.train();
      expect(summary.steps).toBe(3);
      expect(summary.rewardHistory).toHaveLength(3);
    } finally {
      await sandbox.close();
      await reward.close();
      await backend.close();
    }
    // Event order per step: rollout:start, 8 trajectories + 2 groups, rollout:end, step.
    const collapsed = events.filter((e, i) => e !== events[i - 1]);
    expect(collapsed).toEqual([
      'config',
      ...Array.from({ length: 3 }, () => ['rollout:start', 'trajectory', 'group', 'trajectory', 'group', 'rollout:end', 'step']).flat(),
      'checkpoint',
    ]);
    expect(events.filter((e) => e === 'trajectory')).toHaveLength(3 * 8);

    const lines = (await readFile(join(logDir, 'metrics.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.step)).toEqual([1, 2, 3]);
    for (const l of lines) {
      for (const k of [
        'reward/mean',
        'reward/correct',
        'rollout/valid_tool_call_rate',
        'rollout/degenerate_group_rate',
        'optim/loss',
        'time/rollout_s',
        'time/train_s',
      ]) {
        expect(Number.isFinite(l[k]), k).toBe(true);
      }
      expect(l['reward/mean']).toBeGreaterThanOrEqual(-1);
      expect(l['reward/mean']).toBeLessThanOrEqual(1);
    }
    expect(await readdir(join(logDir, 'checkpoints'))).toEqual(['step-00003']);
  }, 240_000);
});
