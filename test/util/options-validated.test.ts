// Issue 37 §7: every public function that takes an options object validates it at run time (JavaScript callers
// have no type checker) and refuses unknown keys with a ConfigError naming the key, as `Trainer` does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as agentrl from 'agentrl';
import { ConfigError } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { otelSink } from 'agentrl/otel';
import { MathCheckPool } from '../../src/reward/math/pool.js';

const BOGUS = 'notAnOptionXyz';
const env = { name: 'e', tools: [], initialMessages: () => [{ role: 'user' as const, content: 'q' }], step: async () => ({ done: true as const }) };
const renderer = { encode: () => [], decode: () => '', renderPrompt: () => [], stopTokens: [0] };
const backend = { name: 'b', forwardBackward: async () => ({}), optimStep: async () => ({}) };
const ctx = { sampler: { sample: async () => [] }, renderer, env, budgets: agentrl.DEFAULT_BUDGETS };
const ex = { id: 'x', question: 'q', answer: '1' };

/**
 * One entry per public function of the main entry point that takes an options object: how to call it with `opts`
 * in that position (other arguments valid enough to reach validation, which comes first).
 */
const CALLS: Record<string, (opts: Record<string, unknown>) => unknown> = {
  agentEnvironment: (o) => agentrl.agentEnvironment(o as never),
  assembleTrainingData: (o) => agentrl.assembleTrainingData([], o as never),
  bm25Retriever: (o) => agentrl.bm25Retriever([{ id: 'd', text: 't' }] as never, o as never),
  buildDatums: (o) => agentrl.buildDatums([], [], o as never),
  codeInterpreter: (o) => agentrl.codeInterpreter(o as never),
  coldStart: (o) => agentrl.coldStart(backend as never, env as never, [], o as never),
  createRetrievalServer: (o) => agentrl.createRetrievalServer({ search: async () => [] } as never, o as never),
  defineTool: (o) => agentrl.defineTool(o as never),
  demonstrationDatum: (o) => agentrl.demonstrationDatum(renderer as never, env as never, { example: ex, turns: [] }, o as never),
  downloadCheckpoint: (o) => agentrl.downloadCheckpoint('tinker://r/weights/1', '/nonexistent-dir-xyz', o as never),
  evaluate: (o) => agentrl.evaluate(o as never),
  evalTable: (o) => agentrl.evalTable(o as never),
  exactMatch: (o) => agentrl.exactMatch(o as never),
  exportCheckpoint: (o) => agentrl.exportCheckpoint('/nonexistent-a', '/nonexistent-b', o as never),
  groupAdvantages: (o) => agentrl.groupAdvantages([1, 0], o as never),
  groupOutcome: (o) => agentrl.groupOutcome([{ reward: 1 }], o as never),
  httpRetriever: (o) => agentrl.httpRetriever(o as never),
  judgeReward: (o) => agentrl.judgeReward(o as never),
  listCheckpoints: (o) => agentrl.listCheckpoints(o as never),
  loadDataset: (o) => agentrl.loadDataset('/nonexistent.jsonl', o as never),
  loadMathDataset: (o) => agentrl.loadMathDataset('/nonexistent.jsonl', o as never),
  loadRenderer: (o) => agentrl.loadRenderer(o as never),
  localBackend: (o) => agentrl.localBackend(o as never),
  mathEquivalent: (o) => agentrl.mathEquivalent('1', '1', o as never),
  mathReward: (o) => agentrl.mathReward(o as never),
  mcpEnvironment: (o) => agentrl.mcpEnvironment(o as never),
  mixEnvironments: (o) =>
    agentrl.mixEnvironments([{ env, dataset: [ex], reward: () => ({ reward: 0, correct: false, validFormat: true }) }] as never, o as never),
  openaiCompatibleSampler: (o) => agentrl.openaiCompatibleSampler(o as never),
  packMicroBatches: (o) => agentrl.packMicroBatches([], o as never),
  plotRuns: (o) => agentrl.plotRuns([], o as never),
  policyLanguageModel: (o) => agentrl.policyLanguageModel(o as never),
  runGroup: (o) => agentrl.runGroup(ctx as never, o as never),
  search: (o) => agentrl.search(o as never),
  sqlAgent: (o) => agentrl.sqlAgent(o as never),
  sqlExecutionMatch: (o) => agentrl.sqlExecutionMatch(o as never),
  startDashboard: (o) => agentrl.startDashboard(o as never),
  tinkerBackend: (o) => agentrl.tinkerBackend(o as never),
  toolCallAccuracy: (o) => agentrl.toolCallAccuracy(backend as never, env as never, [], o as never),
  toolEnvironment: (o) => agentrl.toolEnvironment(o as never),
  trainAndEvaluate: (o) => agentrl.trainAndEvaluate(o as never),
  trainSupervised: (o) => agentrl.trainSupervised(backend as never, [], o as never),
  truncateTail: (o) => agentrl.truncateTail('text', 10, (s) => s.length, o as never),
  withValidEnding: (o) => agentrl.withValidEnding(() => ({ reward: 0, correct: false, validFormat: true }), o as never),
};

