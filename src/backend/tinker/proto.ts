import protobuf from 'protobufjs';
import { BackendRequestError } from '../../errors/index.js';
import type { SampledSequence } from '../../types/sampling.js';
import type { ForwardBackwardOutput, SampleOutput, WireDatum } from './json-wire.js';

/**
 * The messages of Tinker's `tinker_public.proto` this client uses (field numbers as reconstructed from the SDK's
 * generated `tinker_public_pb2.py`, see `docs/backends.md`; `loss_fn_config_v2`, `LossConfigValue` and the datum
 * provenance spans of SDK ≥ 0.26 from its descriptor at commit 6889e5e, see "Hosted Tinker ≥ 0.26" there). Tensors travel as raw little-endian bytes: tokens int32,
 * dense tensors in their dtype, `BatchedTensor.offsets` int64 byte offsets (one per datum plus a leading 0).
 */
const PROTO_SOURCE = `
syntax = "proto3";
package tinker_public;
enum StopReason { STOP_REASON_STOP = 0; STOP_REASON_LENGTH = 1; }
enum DType { DTYPE_UNSPECIFIED = 0; DTYPE_FLOAT32 = 1; DTYPE_INT64 = 2; DTYPE_INT32 = 3; DTYPE_BFLOAT16 = 4; }
message SampleResponse { repeated SampledSequence sequences = 1; optional bytes prompt_logprobs = 2;
  optional TopkPromptLogprobs topk_prompt_logprobs = 3; int32 prompt_cache_hit_tokens = 4; }
message SampledSequence { StopReason stop_reason = 1; bytes tokens = 2; optional bytes logprobs = 3; }
message TopkPromptLogprobs { bytes token_ids = 1; bytes logprobs = 2; uint32 k = 3; uint32 prompt_length = 4; }
message SparseCsr { bytes values = 1; bytes crow_indices = 2; bytes col_indices = 3; }
message Tensor { oneof encoding { bytes dense = 1; SparseCsr sparse_csr = 2; } DType dtype = 3; repeated int64 shape = 4; }
message BatchedTensor { bytes data = 1; bytes offsets = 2; DType dtype = 3; repeated int64 trailing_shape = 4; }
message ArrayRecord { string type_tag = 1; map<string, BatchedTensor> fields = 2; int64 num_datums = 3; }
message ForwardBackwardOutput { string loss_fn_output_type = 1; repeated ArrayRecord loss_fn_outputs = 2; map<string, double> metrics = 3; }
message ForwardBackwardRequest { string model_id = 1; int32 seq_id = 2; repeated Datum data = 3; string loss_fn = 4;
  map<string, double> loss_fn_config = 5; bool forward_only = 6; map<string, LossConfigValue> loss_fn_config_v2 = 7; }
message LossConfigValue { oneof value { double number = 1; string text = 2; } }
message Datum { repeated Chunk model_input = 1; map<string, Tensor> loss_fn_inputs = 2;
  repeated ProvenanceSpan model_input_spans = 3; repeated ProvenanceSpan loss_fn_input_spans = 4; }
message ProvenanceSpan { oneof span { PromptProvenanceSpan prompt_tokens = 1; SampledProvenanceSpan sampled_tokens = 2; } }
message PromptProvenanceSpan { string sequence_id = 1; int64 offset = 2; int64 length = 3; }
message SampledProvenanceSpan { string sequence_id = 1; int64 offset = 2; int64 length = 3; }
message Chunk { oneof chunk { EncodedTextChunk encoded_text = 1; ImageChunk image = 2; DmelChunk dmel = 3; } }
message EncodedTextChunk { bytes tokens = 1; }
message ImageChunk { bytes data = 1; string format = 2; optional int32 expected_tokens = 3; }
message DmelChunk { bytes dmel = 1; }
`;

const DTYPE = { FLOAT32: 1, INT64: 2, INT32: 3, BFLOAT16: 4 } as const;

