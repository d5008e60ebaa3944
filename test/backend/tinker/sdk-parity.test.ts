import { afterEach, describe, expect, it } from 'vitest';
import { tinkerBackend, type TinkerBackend } from '../../../src/backend/tinker/index.js';
import { tinkerProto } from '../../../src/backend/tinker/proto.js';
import { JWT_REFRESH_MARGIN_MS, jwtExpiry } from '../../../src/backend/tinker/jwt.js';
import { TINKER_USER_AGENT } from '../../../src/backend/tinker/http.js';
import type { WarningEvent } from '../../../src/trainer/events.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker, type FakeTinkerOptions } from './fake-tinker-server.js';
import * as fx from '../../serve/sdk-fixtures.js';

let server: FakeTinker | undefined;
let backend: TinkerBackend | undefined;
afterEach(async () => {
  await backend?.close();
  await server?.close();
  backend = undefined;
  server = undefined;
});

const PB = 'application/x-protobuf';
const d = (T: number) => ({
  modelInput: Array.from({ length: T }, (_, i) => i + 1),
  targetTokens: Array.from({ length: T }, (_, i) => i + 2),
  logprobs: new Array(T).fill(-1),
  advantages: new Array(T).fill(1),
  mask: new Array(T).fill(1),
});
const IS = { kind: 'importance_sampling' as const };

async function start(o: FakeTinkerOptions, extra: Record<string, unknown> = {}): Promise<{ warnings: WarningEvent[] }> {
  server = await FakeTinker.start(o);
  const warnings: WarningEvent[] = [];
  backend = tinkerBackend({
    baseUrl: server.url,
    apiKey: 'tml-key',
    baseModel: 'fake/model',
    renderer: LOCAL_MODEL_DIR,
    maxContextTokens: 512,
    onWarning: (e) => warnings.push(e),
    retry: { initialDelayMs: 10, maxDelayMs: 50, tryAgainDelayMs: 5, budgetMs: 2000 },
    ...extra,
  });
  return { warnings };
}

const jwt = (expSec: number, n: number) => `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ exp: expSec, n })).toString('base64url')}.sig`;

