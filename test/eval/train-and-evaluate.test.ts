import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  DEFAULT_EVAL_SEED,
  Trainer,
  clusteredMeanInterval,
  defineTool,
  evalTable,
  evaluate,
  exactMatch,
  toolEnvironment,
  trainAndEvaluate,
  wilsonInterval,
  type Example,
  type Reward,
  type SamplingClient,
  type ToolContext,
} from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

type TeaExample = Example<{ country: 'Peru' | 'Chile'; prices: Record<'Peru' | 'Chile', number> }>;
const price = defineTool({
  name: 'price',
  description: 'Price of tea in a country, in cents.',
  inputSchema: z.object({ country: z.enum(['Peru', 'Chile']) }),
  execute: ({ country }, ctx: ToolContext<TeaExample>) => String(ctx.example.meta.prices[country]),
});
const env = toolEnvironment<TeaExample>({ name: 'tea', tools: [price], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
// typed meta reaches the reward, and exactMatch() is read without a cast
const reward: Reward<TeaExample> = (t, ex) => {
  const m = exactMatch()(t, ex);
  return { ...m, reward: m.correct ? 1 : ex.meta.country === 'Peru' ? 0 : 0.1 };
};
const example = (i: number): TeaExample => ({
  id: `d${i}`,
  question: `What does tea cost in ${i % 2 ? 'Chile' : 'Peru'}?`,
  answer: String(10 + i),
  meta: { country: i % 2 ? 'Chile' : 'Peru', prices: { Peru: 10 + i, Chile: 10 + i } },
});
const call = (country: string) => `<tool_call>\n{"name": "price", "arguments": {"country": "${country}"}}\n</tool_call>`;

describe('trainAndEvaluate: held-out eval → cold start → RL → held-out eval, one budgets object for every stage', () => {
  it('runs the stages in order, prints the table with 95% intervals, and hands every stage the same budgets', async () => {
    const renderer = await localRenderer();
    // The scripted "model": calls the tool, then copies its reply.
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt }) => (prompt.includes('<tool_response>') ? /<tool_response>\n(\d+)/.exec(prompt)![1]! : call(/in (\w+)\?/.exec(prompt)![1]!)),
    });
    const backend = mockBackend({ renderer, sampler, maxContextTokens: 512 });
    const lines: string[] = [];
    const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 64, maxToolResponseTokens: 8 };
    let seen: Trainer<TeaExample> | undefined;
    const train = Array.from({ length: 6 }, (_, i) => example(i));
    const r = await trainAndEvaluate({
      backend,
      env,
      reward,
      train,
      heldOut: [example(10), example(11), example(12)],
      budgets,
      eval: { samples: 2 },
      coldStart: {
        demonstrations: train.map((ex) => ({
          example: ex,
          turns: [{ call: { name: 'price', arguments: { country: ex.meta.country } } }, { answer: ex.answer }],
        })),
        steps: 2,
        batchSize: 2,
        learningRate: 1e-3,
      },
      rl: { maxSteps: 1, groupSize: 2, questionsPerBatch: 2, progress: false },
      log: (l) => lines.push(l),
      onTrainer: (t) => (seen = t),
    });
    expect(r.rows.map((x) => x.label)).toEqual(['fresh weights', 'cold start', 'cold start + RL']);
    expect(r.rows.every((x) => x.result.metrics['eval/average_at_n'] === 1)).toBe(true);
    expect(seen!.options.budgets).toMatchObject(budgets);
    expect(r.coldStart!.fit).toMatchObject({ total: 6, fit: 6 });
    expect(r.rl!.steps).toBe(1);
    expect(r.table.split('\n')[0]).toMatch(/^run +avg@2 +95% CI +pass@2 +95% CI +format +validtool +tools +turns$/);
    expect(r.table).toMatch(/cold start \+ RL +100\.0% +\[\d+\.\d–100\.0\] +100\.0% +\[\d+\.\d–100\.0\]/);
    expect(lines.at(-1)).toContain(r.table);
    expect(lines.some((l) => /^cold start: trained on 6 of 6 demonstrations/.test(l))).toBe(true);
    expect(lines.filter((l) => /^cold start step \d\/2 loss/.test(l))).toHaveLength(2); // progress, never silent
    // no cold start and no RL steps: one row
    const only = await trainAndEvaluate({ backend, env, reward, train, heldOut: [example(10)], budgets, rl: { maxSteps: 0 }, log: () => {} });
    expect(only.rows.map((x) => x.label)).toEqual(['fresh weights']);
  });

  it('a misspelt or wrongly typed option is a ConfigError naming it, before any work', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '1' }) });
    const base = { backend, env, reward, train: [example(1)], heldOut: [example(2)], log: () => {} };
    for (const [extra, path] of [
      [{ budget: {} }, "budget: unknown key (did you mean 'budgets'?)"],
      [{ budgets: { maxTurnToken: 3 } }, 'budgets.maxTurnToken'],
      [{ heldOut: [] }, 'heldOut'],
      [{ eval: { sample: 2 } }, 'eval.sample'],
    ] as const) {
      const e = await trainAndEvaluate({ ...base, ...(extra as object) } as never).catch((x: unknown) => x);
      expect(ConfigError.isInstance(e)).toBe(true);
      expect((e as Error).message).toContain(path);
    }
  });
});