let root: protobuf.Root | undefined;
function type(name: string): protobuf.Type {
  root ??= protobuf.parse(PROTO_SOURCE, { keepCase: true }).root;
  return root.lookupType(`tinker_public.${name}`);
}

// Tensors are little-endian on the wire; typed arrays are written directly where the platform is too (x86, ARM).
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Bytes as a Buffer over the same memory: protobufjs copies a Buffer with one memcpy but a plain Uint8Array byte by
 * byte (30 ms for a 64 × 512-token batch).
 */
const asBuffer = (b: Uint8Array): Uint8Array => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

function int32Bytes(xs: readonly number[]): Uint8Array {
  if (LITTLE_ENDIAN) return asBuffer(new Uint8Array(Int32Array.from(xs).buffer));
  const b = new Uint8Array(xs.length * 4);
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => {
    v.setInt32(i * 4, x, true);
  });
  return asBuffer(b);
}

function float32Bytes(xs: readonly number[]): Uint8Array {
  if (LITTLE_ENDIAN) return asBuffer(new Uint8Array(Float32Array.from(xs).buffer));
  const b = new Uint8Array(xs.length * 4);
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => {
    v.setFloat32(i * 4, x, true);
  });
  return asBuffer(b);
}

function int64Bytes(xs: readonly number[]): Uint8Array {
  const b = new Uint8Array(xs.length * 8);
  if (LITTLE_ENDIAN) {
    // Two int32 words per value (low, high): exact for every safe integer, without a BigInt per value.
    const w = new Int32Array(b.buffer);
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      w[2 * i] = x | 0;
      w[2 * i + 1] = Math.floor(x / 4294967296);
    }
    return asBuffer(b);
  }
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => {
    v.setBigInt64(i * 8, BigInt(x), true);
  });
  return asBuffer(b);
}

