import { describe, expect, it } from 'vitest';
import { demonstrationDatum } from 'agentrl/internal';
import { renderDemonstration } from '../../src/rollout/demonstration.js';
import {
  compareDemonstrations,
  compareEnv,
  compareReward,
  formatHeldOut,
  makeCompareDataset,
  runTeaCompare,
  COMPARE_BUDGETS,
} from '../../examples/custom-env/tea-compare.js';
import { localRenderer } from '../helpers/local-renderer.js';

describe('tea-compare example (parallel tool calls on the embedded backend): its task and demonstrations', () => {
  it('needs two prices: the answer is the cheaper country, and the demonstrations ask for both in one turn', async () => {
    const days = makeCompareDataset(40, 1);
    for (const d of days) {
      const prices = d.meta?.['prices'] as Record<string, number>;
      const [a, b] = [String(d.meta?.['a']), String(d.meta?.['b'])];
      expect(a).not.toBe(b);
      expect(prices[a]).not.toBe(prices[b]);
      expect(d.answer).toBe(prices[a]! < prices[b]! ? a : b);
    }
    expect(compareEnv.parallelToolCalls).toBe(true);
    const renderer = await localRenderer();
    const demo = compareDemonstrations(days, 1).find((x) => x.turns.length === 2)!;
    // The data turn renders as the two compact blocks a rollout parses as two calls (the text the example once wrote by hand).
    const rendered = await renderDemonstration(renderer, compareEnv, demo, { maxToolResponseTokens: COMPARE_BUDGETS.maxToolResponseTokens });
    const block = (c: unknown) => `<tool_call>\n{"name": "price", "arguments": {"country":"${String(c)}"}}\n</tool_call>`;
    expect(rendered.texts[0]).toBe(`${block(demo.example.meta?.['a'])}\n${block(demo.example.meta?.['b'])}`);
    const parsed = renderer.parseAssistant(rendered.texts[0]!, compareEnv.tools, { parallelToolCalls: true });
    expect(parsed.kind === 'tool' && parsed.calls.map((c) => c.function.arguments['country'])).toEqual([demo.example.meta?.['a'], demo.example.meta?.['b']]);
    // The demonstration renders through the environment: both tool responses follow the one call turn, then the answer.
    const datum = await demonstrationDatum(renderer, compareEnv, demo, { maxToolResponseTokens: COMPARE_BUDGETS.maxToolResponseTokens });
    const text = renderer.decode([...datum.modelInput, datum.targetTokens.at(-1)!]);
    const prices = demo.example.meta?.['prices'] as Record<string, number>;
    const ra = text.indexOf(`<tool_response>\n${prices[String(demo.example.meta?.['a'])]}`);
    const rb = text.indexOf(`<tool_response>\n${prices[String(demo.example.meta?.['b'])]}`, ra + 1);
    expect(ra).toBeGreaterThan(0);
    expect(rb).toBeGreaterThan(ra);
    expect(datum.modelInput.length + 1).toBeLessThanOrEqual(COMPARE_BUDGETS.maxTrajectoryTokens);
  });

  it('rewards only a turn that looked both prices up at once, plus the right country', () => {
    const ex = makeCompareDataset(1, 3)[0]!;
    const call = (n: number) => ({
      kind: 'tool' as const,
      content: '',
      raw: '',
      call: { type: 'function' as const, function: { name: 'price', arguments: {} } },
      calls: Array.from({ length: n }, () => ({ type: 'function' as const, function: { name: 'price', arguments: {} } })),
    });
    const traj = (n: number, final: string) => ({
      id: 't',
      example: ex,
      groupIndex: 0,
      messages: [],
      toolCalls: n,
      stopReason: 'answer' as const,
      finalText: final,
      turns: [
        { promptTokens: [1], completionTokens: [2], logprobs: [0], text: '', stopReason: 'stop' as const, action: call(n), observation: [] },
        {
          promptTokens: [1],
          completionTokens: [2],
          logprobs: [0],
          text: final,
          stopReason: 'stop' as const,
          action: { kind: 'answer' as const, content: final, raw: final },
        },
      ],
    });
    expect((compareReward(traj(2, ex.answer), ex) as { reward: number }).reward).toBe(1);
    expect((compareReward(traj(1, ex.answer), ex) as { reward: number }).reward).toBe(0.5);
    expect((compareReward(traj(2, 'Nowhere'), ex) as { reward: number }).reward).toBe(0.5);
  });

  // A shortened run of the whole example (the trained figures are in examples/custom-env/README.md): every phase runs
  // and the held-out table has its three rows, with rates that are shares of the sampled rollouts.
  it('smoke: cold start, held-out rows, one RL step and the table, end to end on the embedded backend', async () => {
    const lines: string[] = [];
    const r = await runTeaCompare({ sftSteps: 2, rlSteps: 1, evalDays: 2, evalSamples: 1, seed: 3, log: (l) => lines.push(l) });
    expect(r.heldOut.map((h) => h.phase)).toEqual(['fresh weights', 'after cold start (2 steps)', 'after RL (1 steps)']);
    for (const h of r.heldOut) {
      expect(h.rollouts).toBe(2);
      for (const x of [h.twoCallRate, h.rightPairRate, h.accuracy]) expect(x === 0 || x === 0.5 || x === 1).toBe(true);
      expect(h.rightPairRate).toBeLessThanOrEqual(h.twoCallRate);
      expect(h.reward).toBeCloseTo(0.5 * h.twoCallRate + 0.5 * h.accuracy, 10);
    }
    expect(r.rl).toHaveLength(1);
    expect(Number.isFinite(r.coldStartLoss)).toBe(true);
    const table = formatHeldOut(r.heldOut).split('\n');
    expect(table).toHaveLength(5);
    expect(table[0]).toContain('two-call turn');
    expect(lines.some((l) => l.startsWith('rl step 1/1'))).toBe(true);
  });
});