describe('evaluate({ backend }) and the in-training eval: the same weights give the same number', () => {
  it('evaluate twice, and the Trainer’s step-0 eval, agree exactly; another seed samples otherwise', async () => {
    const renderer = await localRenderer();
    // A sampler whose answer depends on the seed it is given: the eval's number depends on the seeds alone.
    const seeds: (number | undefined)[] = [];
    const sampler: SamplingClient = {
      sample: async (_prompt, params) => {
        seeds.push(params.seed);
        return Array.from({ length: params.numSamples ?? 1 }, (_, i) => {
          const tokens = [...renderer.encode(String(10 + (((params.seed ?? 0) >>> (i * 3)) % 8))), renderer.stopTokens[0]!];
          return { tokens, logprobs: tokens.map(() => -1), stopReason: 'stop' as const };
        });
      },
      computeLogprobs: async (tokens) => tokens.map((_, i) => (i === 0 ? null : -1)),
    };
    const backend = mockBackend({ renderer, sampler, maxContextTokens: 256 });
    const heldOut = Array.from({ length: 8 }, (_, i) => example(i));
    const budgets = { maxToolCalls: 1, maxTurns: 2, maxTrajectoryTokens: 256, maxTurnTokens: 16, maxToolResponseTokens: 8 };
    const a = await evaluate({ backend, env, reward, examples: heldOut, n: 4, budgets });
    const b = await evaluate({ backend, env, reward, examples: heldOut, n: 4, budgets });
    expect(b.records).toEqual(a.records);
    expect(a.metrics['eval/average_at_n']).toBeGreaterThan(0);
    const other = await evaluate({ backend, env, reward, examples: heldOut, n: 4, budgets, sampling: { seed: DEFAULT_EVAL_SEED + 1 } });
    expect(other.records.map((r) => r.predictions)).not.toEqual(a.records.map((r) => r.predictions));
    const trainer = new Trainer<TeaExample>({
      backend,
      env,
      reward,
      dataset: heldOut,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      budgets,
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 1,
      progress: false,
      seed: 5,
      eval: { dataset: heldOut, every: 1, samples: 4 },
    });
    const evals: Record<string, number>[] = [];
    trainer.on('eval', (e) => evals.push(e.metrics));
    await trainer.train();
    for (const key of ['eval/average_at_n', 'eval/pass_at_n', 'eval/average_at_n_ci95_low', 'eval/format_rate'])
      expect(evals[0]![key], key).toBe(a.metrics[key]);
    // told otherwise: eval.seed
    const seeded = new Trainer<TeaExample>({
      backend,
      env,
      reward,
      dataset: heldOut,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      budgets,
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 1,
      progress: false,
      eval: { dataset: heldOut, every: 1, samples: 4, seed: DEFAULT_EVAL_SEED + 1 },
    });
    const evals2: Record<string, number>[] = [];
    seeded.on('eval', (e) => evals2.push(e.metrics));
    await seeded.train();
    expect(evals2[0]!['eval/average_at_n']).toBe(other.metrics['eval/average_at_n']);
  });

  it('backend and sampler together, or neither, is a ConfigError naming the key', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '1' });
    const backend = mockBackend({ renderer, sampler });
    const base = { env, reward, examples: [example(1)] };
    for (const [opts, path] of [
      [{ ...base, backend, sampler }, 'sampler: give either backend'],
      [{ ...base }, 'backend: missing'],
      [{ ...base, sampler }, 'renderer: missing'],
      [{ ...base, backend: {} }, 'backend: expected a TrainingBackend'],
    ] as const) {
      const e = await evaluate(opts as never).catch((x: unknown) => x);
      expect(ConfigError.isInstance(e)).toBe(true);
      expect((e as Error).message).toContain(path);
    }
  });
});

