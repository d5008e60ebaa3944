import { afterEach, describe, expect, it } from 'vitest';
import { tinkerBackend, tinkerProto, type TinkerBackend } from 'agentrl/internal';
import { decodeForwardBackwardProto, decodeNumbers, decodeSampleProto, encodeForwardBackwardRequest } from '../../../src/backend/tinker/proto.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker, type Reply, type SeenRequest } from './fake-tinker-server.js';

const PB = 'application/x-protobuf';

/** A protobuf ForwardBackwardOutput as SkyRL serialises it: one ArrayRecord, int64 byte offsets with a leading 0. */
function fbOutput(logprobs_D: number[][], metrics: Record<string, number>): Uint8Array {
  const T = tinkerProto.type('ForwardBackwardOutput');
  const flat = logprobs_D.flat();
  const offsets = [0];
  for (const row of logprobs_D) offsets.push(offsets.at(-1)! + row.length * 4);
  return T.encode(
    T.fromObject({
      loss_fn_output_type: 'ArrayRecord',
      metrics,
      loss_fn_outputs: [
        { num_datums: logprobs_D.length, fields: { logprobs: { data: tinkerProto.float32Bytes(flat), offsets: tinkerProto.int64Bytes(offsets), dtype: 1 } } },
      ],
    }),
  ).finish();
}

describe('tinker_public.proto codec', () => {
  it('encodes a ForwardBackwardRequest with int32 tokens and typed little-endian tensors', () => {
    const bytes = encodeForwardBackwardRequest({
      modelId: 'm',
      seqId: 3,
      lossFn: 'ppo',
      lossFnConfig: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      forwardOnly: false,
      datums: [{ modelInput: [5, 70000], inputs: { target_tokens: { dtype: 'int64', data: [70000, 2] }, advantages: { dtype: 'float32', data: [0.5, -1] } } }],
    });
    const msg = tinkerProto.type('ForwardBackwardRequest').toObject(tinkerProto.type('ForwardBackwardRequest').decode(bytes), { longs: Number }) as {
      model_id: string;
      seq_id: number;
      loss_fn: string;
      loss_fn_config: Record<string, number>;
      data: {
        model_input: { encoded_text: { tokens: Uint8Array } }[];
        loss_fn_inputs: Record<string, { dense: Uint8Array; dtype: number; shape: number[] }>;
      }[];
    };
    expect([msg.model_id, msg.seq_id, msg.loss_fn]).toEqual(['m', 3, 'ppo']);
    expect(msg.loss_fn_config['clip_high_threshold']).toBeCloseTo(1.28, 12);
    const d = msg.data[0]!;
    expect(decodeNumbers(d.model_input[0]!.encoded_text.tokens, 3)).toEqual([5, 70000]);
    expect(decodeNumbers(d.loss_fn_inputs['target_tokens']!.dense, d.loss_fn_inputs['target_tokens']!.dtype)).toEqual([70000, 2]);
    expect(d.loss_fn_inputs['target_tokens']!.dtype).toBe(2);
    expect(d.loss_fn_inputs['advantages']!.shape).toEqual([2]);
    expect(decodeNumbers(d.loss_fn_inputs['advantages']!.dense, 1)).toEqual([0.5, -1]);
  });

  it('decodes ForwardBackwardOutput batched tensors by byte offsets, and bfloat16', () => {
    const out = decodeForwardBackwardProto(fbOutput([[-0.5, -0.25], [-1]], { 'loss:sum': 1.5 }), 2);
    expect(out).toEqual({ logprobs: [[-0.5, -0.25], [-1]], metrics: { 'loss:sum': 1.5 } });
    expect(() => decodeForwardBackwardProto(fbOutput([[-1]], {}), 2)).toThrow(/1 datums, expected 2/);
    // bfloat16 −0.5 is 0xBF00.
    expect(decodeNumbers(new Uint8Array([0x00, 0xbf]), 4)).toEqual([-0.5]);
  });

  it('decodes SampleResponse: stop reasons, tokens, logprobs, NaN prompt logprobs as null', () => {
    const T = tinkerProto.type('SampleResponse');
    const bytes = T.encode(
      T.fromObject({
        sequences: [
          { stop_reason: 1, tokens: tinkerProto.int32Bytes([4, 5]), logprobs: tinkerProto.float32Bytes([-0.5, -2]) },
          { stop_reason: 0, tokens: tinkerProto.int32Bytes([9]), logprobs: tinkerProto.float32Bytes([-0.25]) },
        ],
        prompt_logprobs: tinkerProto.float32Bytes([Number.NaN, -1.5, -0.5]),
      }),
    ).finish();
    expect(decodeSampleProto(bytes)).toEqual({
      sequences: [
        { tokens: [4, 5], logprobs: [-0.5, -2], stopReason: 'length' },
        { tokens: [9], logprobs: [-0.25], stopReason: 'stop' },
      ],
      promptLogprobs: [null, -1.5, -0.5],
    });
    // Sampled tokens without logprobs cannot be trained on: refused rather than filled with NaN.
    const noLp = T.encode(T.fromObject({ sequences: [{ stop_reason: 0, tokens: tinkerProto.int32Bytes([9]) }] })).finish();
    expect(() => decodeSampleProto(noLp)).toThrow(/0 logprobs for 1 sampled tokens/);
  });
});

