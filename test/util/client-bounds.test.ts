import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TinkerHttp, TransportFault } from '../../src/backend/tinker/http.js';
import { awaitFuture } from '../../src/backend/tinker/future-polling.js';
import { resolveTinkerOptions, type TinkerBackendOptions } from '../../src/backend/tinker/options.js';
import { decodeForwardBackwardProto, decodeSampleProto, tinkerProto } from '../../src/backend/tinker/proto.js';
import { openaiCompatibleSampler } from '../../src/backend/openai/openai-sampler.js';
import { httpRetriever } from '../../src/env/search/http-retriever.js';
import { Endpoint } from '../../adapters/remote/endpoint.js';
import {
  BackendRequestError,
  BackendUnavailableError,
  RetrieverError,
  ResponseTooLargeError,
  RedirectRefusedError,
  SamplerUnavailableError,
} from '../../src/errors/index.js';
import type { Renderer } from '../../src/chat/types.js';
import { localRenderer } from '../helpers/local-renderer.js';
import { drip, flood, hostileServer, redirect, silent, type HostileServer } from './hostile-server.js';

// Issue 25 §6: every client is bounded against any server. Each attack runs on a real loopback socket against a
// server that misbehaves on purpose; a test passes only when the client ends the request with a typed error, in
// bounded time and memory, and never sends anything to a redirect target.

let evil: HostileServer;
let other: HostileServer;
let renderer: Renderer;
beforeAll(async () => {
  [evil, other, renderer] = await Promise.all([hostileServer(), hostileServer(), localRenderer()]);
});
afterAll(async () => {
  await Promise.all([evil?.close(), other?.close()]);
});

const MAX = 64 * 1024;
/**
 * Every hostile behaviour here is endless (a flood, a drip, silence): a request that ends at all was ended by the
 * client. Time bounds only tell the deadline under test from a much later timer (silenceMs 60 s, the test's own
 * timeout); the slack keeps them true on a loaded 2-core CI machine.
 */
const SLACK_MS = 8_000;
/** Timeouts so long that only a size limit can end a flood: a slow machine must not turn the size test into a timeout. */
const NO_DEADLINE = { requestMs: 60_000, pollMs: 60_000, silenceMs: 60_000, futureMs: 60_000 };
const tinkerOpts = (extra: Partial<TinkerBackendOptions> = {}) =>
  resolveTinkerOptions({
    baseUrl: evil.url,
    apiKey: 'secret-key',
    baseModel: 'm',
    renderer: 'unused',
    maxResponseBytes: MAX,
    timeouts: { requestMs: 400, pollMs: 400, silenceMs: 60_000, futureMs: 900 },
    retry: { budgetMs: 0, tryAgainDelayMs: 10 },
    ...extra,
  });

/** Runs `fn`, returning what it threw and how long it took (ms). */
async function timed(fn: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t0 = performance.now();
  try {
    await fn();
    return { error: undefined, ms: performance.now() - t0 };
  } catch (error) {
    return { error, ms: performance.now() - t0 };
  }
}

