import { describe, expect, it } from 'vitest';
import { Trainer, localBackend, type Environment, type GroupEvent, type Reward } from 'agentrl';

/**
 * A learning test that can fail: a two-action bandit on the embedded backend. The model answers with one token,
 * sampled from the top 2 of its first-position distribution (`topK: 2`); the action A (initially the LESS likely of
 * the two) is rewarded +1, the other −1. PPO must move the policy towards A:
 * P(A | {A, B}) = σ(logit_A − logit_B) must rise from < 0.5 to ≥ 0.9 within 12 steps, and every step must have had
 * non-zero advantages (the update is driven by the reward, not by chance).
 */
describe('Trainer learns on the embedded backend', () => {
  it('raises the rewarded action from < 50% to ≥ 90% of the two-action policy within 12 steps', async () => {
    const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: 64, seed: 21 });
    const env: Environment = {
      name: 'bandit',
      tools: [],
      initialMessages: (e) => [{ role: 'user', content: e.question }],
      step: async () => ({ done: true, reason: 'answer' }),
    };
    const renderer = await backend.renderer();
    const prompt = renderer.renderPrompt(env.initialMessages({ id: 'x', question: 'pick', answer: '' }), { tools: [], addGenerationPrompt: true });
    const logp = async (token: number) => (await backend.computeLogprobs([...prompt, token])).at(-1)!;

    // The two actions: the top 2 tokens at the answer position; A is the less likely one.
    const sampler = await backend.saveWeightsForSampler();
    const draws = await sampler.sample(prompt, { numSamples: 64, maxTokens: 1, topK: 2, seed: 3 });
    const actions = [...new Set(draws.map((d) => d.tokens[0]!))];
    expect(actions).toHaveLength(2);
    const lp = await Promise.all(actions.map(logp));
    const [A, B] = lp[0]! < lp[1]! ? [actions[0]!, actions[1]!] : [actions[1]!, actions[0]!];
    const pA = async () => 1 / (1 + Math.exp((await logp(B)) - (await logp(A))));
    const before = await pA();
    expect(before).toBeLessThan(0.5);

    const reward: Reward = (t) => {
      const ok = t.turns[0]?.completionTokens[0] === A;
      return { reward: ok ? 1 : -1, correct: ok, validFormat: true };
    };
    const trainer = new Trainer({
      backend,
      env,
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'pick', question: 'pick', answer: '' }],
      groupSize: 16,
      questionsPerBatch: 1,
      maxSteps: 12,
      budgets: { maxTurnTokens: 1, maxTrajectoryTokens: 64 },
      sampling: { temperature: 1, topP: 1, topK: 2 },
      optimizer: { learningRate: 2e-2 },
      progress: false,
    });
    const nonZeroAdvantages: number[] = [];
    trainer.on('group', (e: GroupEvent) => nonZeroAdvantages.push(e.advantages.filter((a) => a !== 0).length));
    try {
      await trainer.train();
      const after = await pA();
      // Every step trained on a mixed group (advantages ≠ 0), until the policy had converged.
      expect(nonZeroAdvantages.length).toBe(12);
      expect(nonZeroAdvantages[0]).toBeGreaterThan(0);
      expect(nonZeroAdvantages.filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
      expect(after).toBeGreaterThanOrEqual(0.9);
      console.log(`P(A | A,B): ${before.toFixed(3)} → ${after.toFixed(3)}; non-zero advantages per step: ${nonZeroAdvantages.join(' ')}`);
    } finally {
      await backend.close();
    }
  }, 120_000);
});