describe('intervals of Average@N and Pass@N', () => {
  it('clustered by problem for Average@N: the per-problem spread sets the error, not the sample count', () => {
    // 4 problems, all-or-nothing vs mixed within problems: same mean 0.5, very different noise
    const allOrNothing = clusteredMeanInterval([1, 1, 1, 0]);
    const mixed = clusteredMeanInterval([0.75, 0.75, 0.75, 0.75]);
    expect(allOrNothing.mean).toBe(0.75);
    expect(allOrNothing.stderr).toBeCloseTo(0.25, 12); // sd 0.5 over √4 problems
    expect(allOrNothing.low).toBeCloseTo(0.75 - 1.959963984540054 * 0.25, 12);
    expect(allOrNothing.high).toBe(1);
    // every problem alike: no zero-width interval claiming certainty, Wilson over the 4 problems instead
    expect(mixed).toMatchObject({ mean: 0.75, stderr: 0, low: wilsonInterval(3, 4).low, high: wilsonInterval(3, 4).high });
    expect(clusteredMeanInterval(Array(32).fill(0))).toMatchObject({ low: 0, high: wilsonInterval(0, 32).high });
    expect(wilsonInterval(0, 32).high).toBeGreaterThan(0.1);
    expect(clusteredMeanInterval([1, 1, 1, 0.9])).toMatchObject({ high: 1 }); // clipped at 100%
    expect(clusteredMeanInterval([0.3])).toMatchObject({ low: 0, high: 1 }); // one problem: unknown error
  });

  it('Wilson for Pass@N (the reference values of Wilson 1927 / Newcombe 1998)', () => {
    // Newcombe (1998) table I: 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605; 0/20 → 0–0.1611
    for (const [s, n, low, high] of [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
    ] as const) {
      const w = wilsonInterval(s, n);
      expect(w.low).toBeCloseTo(low, 4);
      expect(w.high).toBeCloseTo(high, 4);
    }
  });

  it('the table prints them, or ± stderr, or nothing; the positional form still works', () => {
    const r = {
      records: [],
      metrics: {
        'eval/average_at_n': 0.578,
        'eval/average_at_n_ci95_low': 0.45,
        'eval/average_at_n_ci95_high': 0.706,
        'eval/average_at_n_stderr': 0.065,
        'eval/pass_at_n': 0.719,
        'eval/pass_at_n_ci95_low': 0.546,
        'eval/pass_at_n_ci95_high': 0.844,
        'eval/pass_at_n_stderr': 0.079,
      },
    };
    expect(evalTable({ labelWidth: 10 }).row('x', r)).toMatch(/^x +57\.8% +\[45\.0–70\.6\] +71\.9% +\[54\.6–84\.4\]/);
    expect(evalTable({ labelWidth: 10, intervals: 'stderr' }).row('x', r)).toMatch(/^x +57\.8% +±6\.5 +71\.9% +±7\.9/);
    expect(evalTable({ labelWidth: 10, intervals: 'none' }).row('x', r)).toMatch(/^x +57\.8% +71\.9% /);
    expect(evalTable(10, 'tools').row('x', r)).toBe(evalTable({ labelWidth: 10, toolColumn: 'tools', intervals: 'none' }).row('x', r));
    expect(() => evalTable({ labelwidth: 10 } as never)).toThrow(/labelwidth: unknown key \(did you mean 'labelWidth'\?\)/);
  });
});

describe('config.json summarises the datasets', () => {
  it('the eval dataset is a count like the training set, not its rows', async () => {
    const { describeConfig } = await import('../../src/trainer/trajectory-log.js');
    const rows = Array.from({ length: 50 }, (_, i) => example(i));
    const c = describeConfig({ dataset: rows, eval: { dataset: rows.slice(0, 32), every: 5, samples: 2 }, maxSteps: 3 });
    expect(c).toEqual({ dataset: { examples: 50 }, eval: { dataset: { examples: 32 }, every: 5, samples: 2 }, maxSteps: 3 });
    expect(JSON.stringify(c)).not.toContain('What does tea cost');
  });
});