describe('tinkerBackend first contact, as the official SDK', () => {
  it('calls client/config first, then create_session with sdk_version 0.25.0; User-Agent and extraHeaders on every request', async () => {
    await start({}, { extraHeaders: { 'CF-Access-Client-Id': 'id-1', 'CF-Access-Client-Secret': 's-2' } });
    await backend!.connect();
    const paths = server!.requests.map((r) => r.path);
    expect(paths.slice(0, 2)).toEqual(['/api/v1/client/config', '/api/v1/create_session']);
    expect(server!.requests[0]!.json).toEqual({ sdk_version: '0.25.0' });
    expect(server!.requests[1]!.json).toEqual({ tags: [], user_metadata: {}, sdk_version: '0.25.0', type: 'create_session' });
    for (const r of server!.requests) {
      expect(r.headers['user-agent']).toBe(TINKER_USER_AGENT);
      expect(TINKER_USER_AGENT).toMatch(/^agentrl\/\d+\.\d+\.\d+/);
      expect(r.headers['cf-access-client-id']).toBe('id-1');
      expect(r.headers['cf-access-client-secret']).toBe('s-2');
      expect(r.headers['x-api-key']).toBe('tml-key');
    }
  });

  it("refuses extraHeaders that would replace the protocol's own, before any request", () => {
    for (const h of ['X-API-Key', 'content-type', 'Accept', 'user-agent', 'x-idempotency-key']) {
      expect(() => tinkerBackend({ baseUrl: 'http://127.0.0.1:1', baseModel: 'm', renderer: LOCAL_MODEL_DIR, extraHeaders: { [h]: 'x' } })).toThrow(
        /extraHeaders/,
      );
    }
    expect(() => tinkerBackend({ baseUrl: 'http://127.0.0.1:1', baseModel: 'm', renderer: LOCAL_MODEL_DIR, extraHeaders: { 'x-ok': 'a\r\nb' } })).toThrow(
      /line breaks/,
    );
  });

  it('surfaces create_session info / warning / error messages as server_notice warnings', async () => {
    const { warnings } = await start({
      hook: (r) =>
        r.path === '/api/v1/create_session'
          ? { json: { type: 'create_session', session_id: 's1', info_message: 'hello', warning_message: 'SDK 0.1 is deprecated', error_message: 'quota low' } }
          : undefined,
    });
    await backend!.connect();
    // The fake server does not name its engine: engine 'auto' assumes hosted Tinker and says so after the notices.
    expect(warnings.map((w) => w.code)).toEqual(['server_notice', 'server_notice', 'server_notice', 'engine_assumed']);
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/error.*quota low[\s\S]*warning.*deprecated[\s\S]*info.*hello/);
  });

  it('pjwt_auth_enabled: exchanges the key for a JWT, sends the JWT, refreshes it within 5 minutes of expiry', async () => {
    let minted = 0;
    const now = () => Math.floor(Date.now() / 1000);
    await start({
      hook: (r) => {
        if (r.path === '/api/v1/client/config') return { json: { pjwt_auth_enabled: true } };
        if (r.path === '/api/v1/auth/token') {
          if (r.headers['x-api-key'] !== 'tml-key') return { status: 401, json: { detail: 'bad key' } };
          minted += 1;
          // The first JWT is already inside the refresh margin: the next request exchanges again.
          return { json: { jwt: minted === 1 ? jwt(now() + JWT_REFRESH_MARGIN_MS / 1000 - 1, 1) : jwt(now() + 3600, minted) } };
        }
        return undefined;
      },
    });
    await backend!.connect();
    await backend!.forwardBackward([d(2)], IS, undefined);
    const tokens = server!.requests.filter((r) => r.path === '/api/v1/auth/token');
    expect(tokens.map((r) => r.json)).toEqual([{}, {}]);
    const session = server!.seen('/api/v1/create_session')[0]!;
    expect(session.headers['x-api-key']).toMatch(/^eyJ/);
    const last = server!.requests.at(-1)!;
    expect(jwtExpiry(String(last.headers['x-api-key']))! - Date.now()).toBeGreaterThan(JWT_REFRESH_MARGIN_MS);
    expect(minted).toBe(2);
    for (const r of server!.requests.filter((x) => !['/api/v1/auth/token', '/api/v1/client/config'].includes(x.path)))
      expect(String(r.headers['x-api-key'])).toMatch(/^eyJ/);
  });

  it('a server without client/config (404) still works, with the SDK defaults', async () => {
    await start({ protobufBodies: 'accept' });
    const fb = await backend!.forwardBackward([d(3)], IS);
    expect(fb.logprobs).toEqual([[-0.5, -0.5, -0.5]]);
  });
});

