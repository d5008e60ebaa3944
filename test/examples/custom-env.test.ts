import { describe, expect, it } from 'vitest';
import { COUNTRIES, demonstrations, makeDataset, runTeaPrice, teaEnv } from '../../examples/custom-env/tea-price.js';

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('custom-env example (tea-price): a new tool environment that learns', () => {
  it('the answer is only known through the tool: the same question has different answers on different days', () => {
    const days = makeDataset(200, 1);
    const byQuestion = new Map<string, Set<string>>();
    for (const d of days) byQuestion.set(d.question, (byQuestion.get(d.question) ?? new Set()).add(d.answer));
    expect(byQuestion.size).toBe(COUNTRIES.length);
    for (const answers of byQuestion.values()) expect(answers.size).toBeGreaterThan(5);
    // Two in three demonstrations call the tool (the rest guess), so RL has something to improve.
    const withTool = demonstrations(days, 1).filter((d) => typeof d.turns[0] === 'object' && 'call' in d.turns[0]).length;
    expect(withTool / days.length).toBeGreaterThan(0.55);
    expect(withTool / days.length).toBeLessThan(0.8);
    expect(teaEnv.tools.map((t) => t.function.name)).toEqual(['price']);
  });

  // Fresh weights score 0 (the model has never seen a tool call); cold start teaches the format; RL then makes the
  // model use the tool more often, so the reward keeps rising.
  it('reward rises: 0 from fresh weights → above 0.15 after cold start → RL ends higher than it starts, using the tool more', async () => {
    const lines: string[] = [];
    const r = await runTeaPrice({ sftSteps: 150, rlSteps: 8, seed: 1, log: (l) => lines.push(l) });
    console.log(lines.join('\n'));
    expect(r.before).toBe(0);
    expect(r.afterColdStart).toBeGreaterThan(0.15);
    expect(mean(r.rlRewards.slice(-3))).toBeGreaterThan(mean(r.rlRewards.slice(0, 3)));
    expect(mean(r.rlToolCalls.slice(-3))).toBeGreaterThan(mean(r.rlToolCalls.slice(0, 3)));
  }, 600_000);
});
