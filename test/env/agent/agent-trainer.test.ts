import { describe, expect, it } from 'vitest';
import { Trainer, agentEnvironment, exactMatch } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call, openaiToolLoop } from './helpers.js';

/** Hazard: an agentEnvironment that rolls out but never reaches the update (no datums, wrong masks, unscored). */
describe('agentEnvironment in the Trainer', () => {
  it('trains on the recorded turns: one datum per trajectory, masked exactly on the sampled tokens', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt }) => {
        const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
        return seen.length === 0 ? call('add', { a: 2, b: 40 }) : `${seen[0]}`;
      },
    });
    let n = 0;
    const backend = mockBackend({ renderer, sampler });
    const env = agentEnvironment({
      // every other agent run reports a wrong final answer (after using the model), so the group is not degenerate
      run: async (a) => {
        const answer = await openaiToolLoop(a);
        return n++ % 2 === 0 ? answer : `not ${answer}`;
      },
    });
    try {
      const trainer = new Trainer({
        backend,
        env,
        reward: exactMatch(),
        loss: { kind: 'importance_sampling' },
        dataset: [{ id: 'q1', question: 'What is 2 + 40?', answer: '42' }],
        groupSize: 4,
        questionsPerBatch: 1,
        maxSteps: 1,
        progress: false,
      });
      const steps: Record<string, number>[] = [];
      trainer.on('step', (e) => steps.push(e.metrics));
      await trainer.train();
      expect(steps).toHaveLength(1);
      expect(steps[0]!['rollout/error_rate'] ?? 0).toBe(0);
      const datums = backend.forwardBackwardCalls.flatMap((c) => c.datums);
      expect(datums.length).toBe(4);
      for (const d of datums) expect(d.mask.length).toBe(d.modelInput.length);
      expect(steps[0]!['reward/correct']).toBeCloseTo(0.5);
    } finally {
      await env.close();
    }
  });
});
