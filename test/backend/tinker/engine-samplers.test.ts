import { afterEach, describe, expect, it } from 'vitest';
import { BackendRequestError, tinkerBackend, type Datum, type TinkerBackend } from 'agentrl';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker, type SeenRequest } from './fake-tinker-server.js';
import type { EngineName } from '../../../src/backend/tinker/engines/profiles.js';

let server: FakeTinker | undefined;
let backend: TinkerBackend | undefined;
afterEach(async () => {
  await backend?.close();
  await server?.close().catch(() => undefined);
  backend = undefined;
  server = undefined;
});

const make = (engine: EngineName) => {
  backend = tinkerBackend({
    engine,
    baseUrl: server!.url,
    apiKey: 'tml-x',
    baseModel: 'fake/model',
    renderer: LOCAL_MODEL_DIR,
    maxContextTokens: 512,
    wireFormat: 'json',
    retry: { tryAgainDelayMs: 5, budgetMs: 500 },
  });
  return backend;
};
const datum = (T: number): Datum => ({
  modelInput: Array.from({ length: T }, (_, i) => i + 1),
  targetTokens: Array.from({ length: T }, (_, i) => i + 2),
  logprobs: new Array<number>(T).fill(-1),
  advantages: new Array<number>(T).fill(0.5),
  mask: new Array<number>(T).fill(1),
});
const sampleResult = (logprobs: number[]) => (r: SeenRequest, s: FakeTinker) => {
  if (r.path !== '/api/v1/retrieve_future') return undefined;
  const f = s.futures.get(String(r.json?.['request_id']));
  return f?.op === 'asample'
    ? { json: { type: 'sample', sequences: [{ tokens: logprobs.map((_, i) => 10 + i), logprobs, stop_reason: 'length' }] } }
    : undefined;
};

describe('samplers per engine', () => {
  it('SkyRL-Train fills zeros when vLLM returns no logprobs: all-zero sampler logprobs are an error there, not a ratio of 1/p', async () => {
    server = await FakeTinker.start({ hook: sampleResult([0, 0, 0]) });
    const s = await make('skyrl-fsdp').saveWeightsForSampler();
    const e = await s.sample([1, 2, 3], { maxTokens: 3 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BackendRequestError);
    expect((e as Error).message).toMatch(/skyrl-fsdp returned all-zero logprobs/);
    await server.close();
    server = await FakeTinker.start({ hook: sampleResult([0, 0, 0]) });
    backend = undefined;
    // Hosted Tinker reports logprobs: the same answer is taken as it is.
    const t = await make('tinker').saveWeightsForSampler();
    expect((await t.sample([1, 2, 3], { maxTokens: 3 }))[0]!.logprobs).toEqual([0, 0, 0]);
  });

  it('SkyRL-JAX: a sampler refuses once the training weights moved on (sampling it would load it into the training slot); a fresh one samples', async () => {
    server = await FakeTinker.start({ hook: sampleResult([-1, -2]) });
    const b = make('skyrl-jax');
    const s0 = await b.saveWeightsForSampler();
    expect(await s0.sample([1, 2], { maxTokens: 2 })).toHaveLength(1);
    await b.forwardBackward([datum(3)], { kind: 'importance_sampling' });
    expect(await s0.sample([1, 2], { maxTokens: 2 })).toHaveLength(1); // no optim_step yet: same weights
    await b.optimStep({ learningRate: 0.1, gradClipNorm: 0 });
    const stale = await s0.sample([1, 2], { maxTokens: 2 }).catch((x: unknown) => x);
    expect(stale).toBeInstanceOf(BackendRequestError);
    expect((stale as Error).message).toMatch(/roll them back/);
    const s1 = await b.saveWeightsForSampler();
    expect(await s1.sample([1, 2], { maxTokens: 2 })).toHaveLength(1);
    // The JAX wire: forwardBackward sent a forward only; optimStep sent the held backward (weights one, advantages ×T·N) first.
    const ops = server.requests.filter((r) => ['/api/v1/forward', '/api/v1/forward_backward', '/api/v1/optim_step'].includes(r.path));
    expect(ops.map((r) => r.path)).toEqual(['/api/v1/forward', '/api/v1/forward_backward', '/api/v1/optim_step']);
    const held = (ops[1]!.json!['forward_backward_input'] as { data: { loss_fn_inputs: Record<string, { data: number[] }> }[] }).data[0]!.loss_fn_inputs;
    expect(held['weights']!.data).toEqual([1, 1, 1]);
    // token-mean over 3 tokens (c = 1/3) × A 0.5, scaled by T·N = 3·1.
    expect(held['advantages']!.data.map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.5, 0.5, 0.5]);
  });
});