/** The other entry points' options functions, and the one options constructor (each already in CALLS' style). */
const OTHER_CALLS: Record<string, (opts: Record<string, unknown>) => unknown> = {
  'agentrl/testing mockBackend': (o) => mockBackend({ renderer, sampler: {}, ...o } as never),
  'agentrl/testing scriptedSampler': (o) => scriptedSampler({ renderer, script: () => '', ...o } as never),
  'agentrl/otel otelSink': (o) => otelSink(o as never),
  'new MathCheckPool': (o) => new MathCheckPool(o as never),
};

/** Functions whose options-like argument is a context object rather than options (validated the same way). */
const CONTEXT_CALLS: Record<string, (ctx: Record<string, unknown>) => unknown> = {
  runGroup: (c) => agentrl.runGroup(c as never, { example: ex, groupSize: 1 }),
  runRollouts: (c) => agentrl.runRollouts(c as never, [ex], 1),
};

async function refusal(call: () => unknown): Promise<unknown> {
  try {
    const r = call();
    if (r instanceof Promise) await r;
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('public options objects are validated at run time', () => {
  it('the table lists every public function of the API report that takes an options object', () => {
    const report = readFileSync(new URL('../../docs/api/agentrl.api.md', import.meta.url), 'utf8');
    const names = [...report.matchAll(/^export (?:async )?function (\w+)(?:<[^(]*>)?\(([^)]*)/gm)]
      .filter(([, , params]) => /\b(opts|options|group)\??:/.test(params!))
      .map(([, name]) => name!);
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((n) => !(n in CALLS))).toEqual([]);
  });

  it.each(Object.keys(CALLS))('%s refuses an unknown key with a ConfigError naming it', async (name) => {
    const e = await refusal(() => CALLS[name]!({ [BOGUS]: 1 }));
    expect(e, `${name} accepted an unknown key`).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toContain(BOGUS);
  });

  it.each(Object.keys(CALLS))('%s refuses a non-object in the options position with a ConfigError', async (name) => {
    // evalTable(labelWidth, …) is its deprecated positional form: a number there is valid.
    for (const bad of [42, 'opts', [1, 2]].filter((b) => !(name === 'evalTable' && b === 42))) {
      const e = await refusal(() => CALLS[name]!(bad as never));
      expect(e, `${name}(${JSON.stringify(bad)})`).toBeInstanceOf(ConfigError);
    }
  });

  it.each(Object.keys(OTHER_CALLS))('%s refuses an unknown key with a ConfigError naming it', async (name) => {
    const e = await refusal(() => OTHER_CALLS[name]!({ [BOGUS]: 1 }));
    expect(e, `${name} accepted an unknown key`).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toContain(BOGUS);
  });

  it.each(Object.keys(CONTEXT_CALLS))('%s refuses an unknown context key (prefixMismatch for onPrefixMismatch)', async (name) => {
    const e = await refusal(() => CONTEXT_CALLS[name]!({ ...ctx, prefixMismatch: 'fail' }));
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toMatch(/prefixMismatch.*onPrefixMismatch/);
  });
});

// Hazard: a misspelt or renamed key silently gave the default (`prefixMismatch` instead of `onPrefixMismatch` is the
// 'drop' policy), and a call written for the positional signature died deep inside with a TypeError.
describe('representative refusals name the key and how to call', () => {
  const message = async (call: () => unknown): Promise<string> => {
    const e = await refusal(call);
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  };

  it('runGroup: a renamed key, in the context or the group options, and positional calls', async () => {
    expect(await message(() => agentrl.runGroup({ ...ctx, prefixMismatch: 'fail' } as never, { example: ex, groupSize: 2 }))).toMatch(
      /prefixMismatch: unknown key \(did you mean 'onPrefixMismatch'\?\)/,
    );
    expect(await message(() => agentrl.runGroup(ctx as never, { example: ex, groupSize: 2, prefixMismatch: 'fail' } as never))).toMatch(
      /prefixMismatch: unknown key/,
    );
    expect(await message(() => agentrl.runGroup(ctx as never, { example: ex, groupSize: 2, seedIndex: 1 } as never))).toMatch(/seedIndex: unknown key/);
    // The pre-options-object call runGroup(ctx, example, groupSize):
    const positional = await message(() => (agentrl.runGroup as (...a: unknown[]) => unknown)(ctx, ex, 4));
    expect(positional).toMatch(/runGroup\(ctx, \{ example, groupSize/);
    expect(positional).not.toMatch(/Cannot read properties/);
    expect(await message(() => (agentrl.runGroup as (...a: unknown[]) => unknown)(ctx))).toMatch(
      /expected an options object — call runGroup\(ctx, \{ example, groupSize/,
    );
    expect(await message(() => agentrl.runGroup(ctx as never, { example: ex, groupSize: 0 }))).toMatch(/groupSize: expected an integer ≥ 1/);
    expect(await message(() => agentrl.runGroup({ ...ctx, renderer: undefined } as never, { example: ex, groupSize: 1 }))).toMatch(/renderer: missing/);
    expect(await message(() => agentrl.runRollouts({ ...ctx, prefixMismatch: 'split' } as never, [ex], 2))).toMatch(/did you mean 'onPrefixMismatch'/);
    // An options object where runRollouts takes positional arguments.
    expect(await message(() => agentrl.runRollouts(ctx as never, { examples: [ex], groupSize: 2 } as never, undefined as never))).toMatch(
      /examples: expected an array of examples — call runRollouts\(ctx, examples, groupSize/,
    );
    expect(await message(() => agentrl.runRollouts(ctx as never, [ex], 0))).toMatch(/groupSize: expected an integer ≥ 1/);
  });

  it('demonstrationDatum: the pre-options-object positional call (renderer, env, example, turns, opts)', async () => {
    const m = await message(() => (agentrl.demonstrationDatum as (...a: unknown[]) => unknown)(renderer, env, ex, ['hi'], { maxToolResponseTokens: 8 }));
    expect(m).toMatch(/demonstrationDatum\(renderer, env, \{ example, turns \}/);
    // An example where the demonstration goes is a wrongly shaped demonstration: DemonstrationError naming its keys.
    const shape = await refusal(() => agentrl.demonstrationDatum(renderer as never, env as never, ex as never, { maxToolResponseTokens: 8 }));
    expect(shape).toBeInstanceOf(agentrl.DemonstrationError);
    expect((shape as Error).message).toMatch(/unknown key\(s\) 'id', 'question', 'answer' \(a demonstration has 'example' and 'turns'\)/);
    expect(
      await message(() => agentrl.demonstrationDatum(renderer as never, env as never, { example: ex, turns: [] }, { maxToolResponseToken: 8 } as never)),
    ).toMatch(/maxToolResponseToken: unknown key \(did you mean 'maxToolResponseTokens'\?\)/);
  });

  it('pure functions and factories: a misspelt key is named with the key it most likely meant', async () => {
    expect(await message(() => agentrl.groupAdvantages([1, 0], { normalise: 'std' } as never))).toMatch(
      /normalise: unknown key \(did you mean 'normalize'\?\)/,
    );
    expect(await message(() => agentrl.groupOutcome([{ reward: 1 }], { minSurvivor: 2 } as never))).toMatch(/did you mean 'minSurvivors'/);
    expect(await message(() => agentrl.exactMatch({ corect: 2 } as never))).toMatch(/corect: unknown key \(did you mean 'correct'\?\)/);
    expect(await message(() => agentrl.trainSupervised(backend as never, [], { step: 3 } as never))).toMatch(/step: unknown key \(did you mean 'steps'\?\)/);
    expect(await message(() => agentrl.buildDatums([], [], { prefixMismatch: 'split' } as never))).toMatch(/did you mean 'onPrefixMismatch'/);
    expect(await message(() => agentrl.codeInterpreter({ sandbox: {}, timeout: 5 } as never))).toMatch(/timeout: unknown key \(did you mean 'timeoutMs'\?\)/);
    expect(await message(() => agentrl.defineTool({ name: 't', description: 'd', inputSchema: {}, run: () => '' } as never))).toMatch(/run: unknown key/);
    expect(await message(() => agentrl.mathEquivalent('1', '1', { timeout: 10 } as never))).toMatch(/timeout: unknown key/);
  });

  it('valid options still work as before', async () => {
    expect(agentrl.groupAdvantages([1, 0], { normalize: 'none' })).toEqual([0.5, -0.5]);
    expect(agentrl.groupAdvantages([1, 0])).toEqual([0.5, -0.5]);
    expect(agentrl.groupOutcome([{ reward: 1 }, { reward: 0 }], { minSurvivors: 2 }).advantages_G).toEqual([0.5, -0.5]);
    await expect(
      Promise.resolve(
        agentrl.exactMatch({ correct: 2 })(
          { id: 'x/0', example: ex, groupIndex: 0, messages: [], turns: [], stopReason: 'answer', toolCalls: 0, finalText: '<answer>1</answer>' },
          ex,
        ),
      ),
    ).resolves.toMatchObject({ reward: 2 });
    expect(agentrl.truncateTail('abcdef', 100, (s) => s.length)).toBe('abcdef');
    await expect(agentrl.mathEquivalent('1/2', '0.5', { timeoutMs: 5000 })).resolves.toMatchObject({ equal: true });
  });
});