describe('tinkerBackend transport', () => {
  it('refuses an endless streamed body past maxResponseBytes, and a lying Content-Length at once; not retried', async () => {
    for (const b of [flood(16 * 1024), flood(1 << 20), flood(1024, 10 * 2 ** 30)]) {
      evil.behaviour = b;
      const before = evil.requests.length;
      const http = new TinkerHttp(tinkerOpts({ retry: { budgetMs: 5_000 }, timeouts: NO_DEADLINE }));
      const { error } = await timed(() => http.call('forward', '/api/v1/forward', { json: {} }));
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).maxBytes).toBe(MAX);
      expect(evil.requests.length - before).toBe(1);
      await http.close(new Error('done'));
    }
  });

  it('cuts a body dripped one byte at a time at the total deadline (the per-chunk timer would never fire)', async () => {
    for (const every of [20, 150]) {
      evil.behaviour = drip(every);
      const http = new TinkerHttp(tinkerOpts());
      const { error, ms } = await timed(() => http.send('POST', '/api/v1/forward', { json: {} }, { timeoutMs: 400 }));
      expect(error).toBeInstanceOf(TransportFault);
      expect((error as TransportFault).heldTooLong).toBe(false);
      expect(ms).toBeLessThan(400 + SLACK_MS);
      // Through the retrying call: the budget ends it with a typed error.
      const r = await timed(() => http.call('forward', '/api/v1/forward', { json: {} }));
      expect(r.error).toBeInstanceOf(BackendUnavailableError);
      await http.close(new Error('done'));
    }
  });

  it('a server that never answers headers is a held poll (heldTooLong), ended at the deadline', async () => {
    evil.behaviour = silent;
    const http = new TinkerHttp(tinkerOpts());
    const { error, ms } = await timed(() => http.send('POST', '/api/v1/retrieve_future', { json: {} }, { timeoutMs: 300 }));
    expect((error as TransportFault).heldTooLong).toBe(true);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    await http.close(new Error('done'));
  });

  it('does not follow a redirect: nothing (body, X-API-Key) reaches the target', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      evil.behaviour = redirect(status, `${other.url}/api/v1/forward`);
      const http = new TinkerHttp(tinkerOpts());
      const { error } = await timed(() => http.call('forward', '/api/v1/forward', { json: { secret: 'prompt' } }));
      expect(error).toBeInstanceOf(BackendRequestError);
      expect((error as BackendRequestError).status).toBe(status);
      await http.close(new Error('done'));
    }
    expect(other.requests).toHaveLength(0);
  });

  it('a future answered try_again forever (or held, or 408) fails after timeouts.futureMs', async () => {
    const tryAgain = (_q: unknown, res: import('node:http').ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"try_again"}');
    const status408 = (_q: unknown, res: import('node:http').ServerResponse) => res.writeHead(408).end();
    let n = 0;
    const mixed = (q: never, res: import('node:http').ServerResponse) => (n++ % 2 ? tryAgain(q, res) : status408(q, res));
    for (const b of [tryAgain, status408, mixed, silent]) {
      evil.behaviour = b as never;
      const http = new TinkerHttp(tinkerOpts());
      const op = { op: 'forward', submit: async () => 'r1', json: (v: unknown) => v };
      const { error, ms } = await timed(() => awaitFuture(http, tinkerOpts(), 'r1', op));
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect(String((error as Error).message)).toMatch(/futureMs|no answer/);
      expect(ms).toBeGreaterThanOrEqual(850);
      expect(ms).toBeLessThan(900 + SLACK_MS);
      await http.close(new Error('done'));
    }
  });

  it('a small protobuf reply with crafted offsets is refused over the wire before anything large is allocated', async () => {
    const data = tinkerProto.float32Bytes(Array.from({ length: 1024 }, () => -1));
    // 100k offsets alternating 0 and the data's end: decoded naively, 50k copies of the data (≈ 400 MB of numbers).
    const offsets = tinkerProto.int64Bytes(Array.from({ length: 100_000 }, (_, i) => (i % 2 ? data.length : 0)));
    const reply = tinkerProto
      .type('ForwardBackwardOutput')
      .encode({ loss_fn_outputs: [{ fields: { logprobs: { data, offsets, dtype: 1 } }, num_datums: 2 }] })
      .finish();
    expect(reply.length).toBeLessThan(MAX * 16);
    evil.behaviour = (_q, res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.from(reply));
    const opts = tinkerOpts({ maxResponseBytes: 4 << 20 });
    const http = new TinkerHttp(opts);
    const heap0 = process.memoryUsage().heapUsed;
    const { error, ms } = await timed(() =>
      awaitFuture(http, opts, 'r1', { op: 'forward_backward', submit: async () => 'r1', json: (v) => v, proto: (b) => decodeForwardBackwardProto(b, 2) }),
    );
    expect(error).toBeInstanceOf(BackendRequestError);
    expect((error as Error).message).toMatch(/offsets/);
    expect(ms).toBeLessThan(SLACK_MS);
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(64 << 20);
    await http.close(new Error('done'));
  });
});

describe('protobuf decoder validates lengths and offsets before allocating', () => {
  const data = tinkerProto.float32Bytes([-1, -2, -3, -4]);
  const fb = (offsets: number[], d: Uint8Array = data, dtype = 1) =>
    tinkerProto
      .type('ForwardBackwardOutput')
      .encode({ loss_fn_outputs: [{ fields: { logprobs: { data: d, offsets: tinkerProto.int64Bytes(offsets), dtype } }, num_datums: 2 }] })
      .finish();
  it('accepts well-formed offsets', () => {
    expect(decodeForwardBackwardProto(fb([0, 8, 16]), 2).logprobs).toEqual([
      [-1, -2],
      [-3, -4],
    ]);
  });
  const bad: Record<string, Uint8Array> = {
    backwards: fb([0, 16, 8]),
    'past the data': fb([0, 8, 1 << 30]),
    'not starting at 0': fb([4, 8, 16]),
    'not ending at the data length': fb([0, 4, 8]),
    misaligned: fb([0, 6, 16]),
    'more datums than expected': fb([0, 4, 8, 12, 16]),
    'unknown dtype': fb([0, 8, 16], data, 9),
    'data not a whole number of elements': fb([0, 8, 15], data.subarray(0, 15)),
    'int64 offset beyond 2^53': (() => {
      const o = new Uint8Array(24);
      new DataView(o.buffer).setBigInt64(8, 2n ** 62n, true);
      return tinkerProto
        .type('ForwardBackwardOutput')
        .encode({ loss_fn_outputs: [{ fields: { logprobs: { data, offsets: o, dtype: 1 } } }] })
        .finish();
    })(),
    'truncated message': fb([0, 8, 16]).subarray(0, 20),
  };
  for (const [name, bytes] of Object.entries(bad)) {
    it(`refuses offsets/lengths: ${name}`, () => {
      expect(() => decodeForwardBackwardProto(bytes, 2)).toThrow(BackendRequestError);
    });
  }
  it('refuses a sample whose tokens are not a whole number of int32, or a truncated SampleResponse', () => {
    const T = tinkerProto.type('SampleResponse');
    const odd = T.encode({ sequences: [{ tokens: new Uint8Array(7), logprobs: new Uint8Array(8) }] }).finish();
    expect(() => decodeSampleProto(odd)).toThrow(BackendRequestError);
    const ok = T.encode({ sequences: [{ tokens: tinkerProto.int32Bytes([1, 2]), logprobs: tinkerProto.float32Bytes([-1, -1]) }] }).finish();
    expect(decodeSampleProto(ok).sequences[0]!.tokens).toEqual([1, 2]);
    expect(() => decodeSampleProto(ok.subarray(0, ok.length - 3))).toThrow(BackendRequestError);
  });
});

