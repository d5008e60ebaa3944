import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../../apps/serve/tinker/index.js';
import { openaiServePlugin } from '../../../apps/serve/openai-plugin.js';
import { openaiCompatibleSampler } from '../../../src/backend/openai/openai-sampler.js';
import { localBackend } from '../../../src/backend/index.js';
import type { TrainingBackend } from '../../../src/backend/types.js';
import type { Renderer } from '../../../src/chat/types.js';
import { localRenderer } from '../../helpers/local-renderer.js';
import { TINY } from '../../backend/helpers.js';
import { newModel, submit } from '../raw-client.js';

// `agentrl serve` with the /v1 plugin mounted, as the CLI mounts it (apps/cli/serve.ts).
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
let serve: ServeApp;
let base: string;
let local: TrainingBackend;
let renderer: Renderer;

beforeAll(async () => {
  serve = createServeApp({ port: 0, model: MODEL, plugins: [openaiServePlugin] });
  [base, renderer] = await Promise.all([serve.listen(), localRenderer()]);
  local = localBackend(MODEL);
});
afterAll(async () => {
  await serve?.close();
  await local?.close();
});

describe('agentrl serve speaks OpenAI under /v1', () => {
  it('openaiCompatibleSampler against agentrl serve gives the in-process tokens and logprobs for the same seed', async () => {
    const sampler = openaiCompatibleSampler({ baseUrl: `${base}/v1`, model: 'agentrl/local', renderer });
    const inProcess = await local.saveWeightsForSampler();
    const prompt = renderer.renderPrompt([{ role: 'user', content: 'What is 6*7?' }]);
    const params = { numSamples: 3, maxTokens: 20, seed: 17, temperature: 0.9 };
    expect(await sampler.sample(prompt, params)).toEqual(await inProcess.sample(prompt, { ...params, stop: renderer.stopTokens }));
  });

  it('saved sampler weights become model ids: listed by /v1/models and sampled by path; unknown paths are 404', async () => {
    const { modelId } = await newModel(base);
    const saved = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 1, path: 'snap' });
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(['agentrl/local', saved.path]);
    const r = await client.completions.create({ model: saved.path, prompt: 'hello', max_tokens: 5, seed: 1 });
    expect(r.model).toBe(saved.path);
    expect(r.choices).toHaveLength(1);
    const err = await client.completions.create({ model: `tinker://${modelId}/sampler_weights/nope`, prompt: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ code: 'model_not_found' });
  });
});