describe('tinkerBackend wire format, negotiated with no option', () => {
  it('a protobuf-only server: protobuf bodies from the first request, fixture fields exact', async () => {
    await start({
      protobufBodies: 'accept',
      hook: (r) =>
        r.path === '/api/v1/forward_backward' && !String(r.headers['content-type']).startsWith(PB)
          ? { status: 415, json: { detail: 'protobuf only' } }
          : undefined,
    });
    const datum = {
      modelInput: [3, 1, 4, 1],
      targetTokens: [1, 4, 1, 5],
      logprobs: [-1.5, -2.25, -0.5, -3],
      advantages: [0.25, 1, 1, -0.5],
      mask: [1, 1, 1, 1],
    };
    await backend!.forwardBackward([datum], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
    const fbs = server!.seen('/api/v1/forward_backward');
    expect(fbs).toHaveLength(1);
    expect(fbs[0]!.headers['content-type']).toBe(PB);
    const msg = tinkerProto
      .type('ForwardBackwardRequest')
      .toObject(tinkerProto.type('ForwardBackwardRequest').decode(new Uint8Array(fbs[0]!.raw)), { longs: Number }) as any;
    expect(msg.model_id).toBe('model-0');
    expect(msg.seq_id).toBe(1);
    expect(msg.loss_fn).toBe('ppo');
    expect(msg.loss_fn_config).toEqual({ clip_low_threshold: 0.8, clip_high_threshold: 1.28 });
    expect(msg.forward_only ?? false).toBe(false);
    expect(msg.data).toHaveLength(1);
    expect(Array.from(new Int32Array(new Uint8Array(msg.data[0].model_input[0].encoded_text.tokens).buffer))).toEqual([3, 1, 4, 1]);
    const inputs = msg.data[0].loss_fn_inputs;
    expect(Object.keys(inputs).sort()).toEqual(['advantages', 'logprobs', 'target_tokens']);
    expect(inputs.target_tokens.dtype).toBe(2);
    expect(inputs.target_tokens.shape).toEqual([4]);
    expect(Array.from(new BigInt64Array(new Uint8Array(inputs.target_tokens.dense).buffer), Number)).toEqual([1, 4, 1, 5]);
    expect(inputs.logprobs.dtype).toBe(1);
    expect(Array.from(new Float32Array(new Uint8Array(inputs.logprobs.dense).buffer))).toEqual([-1.5, -2.25, -0.5, -3]);
    // forward (computeLogprobs) is forward_only inside the same message, on /forward_backward.
    await backend!.computeLogprobs([5, 6, 7]);
    const fo = tinkerProto.type('ForwardBackwardRequest').decode(new Uint8Array(server!.seen('/api/v1/forward_backward')[1]!.raw)) as any;
    expect(fo.forward_only).toBe(true);
    expect(fo.seq_id).toBe(2);
    expect(server!.seen('/api/v1/forward')).toHaveLength(0);
    // Polls ask for protobuf first.
    const fbPolls = server!.seen('/api/v1/retrieve_future').filter((r) => r.headers['x-tinker-request-type'] === 'ForwardBackward');
    expect(fbPolls.length).toBeGreaterThan(0);
    for (const p of fbPolls) expect(String(p.headers['accept'])).toMatch(/^application\/x-protobuf/);
  });

  it("wireFormat 'json' sends the ≤ 0.24 fixture bodies (modulo ids): forward_backward, forward, create_model, asample", async () => {
    await start({}, { wireFormat: 'json', lora: { rank: 8 } });
    const datum = {
      modelInput: [...fx.DATUM.tokens],
      targetTokens: [...fx.DATUM.targets],
      logprobs: [...fx.DATUM.logprobs],
      advantages: [...fx.DATUM.advantages],
      mask: [1, 1, 1, 1],
    };
    await backend!.forwardBackward([datum], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
    expect(server!.seen('/api/v1/forward_backward')[0]!.json).toEqual(fx.FB_JSON('model-0', 1));
    const cm = server!.seen('/api/v1/create_model')[0]!.json!;
    expect(cm).toEqual({ ...fx.CREATE_MODEL(String(cm['session_id'])), base_model: 'fake/model' });
    await backend!.computeLogprobs([...fx.DATUM.tokens, 5]);
    const fw = server!.seen('/api/v1/forward')[0]!.json as any;
    expect(fw.model_id).toBe('model-0');
    expect(fw.seq_id).toBe(2);
    expect(fw.forward_input.loss_fn).toBe('cross_entropy');
    expect(fw.forward_input.data[0].model_input).toEqual({ chunks: [{ tokens: [...fx.DATUM.tokens], type: 'encoded_text' }] });
    expect(fw.forward_input.data[0].loss_fn_inputs.target_tokens).toEqual({ data: [...fx.DATUM.targets], dtype: 'int64', shape: [4] });
    const sampler = await backend!.saveWeightsForSampler();
    await sampler.sample([5, 6, 7], { numSamples: 2, maxTokens: 3, seed: 7 });
    const smp = server!.seen('/api/v1/asample')[0]!.json!;
    const want = fx.SAMPLE(String(smp['sampling_session_id'])) as Record<string, unknown>;
    expect(smp).toEqual({ ...want, prompt_logprobs: false });
  });

  for (const refusal of ['refuse415', 'refuse422'] as const) {
    it(`a JSON-only server (${refusal}): falls back to JSON with the same seq_id and stays on JSON`, async () => {
      await start({ protobufBodies: refusal });
      await backend!.forwardBackward([d(2)], IS);
      await backend!.forwardBackward([d(2)], IS);
      const fbs = server!.seen('/api/v1/forward_backward');
      expect(fbs.map((r) => String(r.headers['content-type']).split(';')[0])).toEqual([PB, 'application/json', 'application/json']);
      expect(fbs.slice(1).map((r) => r.json!['seq_id'])).toEqual([1, 2]);
    });
  }

  it('proto_write_fwdbwd: false in client/config → JSON from the start', async () => {
    await start({ hook: (r) => (r.path === '/api/v1/client/config' ? { json: { proto_write_fwdbwd: false } } : undefined) });
    await backend!.connect();
    await backend!.forwardBackward([d(2)], IS);
    expect(server!.seen('/api/v1/forward_backward').map((r) => String(r.headers['content-type']).split(';')[0])).toEqual(['application/json']);
  });

  it("chunks by the server's fwdbwd_max_chunk_len and fwdbwd_max_chunk_bytes_count", async () => {
    await start({ protobufBodies: 'accept', hook: (r) => (r.path === '/api/v1/client/config' ? { json: { fwdbwd_max_chunk_len: 2 } } : undefined) });
    await backend!.connect();
    const fb = await backend!.forwardBackward([d(2), d(2), d(2), d(2), d(2)], IS);
    expect(fb.logprobs).toHaveLength(5);
    expect(server!.seen('/api/v1/forward_backward')).toHaveLength(3);
    await backend!.close();
    await server!.close();
    // ~ (4·4 + 16) + 3 tensors · (4·4 + 24) bytes per 4-token datum ≈ 152: 400 bytes → 2 datums per chunk.
    await start({ protobufBodies: 'accept', hook: (r) => (r.path === '/api/v1/client/config' ? { json: { fwdbwd_max_chunk_bytes_count: 400 } } : undefined) });
    await backend!.connect();
    await backend!.forwardBackward([d(4), d(4), d(4), d(4), d(4)], IS);
    expect(server!.seen('/api/v1/forward_backward')).toHaveLength(3);
  });
});

describe('tinkerBackend sampling concurrency', () => {
  it('keeps at most sample_max_concurrent_requests sampling requests in flight across samplers', async () => {
    let open = 0;
    let peak = 0;
    await start({
      protobufBodies: 'accept',
      hook: async (r, s) => {
        if (r.path === '/api/v1/client/config') return { json: { sample_max_concurrent_requests: 2 } };
        if (r.path === '/api/v1/asample') {
          open += 1;
          peak = Math.max(peak, open);
          return undefined;
        }
        if (r.path === '/api/v1/retrieve_future' && s.futures.get(String(r.json!['request_id']))?.op === 'asample') {
          await new Promise((res) => setTimeout(res, 50));
          open -= 1;
        }
        return undefined;
      },
    });
    const a = await backend!.saveWeightsForSampler();
    const b = await backend!.saveWeightsForSampler();
    const outs = await Promise.all([a, b, a, b, a, b].map((x) => x.sample([1, 2], { maxTokens: 2 })));
    expect(outs).toHaveLength(6);
    expect(peak).toBe(2);
  });
});

describe('tinkerBackend checkpoint conflicts, as the SDK', () => {
  it('save_weights sends overwrite:false; a 409 is the existing checkpoint (path returned, warning), later calls go on', async () => {
    let first = true;
    const { warnings } = await start({
      protobufBodies: 'accept',
      hook: (r) => {
        if (r.path !== '/api/v1/save_weights') return undefined;
        if (first) {
          first = false;
          return undefined;
        }
        return { status: 409, json: { error: 'checkpoint exists', category: 'user' } };
      },
    });
    await backend!.saveState('tinker://x/ckpt.1');
    expect(server!.seen('/api/v1/save_weights')[0]!.json).toMatchObject({ path: 'tinker_x_ckpt_1', overwrite: false, seq_id: 1 });
    expect(backend!.lastCheckpoint).toBe('tinker://model-0/weights/tinker_x_ckpt_1');
    await backend!.saveState('tinker://x/ckpt.1');
    expect(backend!.lastCheckpoint).toBe('tinker://model-0/weights/tinker_x_ckpt_1');
    expect(warnings.some((w) => w.code === 'server_notice' && /already exists/.test(w.message))).toBe(true);
    const os = await backend!.optimStep({ learningRate: 1e-3 });
    expect(os.metrics['learning_rate']).toBe(1e-3);
    expect(server!.seen('/api/v1/optim_step')[0]!.json!['seq_id']).toBe(3);
  });

  it('a 409 on another operation (a reused seq_id) stays an error', async () => {
    await start({
      protobufBodies: 'accept',
      hook: (r) => (r.path === '/api/v1/optim_step' ? { status: 409, json: { detail: 'Training request sequence number was reused' } } : undefined),
    });
    await expect(backend!.optimStep({ learningRate: 1e-3 })).rejects.toMatchObject({ status: 409 });
  });
});