/** protobufjs decode of message `name`; its own errors (truncated or malformed wire data) become BackendRequestError. */
function decodeMessage(name: string, bytes: Uint8Array, op: string): unknown {
  try {
    return type(name).decode(bytes);
  } catch (e) {
    throw new BackendRequestError(op, 'unknown', `malformed protobuf ${name}: ${(e as Error).message}`);
  }
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Bytes per element of a wire dtype (`0`, unspecified, reads as float32). @throws BackendRequestError for an unknown dtype */
function elementBytes(dtype: number, op: string): number {
  switch (dtype) {
    case 0:
    case DTYPE.FLOAT32:
    case DTYPE.INT32:
      return 4;
    case DTYPE.INT64:
      return 8;
    case DTYPE.BFLOAT16:
      return 2;
    default:
      throw new BackendRequestError(op, 'unknown', `protobuf tensor with unknown dtype ${dtype}`);
  }
}

/**
 * Little-endian numbers of `bytes` in `dtype` (float32, int64, int32, or bfloat16 upcast). The output has exactly
 * `bytes.length / elementSize` entries, so it is never larger than the reply that carried it.
 * @throws BackendRequestError for an unknown dtype or a byte length that is not a whole number of elements.
 */
export function decodeNumbers(bytes: Uint8Array, dtype: number, op = 'retrieve_future'): number[] {
  const size = elementBytes(dtype, op);
  if (bytes.length % size !== 0)
    throw new BackendRequestError(op, 'unknown', `malformed protobuf tensor: ${bytes.length} bytes is not a whole number of ${size}-byte elements`);
  const v = view(bytes);
  const out: number[] = [];
  switch (dtype) {
    case DTYPE.FLOAT32:
    case 0:
      for (let i = 0; i + 4 <= bytes.length; i += 4) out.push(v.getFloat32(i, true));
      return out;
    case DTYPE.INT32:
      for (let i = 0; i + 4 <= bytes.length; i += 4) out.push(v.getInt32(i, true));
      return out;
    case DTYPE.INT64:
      for (let i = 0; i + 8 <= bytes.length; i += 8) {
        const x = v.getBigInt64(i, true);
        if (x > BigInt(Number.MAX_SAFE_INTEGER) || x < BigInt(Number.MIN_SAFE_INTEGER))
          throw new BackendRequestError(op, 'unknown', `malformed protobuf tensor: int64 ${x} is not a safe integer`);
        out.push(Number(x));
      }
      return out;
    case DTYPE.BFLOAT16: {
      const f = new DataView(new ArrayBuffer(4));
      for (let i = 0; i + 2 <= bytes.length; i += 2) {
        f.setUint32(0, v.getUint16(i, true) << 16, true);
        out.push(f.getFloat32(0, true));
      }
      return out;
    }
    default:
      throw new BackendRequestError('retrieve_future', 'unknown', `protobuf tensor with unknown dtype ${dtype}`);
  }
}

/** Arguments of {@link encodeForwardBackwardRequest}. */
export interface ForwardBackwardProtoArgs {
  readonly modelId: string;
  readonly seqId: number;
  readonly datums: readonly WireDatum[];
  readonly lossFn: string;
  readonly lossFnConfig?: Readonly<Record<string, number>>;
  readonly forwardOnly: boolean;
}

/**
 * A `ForwardBackwardRequest` protobuf body (`Content-Type: application/x-protobuf`). The loss config goes out as SDK
 * ≥ 0.26 sends it: `loss_fn_config_v2` (each value a `LossConfigValue.number`) with the same numbers mirrored into the
 * legacy `loss_fn_config` for servers that predate v2 (`tinker_public_pb2.pyi`, `ForwardBackwardRequest`).
 */
export function encodeForwardBackwardRequest(a: ForwardBackwardProtoArgs): Uint8Array {
  const T = type('ForwardBackwardRequest');
  const config = { ...(a.lossFnConfig ?? {}) };
  const msg = T.fromObject({
    model_id: a.modelId,
    seq_id: a.seqId,
    loss_fn: a.lossFn,
    loss_fn_config: config,
    loss_fn_config_v2: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { number: v }])),
    forward_only: a.forwardOnly,
    data: a.datums.map((d) => ({
      model_input: [{ encoded_text: { tokens: int32Bytes(d.modelInput) } }],
      loss_fn_inputs: Object.fromEntries(
        Object.entries(d.inputs).map(([k, t]) => [
          k,
          {
            dense: t.dtype === 'int64' ? int64Bytes(t.data) : float32Bytes(t.data),
            dtype: t.dtype === 'int64' ? DTYPE.INT64 : DTYPE.FLOAT32,
            shape: [t.data.length],
          },
        ]),
      ),
    })),
  });
  return T.encode(msg).finish();
}

interface BatchedTensorMsg {
  data?: Uint8Array;
  offsets?: Uint8Array;
  dtype?: number;
}

/**
 * The datum boundaries of a `BatchedTensor`, checked before any of its data is decoded: int64 byte offsets, the first
 * 0, non-decreasing, each on an element boundary, the last equal to the data length, and at most `maxDatums` datums.
 * Crafted offsets (overlapping, backwards, past the data, or millions of them) would otherwise make a few bytes of
 * reply decode into gigabytes.
 * @returns the offsets, `maxDatums + 1` at most.
 * @throws BackendRequestError naming the first violation.
 */
function checkedOffsets(offsetBytes: Uint8Array, dataLength: number, elemSize: number, maxDatums: number, op: string): number[] {
  const bad = (why: string) => new BackendRequestError(op, 'unknown', `malformed protobuf result: BatchedTensor offsets ${why}`);
  if (offsetBytes.length % 8 !== 0) throw bad(`are ${offsetBytes.length} bytes, not a whole number of int64`);
  const count = offsetBytes.length / 8;
  if (count === 0) throw bad('are empty (expected a leading 0)');
  if (count - 1 > maxDatums) throw bad(`describe ${count - 1} datums, more than the ${maxDatums} expected`);
  const offsets = decodeNumbers(offsetBytes, DTYPE.INT64, op);
  if (offsets[0] !== 0) throw bad(`start at ${offsets[0]}, not 0`);
  for (let i = 1; i < count; i++) {
    const o = offsets[i]!;
    if (o < offsets[i - 1]!) throw bad(`decrease at entry ${i} (${offsets[i - 1]} → ${o})`);
    if (o > dataLength) throw bad(`point past the data (${o} > ${dataLength} bytes) at entry ${i}`);
    if (o % elemSize !== 0) throw bad(`entry ${i} (${o}) is not on a ${elemSize}-byte element boundary`);
  }
  if (offsets[count - 1] !== dataLength) throw bad(`end at ${offsets[count - 1]}, not at the data's ${dataLength} bytes`);
  return offsets;
}

