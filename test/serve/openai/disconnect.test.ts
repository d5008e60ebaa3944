import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SamplingClient } from '../../../src/backend/types.js';
import type { Renderer } from '../../../src/chat/types.js';
import type { SampledSequence, SamplingParams } from '../../../src/types/sampling.js';
import { localRenderer } from '../../helpers/local-renderer.js';
import { serveV1 } from './helpers.js';

// /v1 sampling stops when its client disconnects: the engine gets an AbortSignal that fires on close, so a
// client that left frees its decode rows instead of holding the engine for the whole request.
let renderer: Renderer;
beforeAll(async () => {
  renderer = await localRenderer();
});

/** A sampler that runs until its signal aborts (or 20 s), recording how each call ended. */
function endlessSampler(ends: string[]): SamplingClient {
  return {
    sample(_prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          ends.push('ran to the end');
          resolve([]);
        }, 20_000);
        if (!params.signal) {
          ends.push('no signal');
          return;
        }
        params.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            ends.push('aborted');
            reject(params.signal!.reason);
          },
          { once: true },
        );
      });
    },
    computeLogprobs: async (t) => t.map(() => null),
  };
}

describe('/v1 sampling and client disconnects', () => {
  const ends: string[] = [];
  let close: () => Promise<void>;
  let baseUrl: string;
  beforeAll(async () => {
    const s = await serveV1({ sampler: endlessSampler(ends), renderer, modelName: 'm' });
    baseUrl = s.baseUrl;
    close = () => s.server.close();
  });
  afterAll(() => close());

  for (const [path, body] of [
    ['completions', { model: 'm', prompt: [1, 2, 3], max_tokens: 50 }],
    ['completions', { model: 'm', prompt: [[1], [2]], n: 3, max_tokens: 50, stream: true }],
    ['chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 }],
  ] as const) {
    it(`${path} ${JSON.stringify(body).slice(0, 60)}: the sampler is aborted within a second of the client leaving`, async () => {
      ends.length = 0;
      const ac = new AbortController();
      const pending = request(`${baseUrl}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: ac.signal,
      }).catch(() => undefined);
      const calls = 'prompt' in body && Array.isArray(body.prompt[0]) ? body.prompt.length : 1;
      const t0 = Date.now();
      while (Date.now() - t0 < 5000 && ends.length === 0) {
        await new Promise((r) => setTimeout(r, 100));
        if (Date.now() - t0 > 300) ac.abort();
      }
      await pending;
      const t1 = Date.now();
      while (Date.now() - t1 < 2000 && ends.length < calls) await new Promise((r) => setTimeout(r, 20));
      expect(ends).toEqual(Array.from({ length: calls }, () => 'aborted'));
    });
  }

  it('a normal request after the disconnects is answered', async () => {
    const fast: SamplingClient = {
      sample: async (_p, params) => Array.from({ length: params.numSamples ?? 1 }, () => ({ tokens: [5], logprobs: [-1], stopReason: 'length' as const })),
      computeLogprobs: async (t) => t.map(() => null),
    };
    const s = await serveV1({ sampler: fast, renderer, modelName: 'm' });
    try {
      const r = await request(`${s.baseUrl}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', prompt: [1, 2], n: 2, max_tokens: 1 }),
      });
      expect(r.statusCode).toBe(200);
      expect(((await r.body.json()) as any).choices).toHaveLength(2);
    } finally {
      await s.server.close();
    }
  });
});