describe('openaiCompatibleSampler transport', () => {
  const sampler = (extra: object = {}) =>
    openaiCompatibleSampler({
      baseUrl: `${evil.url}/v1`,
      model: 'm',
      renderer,
      maxRetries: 1,
      timeoutMs: 400,
      maxResponseBytes: MAX,
      headers: { 'x-team-secret': 's3' },
      apiKey: 'sk-secret',
      ...extra,
    });

  it('refuses a huge (streamed or announced) answer with ResponseTooLargeError, without retrying', async () => {
    for (const b of [flood(8 * 1024), flood(1 << 20), flood(100, 5 * 2 ** 30)]) {
      evil.behaviour = b;
      const before = evil.requests.length;
      const { error } = await timed(() => sampler({ timeoutMs: 60_000 }).sample([1, 2, 3], { maxTokens: 4 }));
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(evil.requests.length - before).toBe(1);
    }
  });

  it('cuts a drip at timeoutMs in total', async () => {
    for (const every of [10, 100]) {
      evil.behaviour = drip(every);
      const { error, ms } = await timed(() => sampler({ maxRetries: 0 }).sample([1, 2, 3], { maxTokens: 4 }));
      expect(error).toBeInstanceOf(SamplerUnavailableError);
      expect(ms).toBeLessThan(400 + SLACK_MS);
    }
  });

  it('refuses every redirect status; the target never sees the prompt, the API key or custom headers', async () => {
    for (const [status, where] of [
      [307, `${other.url}/v1/completions`],
      [308, `${other.url}/x`],
      [302, '/v1/elsewhere'],
      [301, `${evil.url.replace('127.0.0.1', 'localhost')}/v1/completions`],
    ] as const) {
      evil.behaviour = redirect(status, where);
      const before = evil.requests.length;
      const { error } = await timed(() => sampler().sample([1, 2, 3], { maxTokens: 4 }));
      expect(error).toBeInstanceOf(RedirectRefusedError);
      expect((error as RedirectRefusedError).location).toBe(where);
      expect(evil.requests.length - before).toBe(1); // not even a same-origin follow
    }
    expect(other.requests).toHaveLength(0);
  });
});

describe('httpRetriever transport', () => {
  const retriever = () => httpRetriever({ url: evil.url, timeoutMs: 400, retries: 1, retryDelayMs: 1, maxResponseBytes: MAX });
  it('refuses a huge answer (not retried) and cuts a drip at the deadline', async () => {
    evil.behaviour = flood(32 * 1024);
    const before = evil.requests.length;
    const big = await timed(() => httpRetriever({ url: evil.url, timeoutMs: 60_000, retries: 1, retryDelayMs: 1, maxResponseBytes: MAX }).search(['q'], 3));
    expect(big.error).toBeInstanceOf(RetrieverError);
    expect((big.error as Error).cause).toBeInstanceOf(ResponseTooLargeError);
    expect(evil.requests.length - before).toBe(1);
    evil.behaviour = drip(25);
    const slow = await timed(() => httpRetriever({ url: evil.url, timeoutMs: 300, retries: 0 }).search(['q'], 3));
    expect(slow.error).toBeInstanceOf(RetrieverError);
    expect(slow.ms).toBeLessThan(300 + SLACK_MS);
  });
  it('refuses a redirect', async () => {
    evil.behaviour = redirect(307, `${other.url}/retrieve`);
    const { error } = await timed(() => retriever().search(['q'], 3));
    expect((error as RetrieverError).status).toBe(307);
    expect(other.requests).toHaveLength(0);
  });
});

describe('remote sandbox transport', () => {
  it('a ping answer that floods is read no further and counts as unhealthy; a drip is cut at the attempt deadline', async () => {
    const ep = new Endpoint(evil.url, { connections: 2, connectTimeoutMs: 1_000 });
    evil.behaviour = flood(16 * 1024);
    expect(await ep.ping(2_000)).toBe(false);
    evil.behaviour = drip(20);
    const t0 = performance.now();
    const out = await ep.post('/run_code', '{}', { timeoutMs: 300, maxBodyBytes: MAX });
    expect(out.kind).toBe('transport');
    expect(performance.now() - t0).toBeLessThan(300 + SLACK_MS);
    evil.behaviour = flood(16 * 1024);
    const big = await ep.post('/run_code', '{}', { timeoutMs: 5_000, maxBodyBytes: MAX });
    expect(big.kind).toBe('transport');
    await ep.close();
  });
});
