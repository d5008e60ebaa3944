import { describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, localBackend } from 'agentrl';
import { fakeSandbox } from 'agentrl/testing';
import { distillOptions, weaken } from '../../examples/distill/distill.js';

const MODEL = { layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 5 };
const dataset = Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, question: `What is ${i} + 2?`, answer: String(i + 2) }));

/** One distillation step of a student made from the teacher's weights (weakened `weakenSteps` times); its metrics. */
async function distillStep(weakenSteps: number): Promise<Record<string, number>> {
  const teacherBackend = localBackend(MODEL);
  const student = localBackend(MODEL);
  await weaken(student, weakenSteps, 1e-2);
  const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null });
  const trainer = new Trainer(
    distillOptions({
      student,
      teacher: await teacherBackend.saveWeightsForSampler(),
      env,
      dataset,
      steps: 1,
      learningRate: 1e-3,
      groupSize: 2,
      questionsPerBatch: 2,
    }),
  );
  const steps: Record<string, number>[] = [];
  trainer.on('step', (e) => steps.push(e.metrics));
  await trainer.train();
  await student.close();
  await teacherBackend.close();
  expect(steps).toHaveLength(1);
  return steps[0]!;
}

describe('distillation example (smoke, tiny model)', () => {
  it('the reverse KL to the teacher is ≈ 0 for an identical student and clearly positive for a weakened one, and trains', async () => {
    const same = await distillStep(0);
    expect(Math.abs(same['distill/reverse_kl_mean']!)).toBeLessThan(1e-3);
    const weak = await distillStep(3);
    expect(weak['distill/reverse_kl_mean']).toBeGreaterThan(0.05);
    // No task reward, yet the groups are trained on (the per-token distillation reward makes them informative).
    expect(weak['optim/datums']).toBeGreaterThan(0);
    expect(weak['optim/grad_norm']).toBeGreaterThan(0);
  });
});