/**
 * Decodes a protobuf `ForwardBackwardOutput` with `n` datums (learner `logprobs` per datum, metrics). Offsets are
 * validated before data is decoded ({@link checkedOffsets}), so the decoded numbers never outnumber the reply's bytes.
 * @throws BackendRequestError for a malformed reply or one that does not hold exactly `n` datums.
 */
export function decodeForwardBackwardProto(bytes: Uint8Array, n: number): ForwardBackwardOutput {
  const msg = decodeMessage('ForwardBackwardOutput', bytes, 'forward_backward') as {
    loss_fn_outputs?: { fields?: Record<string, BatchedTensorMsg>; num_datums?: number | { toNumber(): number } }[];
    metrics?: Record<string, number>;
  };
  const logprobs: number[][] = [];
  for (const rec of msg.loss_fn_outputs ?? []) {
    const t = rec.fields?.['logprobs'];
    if (!t) throw new BackendRequestError('forward_backward', 'unknown', 'protobuf result has no logprobs field');
    const data = t.data ?? new Uint8Array();
    const dtype = t.dtype ?? DTYPE.FLOAT32;
    const offsets = checkedOffsets(
      t.offsets ?? new Uint8Array(),
      data.length,
      elementBytes(dtype, 'forward_backward'),
      n - logprobs.length,
      'forward_backward',
    );
    for (let i = 0; i + 1 < offsets.length; i++) logprobs.push(decodeNumbers(data.subarray(offsets[i], offsets[i + 1]), dtype, 'forward_backward'));
  }
  if (logprobs.length !== n) throw new BackendRequestError('forward_backward', 'unknown', `protobuf result holds ${logprobs.length} datums, expected ${n}`);
  return { logprobs, metrics: { ...(msg.metrics ?? {}) } };
}

/** Decodes a protobuf `SampleResponse`; NaN prompt logprobs (and entry 0) become `null`. */
export function decodeSampleProto(bytes: Uint8Array): SampleOutput {
  const msg = decodeMessage('SampleResponse', bytes, 'sample') as {
    sequences?: { stop_reason?: number; tokens?: Uint8Array; logprobs?: Uint8Array }[];
    prompt_logprobs?: Uint8Array;
  };
  const sequences = (msg.sequences ?? []).map((s): SampledSequence => {
    const tokens = decodeNumbers(s.tokens ?? new Uint8Array(), DTYPE.INT32, 'sample');
    const logprobs = s.logprobs ? decodeNumbers(s.logprobs, DTYPE.FLOAT32, 'sample') : [];
    if (logprobs.length !== tokens.length) {
      throw new BackendRequestError('sample', 'unknown', `malformed result: ${logprobs.length} logprobs for ${tokens.length} sampled tokens`);
    }
    return { tokens, logprobs, stopReason: s.stop_reason === 1 ? 'length' : 'stop' };
  });
  if (!Object.hasOwn(msg, 'prompt_logprobs') || msg.prompt_logprobs === undefined) return { sequences };
  const promptLogprobs = decodeNumbers(msg.prompt_logprobs, DTYPE.FLOAT32, 'sample').map((x) => (Number.isNaN(x) ? null : x));
  return { sequences, promptLogprobs };
}

/** Encoders used by tests and servers speaking the same protocol (agentrl serve). */
export const tinkerProto = {
  /** The protobufjs type of a message of `tinker_public.proto`, e.g. `'SampleResponse'`. */
  type,
  int32Bytes,
  float32Bytes,
  int64Bytes,
};
