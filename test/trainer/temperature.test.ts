import { describe, expect, it } from 'vitest';
import { Trainer, localBackend, type Environment, type Reward } from 'agentrl';

/** A tool-free environment: one assistant turn, then done. */
const textOnly: Environment = {
  name: 'text-only',
  tools: [],
  initialMessages: (e) => [{ role: 'user', content: e.question }],
  step: async () => ({ done: true, reason: 'answer' }),
};
/** Rewards completions of even length, so groups are mixed and every datum has a non-zero advantage. */
const parity: Reward = (t) => {
  const ok = t.finalText.length % 2 === 0;
  return { reward: ok ? 1 : -1, correct: ok, validFormat: true };
};

describe('Trainer at temperature ≠ 1 on the embedded backend', () => {
  it('one on-policy step at T = 1.5, top-p 0.9: optim/clip_frac 0 and |optim/kl_sample_train| < 1e-4', async () => {
    // Hazard: the Trainer sampling at T but the learner scoring at T = 1 (biased ratio, spurious clipping).
    const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 5 });
    const trainer = new Trainer({
      backend,
      env: textOnly,
      reward: parity,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [0, 1, 2, 3].map((i) => ({ id: `p${i}`, question: `say ${i}`, answer: '' })),
      groupSize: 4,
      questionsPerBatch: 2,
      maxSteps: 1,
      budgets: { maxTurnTokens: 16, maxTrajectoryTokens: 128 },
      sampling: { temperature: 1.5, topP: 0.9 },
      skipDegenerateGroups: false,
      optimizer: { learningRate: 1e-3 },
      progress: false,
    });
    try {
      const { lastMetrics: m } = await trainer.train();
      expect(m['optim/tokens']).toBeGreaterThan(50);
      expect(m['optim/clip_frac']).toBe(0);
      expect(Math.abs(m['optim/kl_sample_train']!)).toBeLessThan(1e-4);
    } finally {
      await backend.close();
    }
  }, 120_000);
});
