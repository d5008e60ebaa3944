import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DemonstrationError,
  RewardShapeError,
  Trainer,
  defineTool,
  demonstrationDatum,
  toolEnvironment,
  type Example,
  type Reward,
  type TrainerOptions,
  type WarningEvent,
} from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const add = defineTool({
  name: 'add',
  description: 'Add two integers.',
  inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: ({ a, b }) => String(a + b),
});
const env = toolEnvironment({ name: 'calculator', tools: [add], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
const call = (name: string, args: unknown) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(args)}}\n</tool_call>`;
const dataset: Example[] = [
  { id: 'q1', question: 'What is 2 + 3?', answer: '5' },
  { id: 'q2', question: 'What is 1 + 1?', answer: '2' },
];

describe('demonstrationDatum refuses demonstrations the environment cannot play', () => {
  it('a call to a tool the env does not offer is a DemonstrationError naming the example, turn and the tools offered', async () => {
    const renderer = await localRenderer();
    const e = await demonstrationDatum(
      renderer,
      env,
      { example: dataset[0]!, turns: [{ text: call('sum', { a: 2, b: 3 }) }, { text: '5' }] },
      { maxToolResponseTokens: 16 },
    ).catch((x: unknown) => x);
    expect(DemonstrationError.isInstance(e)).toBe(true);
    expect((e as DemonstrationError).exampleId).toBe('q1');
    expect((e as DemonstrationError).turn).toBe(0);
    expect((e as Error).message).toMatch(/'sum'.*does not offer.*tools: add/);
  });

  it('a call omitting a required argument names the argument', async () => {
    const renderer = await localRenderer();
    const e = await demonstrationDatum(
      renderer,
      env,
      { example: dataset[0]!, turns: [{ text: call('add', { a: 2 }) }, { text: '5' }] },
      { maxToolResponseTokens: 16 },
    ).catch((x: unknown) => x);
    expect(DemonstrationError.isInstance(e)).toBe(true);
    expect((e as DemonstrationError).field).toBe('call.arguments.b');
    expect((e as Error).message).toMatch(/required, missing/);
  });

  it('turns after the final answer are refused instead of silently dropped', async () => {
    const renderer = await localRenderer();
    const e = await demonstrationDatum(
      renderer,
      env,
      { example: dataset[0]!, turns: [{ text: '5' }, { text: call('add', { a: 2, b: 3 }) }] },
      { maxToolResponseTokens: 16 },
    ).catch((x: unknown) => x);
    expect(DemonstrationError.isInstance(e)).toBe(true);
    expect((e as Error).message).toMatch(/1 more turn/);
  });

  it('a valid demonstration renders the tool result from the env and trains only on the assistant tokens', async () => {
    const renderer = await localRenderer();
    const d = await demonstrationDatum(
      renderer,
      env,
      { example: dataset[0]!, turns: [{ text: call('add', { a: 2, b: 3 }) }, { text: '5' }] },
      { maxToolResponseTokens: 16 },
    );
    const all = renderer.decode([...d.modelInput, d.targetTokens.at(-1)!]);
    expect(all).toContain('<tool_response>\n5\n</tool_response>');
    const trained = renderer.decode(d.targetTokens.filter((_, i) => d.mask[i] === 1));
    expect(trained).not.toContain('tool_response');
    expect(trained).toContain('"name": "add"');
  });
});

async function run(over: Partial<TrainerOptions>, script: (prompt: string) => string, steps = 1) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ prompt }) => script(prompt) });
  const warnings: WarningEvent[] = [];
  const trainer = new Trainer({
    backend: mockBackend({ renderer, sampler }),
    env,
    reward: ((t, ex) => ({ reward: t.finalText.trim() === ex.answer ? 1 : 0, correct: t.finalText.trim() === ex.answer, validFormat: true })) as Reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 2,
    questionsPerBatch: 2,
    maxSteps: steps,
    shuffle: false,
    progress: false,
    ...over,
  });
  trainer.on('warning', (w) => warnings.push(w));
  return { trainer, warnings };
}

describe('a reward of the wrong shape fails at its first call, naming the trajectory, the value and the shape', () => {
  for (const [label, value, problem] of [
    ['a bare number', 1, /expected an object, got number/],
    ['{ score: 1 }', { score: 1 }, /no 'reward' field \(it has 'score'\)/],
    ["{ reward: '1' }", { reward: '1' }, /'reward' is a string, expected a number/],
  ] as const) {
    it(label, async () => {
      let calls = 0;
      const { trainer } = await run({ reward: (() => (calls++, value)) as unknown as Reward }, () => '5');
      const e = await trainer.train().catch((x: unknown) => x);
      expect(RewardShapeError.isInstance(e)).toBe(true);
      expect((e as RewardShapeError).trajectoryId).toMatch(/^q[12]\/\d$/);
      expect((e as Error).message).toMatch(problem);
      expect((e as Error).message).toContain(JSON.stringify(value));
      expect((e as Error).message).toContain('Expected { reward: number, correct: boolean, validFormat: boolean }');
      expect(calls).toBeLessThanOrEqual(4); // the first step's scoring, nothing trained after it
    });
  }

  it('a result without booleans is used (correct = reward > 0) and warned about once as reward_shape', async () => {
    const { trainer, warnings } = await run(
      { reward: ((t: { finalText: string }) => ({ reward: t.finalText.includes('5') ? 1 : 0 })) as unknown as Reward },
      () => '5',
      2,
    );
    const summary = await trainer.train();
    expect(summary.steps).toBe(2);
    const w = warnings.filter((x) => x.code === 'reward_shape');
    expect(w).toHaveLength(1);
    expect(w[0]!.count).toBe(4);
    expect(w[0]!.message).toMatch(/'correct' and 'validFormat' are not a boolean/);
  });
});

describe('warnings for silent failures', () => {
  it('most tool calls naming an unknown tool → unknown_tool_calls with counts, the names used and the tools offered', async () => {
    const { trainer, warnings } = await run({}, (p) => (p.includes('<tool_response>') ? '5' : call('calculate', { a: 2, b: 3 })));
    await trainer.train();
    const w = warnings.find((x) => x.code === 'unknown_tool_calls');
    expect(w).toMatchObject({ count: 4, total: 4 });
    expect(w!.message).toMatch(/'calculate'.*offers 'add'/);
  });

  it('no unknown_tool_calls warning when the calls name the offered tool', async () => {
    const { trainer, warnings } = await run({}, (p) => (p.includes('<tool_response>') ? '5' : call('add', { a: 2, b: 3 })));
    await trainer.train();
    expect(warnings.map((w) => w.code)).not.toContain('unknown_tool_calls');
  });

  it('most turns cut by maxTurnTokens → turn_budget_exhausted naming the budget', async () => {
    const { trainer, warnings } = await run({ budgets: { maxTurnTokens: 4 } }, () => 'the answer is certainly five, I am sure of it');
    await trainer.train();
    const w = warnings.find((x) => x.code === 'turn_budget_exhausted');
    expect(w).toMatchObject({ count: 4, total: 4 });
    expect(w!.message).toContain('budgets.maxTurnTokens (4 tokens)');
  });

  it('every group degenerate for 3 steps → one degenerate_groups warning naming the untrained model as the likely cause', async () => {
    const { trainer, warnings } = await run({}, () => 'seven', 4);
    await trainer.train();
    const w = warnings.filter((x) => x.code === 'degenerate_groups');
    expect(w).toHaveLength(1);
    expect(w[0]!.step).toBe(3);
    expect(w[0]!.message).toMatch(/every sample scored 0 and none was correct.*coldStart/);
  });

  it('no degenerate_groups warning while groups are mixed', async () => {
    let n = 0;
    const { trainer, warnings } = await run({}, () => (n++ % 2 === 0 ? '5' : '2'), 4);
    await trainer.train();
    expect(warnings.map((w) => w.code)).not.toContain('degenerate_groups');
  });
});

describe('budgets default within the backend context', () => {
  it('unset budgets fit a 512-token backend silently; a budget set over the context is capped with a warning', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '5' });
    const common = {
      backend: mockBackend({ renderer, sampler, maxContextTokens: 512 }),
      env,
      reward: (() => ({ reward: 1, correct: true, validFormat: true })) as Reward,
      loss: { kind: 'ppo' as const, clipLow: 0.8, clipHigh: 1.28 },
      dataset,
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 1,
      progress: false as const,
    };
    const fitted = new Trainer(common);
    expect(fitted.options.budgets).toMatchObject({ maxTrajectoryTokens: 512, maxTurnTokens: 512, maxToolResponseTokens: 128 });
    const warnings: WarningEvent[] = [];
    fitted.on('warning', (w) => warnings.push(w));
    await fitted.train();
    expect(warnings.map((w) => w.code)).not.toContain('budget_capped');

    const given = new Trainer({ ...common, budgets: { maxTrajectoryTokens: 4096, maxTurnTokens: 100 } });
    expect(given.options.budgets).toMatchObject({ maxTrajectoryTokens: 4096, maxTurnTokens: 100 });
    given.on('warning', (w) => warnings.push(w));
    await given.train();
    expect(warnings.map((w) => w.code)).toContain('budget_capped');
  });
});

describe('an environment that throws is named with the trajectory and turn, the cause kept', () => {
  const boom = {
    name: 'boom-env',
    tools: env.tools,
    initialMessages: env.initialMessages,
    step: async () => {
      throw new Error('database is locked');
    },
  };

  it('drop: the warning names env, trajectory, turn and cause; the trajectory keeps env, turn and cause', async () => {
    const { trainer, warnings } = await run({ env: boom }, (p) => (p.includes('<tool_response>') ? '5' : call('add', { a: 2, b: 3 })));
    const errors: unknown[] = [];
    trainer.on('trajectory', (e) => errors.push(e.trajectory.error));
    await trainer.train();
    expect(errors[0]).toMatchObject({ stage: 'env_step', env: 'boom-env', turn: 1, message: 'database is locked' });
    expect((errors[0] as { cause: Error }).cause.message).toBe('database is locked');
    const w = warnings.find((x) => x.code === 'rollout_error');
    expect(w!.message).toMatch(/first: q1\/0 in env 'boom-env' at turn 1 \(env_step\): database is locked/);
  });

  it('fail_fast: RolloutFailedError names env and turn and keeps the cause', async () => {
    const { trainer } = await run({ env: boom, rollout: { failure: { kind: 'fail_fast' } } }, () => call('add', { a: 2, b: 3 }));
    const e = (await trainer.train().catch((x: unknown) => x)) as Error & { env?: string; turn?: number };
    expect(e.message).toMatch(/rollout q\d\/\d \(in env 'boom-env', turn 1\) failed at env_step: database is locked/);
    expect(e).toMatchObject({ env: 'boom-env', turn: 1 });
    expect((e.cause as Error).message).toBe('database is locked');
  });
});

describe('coldStart', () => {
  it('renders demonstrations through the env and trains on mixed-length batches (each batch mixes direct answers and tool calls)', async () => {
    const { coldStart } = await import('agentrl');
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }), maxContextTokens: 4096 });
    const examples: Example[] = Array.from({ length: 32 }, (_, i) => ({ id: `e${i}`, question: `What is ${i} + 1?`, answer: String(i + 1) }));
    const demos = examples.map((example, i) => ({ example, turns: i % 2 === 0 ? [call('add', { a: i, b: 1 }), example.answer] : [example.answer] }));
    const r = await coldStart(backend, env, demos, { steps: 4, batchSize: 8, learningRate: 1e-3, seed: 1, maxToolResponseTokens: 16 });
    expect(r).toMatchObject({ datums: 32, skipped: 0 });
    expect(backend.forwardBackwardCalls).toHaveLength(4);
    const lengths = (b: (typeof backend.forwardBackwardCalls)[number]) => b.datums.map((d) => d.modelInput.length);
    // Tool-call demonstrations are much longer than direct answers: a mixed batch holds both.
    const mixed = backend.forwardBackwardCalls.filter((b) => Math.max(...lengths(b)) - Math.min(...lengths(b)) > 20).length;
    expect(mixed).toBeGreaterThanOrEqual(3);
    await expect(
      coldStart(backend, env, [{ example: examples[0]!, turns: [call('sub', { a: 1, b: 1 }), '0'] }], {
        steps: 1,
        batchSize: 1,
        learningRate: 1e-3,
        seed: 1,
        maxToolResponseTokens: 16,
      }),
    ).rejects.toThrow(/does not offer/);
  });
});

describe('the progress sink prints warnings', () => {
  it('one line per warning with code, step and counts', async () => {
    const { progressSink } = await import('agentrl/internal');
    let out = '';
    const sink = progressSink({ maxSteps: 3, stream: { write: (t: string) => ((out += t), true) } as unknown as NodeJS.WriteStream });
    sink.warning!({ code: 'unknown_tool_calls', step: 2, count: 5, total: 8, message: '5 of 8 tool calls name a tool …' });
    expect(out).toBe('warning [unknown_tool_calls] step 2 (5/8): 5 of 8 tool calls name a tool …\n');
  });

  it('prints the held-out curve on the step lines that have one (step 0 included)', async () => {
    const { progressSink } = await import('agentrl/internal');
    let out = '';
    const sink = progressSink({ maxSteps: 3, stream: { write: (t: string) => ((out += t), true) } as unknown as NodeJS.WriteStream });
    await sink.write({ step: 0, 'eval/average_at_n': 0.34375, 'eval/pass_at_n': 0.5 });
    await sink.write({ step: 1, 'reward/mean': 0.25 });
    const [before, first] = out.trim().split('\n');
    expect(before).toMatch(/^step 0\/3 .*\| held-out Average@n 0\.344 Pass@n 0\.500$/);
    expect(first).not.toMatch(/held-out/);
  });

  it('degenerate groups where the model calls tools but never answers right point at the answer format', async () => {
    const { trainer, warnings } = await run({}, (p) => (p.includes('<tool_response>') ? 'five' : call('add', { a: 2, b: 3 })), 3);
    await trainer.train();
    expect(warnings.find((w) => w.code === 'degenerate_groups')!.message).toMatch(/called a tool: check that the final reply can match/);
  });
});