let server: FakeTinker | undefined;
let backend: TinkerBackend | undefined;
afterEach(async () => {
  await backend?.close();
  await server?.close();
});

describe("tinkerBackend({ wireFormat: 'protobuf' })", () => {
  it('falls back to JSON bodies (same seq_id) when the server refuses protobuf with 415, and stays on JSON', async () => {
    server = await FakeTinker.start({
      hook: (r) =>
        r.path === '/api/v1/forward_backward' && r.headers['content-type'] === PB
          ? { status: 415, json: { error: 'protobuf bodies are not supported', category: 'user' } }
          : undefined,
    });
    backend = tinkerBackend({ baseUrl: server.url, baseModel: 'fake', renderer: LOCAL_MODEL_DIR, maxContextTokens: 64, wireFormat: 'protobuf' });
    const d = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [-1, -1], advantages: [1, 1], mask: [1, 1] };
    expect((await backend.forwardBackward([d], { kind: 'importance_sampling' })).logprobs).toEqual([[-0.5, -0.5]]);
    await backend.forwardBackward([d], { kind: 'importance_sampling' });
    const fbs = server.seen('/api/v1/forward_backward');
    expect(fbs.map((r) => r.headers['content-type'])).toEqual([PB, 'application/json', 'application/json']);
    expect(fbs.slice(1).map((r) => r.json!['seq_id'])).toEqual([1, 2]);
  });

  it('sends forward_backward as protobuf, asks for protobuf results and decodes them; JSON answers still work', async () => {
    const fbBodies: SeenRequest[] = [];
    let answerJson = false;
    server = await FakeTinker.start({
      protobufBodies: 'accept',
      hook: (r, s): Reply | undefined => {
        if (r.path === '/api/v1/forward_backward') {
          fbBodies.push(r);
          return { json: { request_id: s.addFuture('forward_backward', r) } };
        }
        if (r.path !== '/api/v1/retrieve_future') return undefined;
        const f = s.futures.get(String(r.json!['request_id']))!;
        const wantsPb = String(r.headers['accept']).startsWith(PB);
        if (f.op === 'forward_backward') {
          const req = tinkerProto.type('ForwardBackwardRequest').decode(f.body.raw) as unknown as { data: unknown[] };
          const rows = req.data.map(() => [-0.5, -0.5]);
          if (answerJson) return { json: { loss_fn_outputs: rows.map((x) => ({ logprobs: { data: x, dtype: 'float32' } })), metrics: { 'loss:sum': 2 } } };
          expect(wantsPb).toBe(true);
          return { raw: fbOutput(rows, { 'loss:sum': 2 }), contentType: PB };
        }
        if (f.op === 'asample') {
          expect(wantsPb).toBe(true);
          const T = tinkerProto.type('SampleResponse');
          return {
            raw: T.encode(
              T.fromObject({ sequences: [{ stop_reason: 0, tokens: tinkerProto.int32Bytes([3, 2]), logprobs: tinkerProto.float32Bytes([-1, -2]) }] }),
            ).finish(),
            contentType: PB,
          };
        }
        return undefined;
      },
    });
    backend = tinkerBackend({ baseUrl: server.url, baseModel: 'fake', renderer: LOCAL_MODEL_DIR, maxContextTokens: 64, wireFormat: 'protobuf' });
    const d = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [-1, -1], advantages: [1, 1], mask: [1, 1] };
    const fb = await backend.forwardBackward([d, d], { kind: 'importance_sampling', aggregation: 'token-sum' });
    expect(fb.logprobs).toEqual([
      [-0.5, -0.5],
      [-0.5, -0.5],
    ]);
    expect(fb.metrics['loss']).toBe(2);
    expect(fbBodies[0]!.headers['content-type']).toBe(PB);
    expect((tinkerProto.type('ForwardBackwardRequest').decode(fbBodies[0]!.raw) as unknown as { seq_id: number }).seq_id).toBe(1);
    answerJson = true;
    const fb2 = await backend.forwardBackward([d], { kind: 'importance_sampling' });
    expect(fb2.logprobs).toEqual([[-0.5, -0.5]]);
    const sampler = await backend.saveWeightsForSampler();
    expect(await sampler.sample([1], { maxTokens: 4 })).toEqual([{ tokens: [3, 2], logprobs: [-1, -2], stopReason: 'stop' }]);
  });
});
