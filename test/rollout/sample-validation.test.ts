import { describe, expect, it } from 'vitest';
import {
  codeInterpreter,
  mathReward,
  runGroup,
  Trainer,
  DEFAULT_BUDGETS,
  SampledSequenceError,
  type Example,
  type SampledSequence,
  type SamplingClient,
} from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { checkSampledSequence } from '../../src/rollout/check-sample.js';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

// Hazard (issue 25 §6): a server's sampled sequence with impossible token ids or logprobs reached the datums, and one
// such sample made the whole train() throw instead of dropping that trajectory.

type Corrupt = (s: SampledSequence, maxTokens: number) => SampledSequence;

/** Corruptions of one sequence, each a way no real model output looks (ids, logprobs, length). */
const CORRUPTIONS: Record<string, Corrupt> = {
  'negative id': (s) => ({ ...s, tokens: [-1, ...s.tokens.slice(1)] }),
  'fractional id': (s) => ({ ...s, tokens: [s.tokens[0]! + 0.5, ...s.tokens.slice(1)] }),
  'id = vocabSize': (s) => ({ ...s, tokens: [...s.tokens.slice(0, -1), 1e9] }),
  'NaN logprob': (s) => ({ ...s, logprobs: [Number.NaN, ...s.logprobs.slice(1)] }),
  'positive logprob': (s) => ({ ...s, logprobs: [...s.logprobs.slice(0, -1), 0.25] }),
  '-Infinity logprob': (s) => ({ ...s, logprobs: [-Infinity, ...s.logprobs.slice(1)] }),
  'string token': (s) => ({ ...s, tokens: ['7' as unknown as number, ...s.tokens.slice(1)] }),
  'longer than maxTokens': (s, max) => ({
    ...s,
    tokens: Array.from({ length: max + 1 }, () => s.tokens[0]!),
    logprobs: Array.from({ length: max + 1 }, () => -0.5),
  }),
  'fewer logprobs than tokens': (s) => ({ ...s, logprobs: s.logprobs.slice(1) }),
};

/** Wraps a sampler so that sequence `which` of every call (or of call `onCall` only) is corrupted. */
function corrupting(inner: SamplingClient, corrupt: Corrupt, which: number, onCall?: number): SamplingClient {
  let calls = 0;
  return {
    ...inner,
    async sample(prompt, params) {
      const call = calls++;
      const out = await inner.sample(prompt, params);
      if (onCall !== undefined && call !== onCall) return out;
      return out.map((s, i) => (i === which ? corrupt(s, params.maxTokens) : s));
    },
  };
}

const ex: Example = { id: 'q', question: 'What is 3 * 4?', answer: '12' };

describe('sampled sequences are validated where they enter the rollout', () => {
  it('checkSampledSequence accepts a real sequence and rejects each corruption with the field named', () => {
    const ok: SampledSequence = { tokens: [1, 2, 3], logprobs: [-0.1, 0, -3], stopReason: 'stop' };
    expect(() => checkSampledSequence(ok, { vocabSize: 10, maxTokens: 3 })).not.toThrow();
    expect(() => checkSampledSequence({ ...ok, tokens: [1, 2, 10] }, { vocabSize: 10, maxTokens: 3 })).toThrow(/tokens\[2\]/);
    expect(() => checkSampledSequence({ ...ok, logprobs: [-0.1, 1e-9, -3] }, { vocabSize: 10, maxTokens: 3 })).toThrow(/logprobs\[1\]/);
    expect(() => checkSampledSequence(ok, { vocabSize: 10, maxTokens: 2 })).toThrow(/more than the 2 requested/);
    expect(() => checkSampledSequence({ ...ok, stopReason: 'eos' as 'stop' }, { vocabSize: 10, maxTokens: 3 })).toThrow(SampledSequenceError);
  });

  for (const [name, corrupt] of Object.entries(CORRUPTIONS)) {
    it(`first-turn fork: a sequence with a ${name} fails only its own branch at stage sample`, async () => {
      const renderer = await localRenderer();
      const sampler = corrupting(scriptedSampler({ renderer, script: () => 'so \\boxed{12}' }), corrupt, 1);
      const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
      expect(group.map((t) => t.stopReason)).toEqual(['answer', 'error', 'answer']);
      expect(group[1]!.error).toMatchObject({ stage: 'sample', code: 'SAMPLED_SEQUENCE_INVALID' });
    });
  }

  it('a later turn: a corrupted second sample fails that trajectory at stage sample, after its first turn', async () => {
    const renderer = await localRenderer();
    const inner = scriptedSampler({ renderer, script: ({ prompt }) => (prompt.includes('<tool_response>') ? '\\boxed{12}' : toolCall('print(12)')) });
    for (const corrupt of [CORRUPTIONS['id = vocabSize']!, CORRUPTIONS['NaN logprob']!, CORRUPTIONS['longer than maxTokens']!]) {
      const sampler = corrupting(inner, corrupt, 0, 1); // call 0 is the fork; call 1 is branch 0's second turn
      const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '12\n' })), systemPrompt: null });
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
      expect(t!.stopReason).toBe('error');
      expect(t!.error).toMatchObject({ stage: 'sample', code: 'SAMPLED_SEQUENCE_INVALID', turn: 2 });
      expect(t!.turns).toHaveLength(1);
    }
  });

  it('in training, bad samples are dropped, counted and warned about; train() completes', async () => {
    const renderer = await localRenderer();
    const inner = scriptedSampler({ renderer, script: ({ sample }) => (sample === 0 ? 'so \\boxed{12}' : 'maybe \\boxed{11}') });
    const sampler = corrupting(inner, CORRUPTIONS['negative id']!, 2);
    const reward = mathReward();
    const warnings: string[] = [];
    const errorRates: number[] = [];
    const trainer = new Trainer({
      backend: mockBackend({ renderer, sampler }),
      env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [ex, { id: 'b', question: 'What is 6 + 6?', answer: '12' }],
      groupSize: 3,
      questionsPerBatch: 2,
      maxSteps: 2,
      progress: false,
    });
    trainer.on('warning', (w) => warnings.push(w.message));
    trainer.on('step', (s) => errorRates.push(s.metrics['rollout/error_rate'] ?? Number.NaN));
    try {
      await trainer.train();
    } finally {
      await reward.close();
    }
    expect(errorRates).toHaveLength(2);
    for (const r of errorRates) expect(r).toBeCloseTo(2 / 6);
    expect(warnings.some((m) => /trajectories failed and were dropped/.test(m) && /sample/.test(m))).toBe(true);
  });
});
