import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SamplingClient, TrainingBackend } from '../../src/backend/types.js';
import type { Renderer } from '../../src/chat/types.js';
import type { HttpServer } from '../../src/http/http-server.js';
import { openaiCompatibleSampler } from '../../src/backend/openai/openai-sampler.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { exactMatch } from '../../src/reward/exact-match.js';
import type { Environment } from '../../src/env/types.js';
import type { Example } from '../../src/types/example.js';
import { localRenderer } from '../helpers/local-renderer.js';
import { serveV1 } from '../serve/openai/helpers.js';
import { tinyBackend } from './helpers.js';

// The /v1 surface of `agentrl serve` over the embedded engine, and openaiCompatibleSampler as its client.
let backend: TrainingBackend;
let inProcess: SamplingClient;
let renderer: Renderer;
let server: HttpServer;
let baseUrl: string;

beforeAll(async () => {
  backend = tinyBackend();
  [inProcess, renderer] = await Promise.all([backend.saveWeightsForSampler(), localRenderer()]);
  ({ server, baseUrl } = await serveV1({ sampler: inProcess, renderer, modelName: 'tiny' }));
});
afterAll(async () => {
  await server?.close();
  await backend?.close();
});

describe('openaiCompatibleSampler against agentrl serve /v1', () => {
  it('returns the same tokens, logprobs and stop reasons as in-process sampling with the same seed', async () => {
    // Hazard: a transport that re-tokenises text, drops the stop token, rounds logprobs or reorders choices
    // would make the trainer's tokens differ from the sampled ones.
    const sampler = openaiCompatibleSampler({ baseUrl, model: 'tiny', renderer });
    const prompt = renderer.renderPrompt([{ role: 'user', content: 'What is 12*7?' }]);
    const cases = [
      { numSamples: 3, maxTokens: 24, seed: 11, temperature: 0.8, topP: 0.9 },
      { numSamples: 2, maxTokens: 16, seed: 5, temperature: 1.3, topK: 20 },
      { numSamples: 1, maxTokens: 12, seed: 1, temperature: 0 },
    ];
    for (const params of cases) {
      const want = await inProcess.sample(prompt, { ...params, stop: renderer.stopTokens });
      const got = await sampler.sample(prompt, params);
      expect(got).toEqual(want);
    }
    // A stop token of the call: the 6th token of an unstopped draw, so the same seed stops there, via the stop path.
    const [free] = await sampler.sample(prompt, { maxTokens: 24, seed: 9 });
    const params = { maxTokens: 24, seed: 9, stop: [free!.tokens[5]!] };
    const [stopped] = await sampler.sample(prompt, params);
    expect(stopped!.stopReason).toBe('stop');
    expect(stopped!.tokens.at(-1)).toBe(free!.tokens[5]);
    expect([stopped]).toEqual(await inProcess.sample(prompt, { ...params, stop: [...params.stop, ...renderer.stopTokens] }));
  });

  it('computeLogprobs equals the in-process values (entry 0 null)', async () => {
    const sampler = openaiCompatibleSampler({ baseUrl, model: 'tiny', renderer });
    const tokens = renderer.renderPrompt([{ role: 'user', content: 'hello there' }]);
    expect(await sampler.computeLogprobs(tokens)).toEqual(await inProcess.computeLogprobs(tokens));
  });

  it('evaluate() gives the same per-problem records over HTTP as in process', async () => {
    // Hazard: evaluate/the rollout engine depending on a SamplingClient detail the HTTP client lacks.
    const env: Environment = {
      name: 'echo',
      tools: [],
      initialMessages: (ex) => [{ role: 'user', content: ex.question }],
      step: async () => ({ done: true }),
    };
    const examples: Example[] = ['1+1', '2+3', '7*6'].map((q, i) => ({ id: `q${i}`, question: q, answer: String(i), meta: {} }));
    const common = {
      renderer,
      env,
      reward: exactMatch(),
      examples,
      n: 3,
      budgets: { maxTurnTokens: 12, maxTrajectoryTokens: 100 },
      sampling: { seed: 42, temperature: 1 },
    };
    const local = await evaluate({ ...common, sampler: inProcess });
    const remote = await evaluate({ ...common, sampler: openaiCompatibleSampler({ baseUrl, model: 'tiny', renderer }) });
    expect(remote.records).toEqual(local.records);
    expect(remote.metrics).toEqual(local.metrics);
  });
});
