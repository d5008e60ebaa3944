/**
 * The protobuf side of `agentrl serve` (`tinker_public.proto`, as serialized in thinking-machines-lab/tinker
 * `src/tinker/proto/tinker_public_pb2.py`): a
 * `ForwardBackwardRequest` body decoded into the JSON shapes of `wire.ts`, and `SampleResponse` /
 * `ForwardBackwardOutput` results encoded from them. Tensors are raw little-endian bytes: tokens int32, dense
 * tensors in their dtype, `BatchedTensor.offsets` int64 byte offsets (a leading 0, then one end per datum).
 */
import { tinkerProto } from 'agentrl/internal';
import { BackendInputError } from 'agentrl/internal';
import type { FutureBody } from './future-store.js';
import type { TensorData, WireDatum } from './request-schemas.js';

/** Media type of protobuf bodies. */
export const PROTOBUF = 'application/x-protobuf';

const DTYPE_FLOAT32 = 1;
const DTYPE_INT64 = 2;
const DTYPE_INT32 = 3;
const DTYPE_BFLOAT16 = 4;

interface TensorMsg {
  dense?: Uint8Array;
  sparse_csr?: unknown;
  dtype?: number;
  shape?: (number | { toNumber(): number })[];
}
interface ChunkMsg {
  encoded_text?: { tokens?: Uint8Array };
  image?: unknown;
  dmel?: unknown;
}
type Int64 = number | { toNumber(): number };
interface SpanRunMsg {
  sequence_id?: string;
  offset?: Int64;
  length?: Int64;
}
interface SpanMsg {
  prompt_tokens?: SpanRunMsg | null;
  sampled_tokens?: SpanRunMsg | null;
}
interface DatumMsg {
  model_input?: ChunkMsg[];
  loss_fn_inputs?: Record<string, TensorMsg>;
  model_input_spans?: SpanMsg[];
  loss_fn_input_spans?: SpanMsg[];
}
interface FbRequestMsg {
  model_id?: string;
  seq_id?: number;
  data?: DatumMsg[];
  loss_fn?: string;
  loss_fn_config?: Record<string, number>;
  forward_only?: boolean;
  loss_fn_config_v2?: Record<string, { number?: number | null; text?: string | null }>;
}

/** A decoded protobuf `ForwardBackwardRequest`, in the JSON shape `forward_backward` takes, plus `forward_only`. */
export interface ProtoForwardBackward {
  readonly model_id: string;
  readonly seq_id: number;
  readonly forward_only: boolean;
  readonly forward_backward_input: { data: WireDatum[]; loss_fn: string; loss_fn_config: Record<string, number> | undefined };
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const num = (x: Int64) => (typeof x === 'number' ? x : x.toNumber());

function numbersOf(bytes: Uint8Array, dtype: number, field: string): number[] {
  const size = dtype === DTYPE_INT64 ? 8 : dtype === DTYPE_BFLOAT16 ? 2 : 4;
  if (bytes.length % size !== 0) throw new BackendInputError(field, `${bytes.length} bytes is not a whole number of ${size}-byte values`);
  const v = view(bytes);
  const n = bytes.length / size;
  const out = new Array<number>(n);
  switch (dtype) {
    case DTYPE_FLOAT32:
      for (let i = 0; i < n; i++) out[i] = v.getFloat32(i * 4, true);
      return out;
    case DTYPE_INT32:
      for (let i = 0; i < n; i++) out[i] = v.getInt32(i * 4, true);
      return out;
    case DTYPE_INT64:
      for (let i = 0; i < n; i++) out[i] = Number(v.getBigInt64(i * 8, true));
      return out;
    case DTYPE_BFLOAT16: {
      const f = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < n; i++) {
        f.setUint32(0, v.getUint16(i * 2, true) << 16, true);
        out[i] = f.getFloat32(0, true);
      }
      return out;
    }
    default:
      throw new BackendInputError(field, `unknown tensor dtype ${dtype}`);
  }
}

function tensorOf(t: TensorMsg, field: string): TensorData {
  if (t.sparse_csr !== undefined && t.sparse_csr !== null)
    throw new BackendInputError(field, 'sparse (CSR) tensors are not supported; send a dense 1-D tensor');
  const dtype = t.dtype ?? 0;
  if (dtype === 0) throw new BackendInputError(field, 'tensor dtype is unspecified');
  const data = numbersOf(t.dense ?? new Uint8Array(), dtype, field);
  const shape = (t.shape ?? []).map(num);
  return { data, dtype: dtype === DTYPE_INT64 || dtype === DTYPE_INT32 ? 'int64' : 'float32', ...(shape.length > 0 ? { shape } : {}) };
}

/**
 * Decodes a protobuf `ForwardBackwardRequest` body.
 * @throws BackendInputError for bytes that are not the message, a missing `model_id`, an unknown dtype or a
 *   sparse tensor. Non-text chunks are passed on as `{type}` chunks, which the datum conversion refuses by name.
 */
export function decodeForwardBackwardRequest(body: Uint8Array): ProtoForwardBackward {
  let msg: FbRequestMsg;
  try {
    // A plain Uint8Array view: protobufjs's Buffer reader does not bounds-check string lengths (a truncated body
    // would decode); its array reader does.
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    msg = tinkerProto.type('ForwardBackwardRequest').decode(bytes) as unknown as FbRequestMsg;
  } catch (e) {
    throw new BackendInputError('forward_backward', `body is not a protobuf ForwardBackwardRequest (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!msg.model_id) throw new BackendInputError('forward_backward.model_id', 'missing');
  const data = (msg.data ?? []).map((d, i): WireDatum => {
    const chunks = (d.model_input ?? []).map((c, j) => {
      if (c.encoded_text)
        return { type: 'encoded_text', tokens: numbersOf(c.encoded_text.tokens ?? new Uint8Array(), DTYPE_INT32, `data[${i}].model_input[${j}]`) };
      return { type: c.image ? 'image' : c.dmel ? 'dmel' : 'unknown' };
    });
    const inputs: Record<string, TensorData> = {};
    for (const [k, t] of Object.entries(d.loss_fn_inputs ?? {})) inputs[k] = tensorOf(t, `data[${i}].loss_fn_inputs.${k}`);
    checkProvenance(d, i, chunks, inputs['target_tokens']);
    return { model_input: { chunks }, loss_fn_inputs: inputs };
  });
  const config = lossConfigOf(msg);
  return {
    model_id: msg.model_id,
    seq_id: msg.seq_id ?? 0,
    forward_only: msg.forward_only === true,
    forward_backward_input: { data, loss_fn: msg.loss_fn ?? '', loss_fn_config: config },
  };
}

const has = (o: object, key: string): boolean => Object.hasOwn(o, key);

/**
 * The loss config of a request: SDK ≥ 0.26 sends `loss_fn_config_v2` (tagged number-or-text values) and mirrors its
 * numbers into the legacy float map; a server prefers v2 when it is set (`tinker_public_pb2.pyi`,
 * `ForwardBackwardRequest.loss_fn_config`). Every loss kind here takes numbers, so a text value is refused by name.
 */
function lossConfigOf(msg: FbRequestMsg): Record<string, number> | undefined {
  const v2 = msg.loss_fn_config_v2 ?? {};
  if (Object.keys(v2).length === 0) return msg.loss_fn_config && Object.keys(msg.loss_fn_config).length > 0 ? { ...msg.loss_fn_config } : undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(v2)) {
    const field = `forward_backward_input.loss_fn_config_v2.${k}`;
    // Set oneof arms are own properties of a decoded message; the prototype holds the defaults ('' and 0).
    if (has(v, 'text'))
      throw new BackendInputError(field, `text value '${String(v.text).slice(0, 64)}' is not accepted: every loss kind agentrl serve runs takes numbers`);
    if (!has(v, 'number') || typeof v.number !== 'number') throw new BackendInputError(field, 'LossConfigValue has neither number nor text');
    out[k] = v.number;
  }
  return out;
}

/**
 * Checks a datum's provenance (SDK ≥ 0.26 `Datum.model_input_spans` / `loss_fn_input_spans`, `types/datum.py` and
 * `types/provenance_spans.py`): both lists or neither; each span has exactly one arm, a non-empty `sequence_id`,
 * `offset ≥ 0` and `length ≥ 1`; the model-input runs tile the input tokens and the loss runs tile `target_tokens`.
 * The spans are validated and then dropped: no loss kind agentrl serve runs reads them (they name sequences by the
 * `SampledSequence.sequence_id` that this server never issues — see docs/backends.md, "Hosted Tinker ≥ 0.26").
 * @throws BackendInputError naming the datum and the list that breaks a rule.
 */
function checkProvenance(d: DatumMsg, i: number, chunks: readonly { tokens?: number[] }[], targets: TensorData | undefined): void {
  const mi = d.model_input_spans ?? [];
  const lf = d.loss_fn_input_spans ?? [];
  if (mi.length === 0 && lf.length === 0) return;
  if (mi.length === 0 || lf.length === 0) {
    throw new BackendInputError(`data[${i}]`, 'provenance comes as a pair: set both model_input_spans and loss_fn_input_spans, or neither');
  }
  if (chunks.some((c) => c.tokens === undefined)) return; // a non-text chunk: the datum conversion refuses it by name
  const inputLength = chunks.reduce((n, c) => n + (c.tokens?.length ?? 0), 0);
  tiles(mi, inputLength, `data[${i}].model_input_spans`, 'model_input tokens');
  tiles(lf, targets?.data.length ?? 0, `data[${i}].loss_fn_input_spans`, 'loss_fn_inputs.target_tokens');
}

function tiles(spans: readonly SpanMsg[], size: number, field: string, what: string): void {
  let covered = 0;
  spans.forEach((s, j) => {
    const run = (has(s, 'prompt_tokens') ? s.prompt_tokens : undefined) ?? (has(s, 'sampled_tokens') ? s.sampled_tokens : undefined);
    if (!run) throw new BackendInputError(`${field}[${j}]`, 'a span has exactly one of prompt_tokens or sampled_tokens');
    const offset = num(run.offset ?? 0);
    const length = num(run.length ?? 0);
    if (!run.sequence_id) throw new BackendInputError(`${field}[${j}].sequence_id`, 'must be non-empty');
    if (offset < 0) throw new BackendInputError(`${field}[${j}].offset`, `must be >= 0, got ${offset}`);
    if (length < 1) throw new BackendInputError(`${field}[${j}].length`, `must be >= 1, got ${length}`);
    covered += length;
  });
  if (covered !== size) throw new BackendInputError(field, `the runs cover ${covered} positions but the ${what} have ${size}; they must tile it exactly`);
}

/**
 * Whether an `Accept` header asks for protobuf: the media type is listed with a q-value above 0 (`*` wildcards do
 * not count — a client that names nothing gets JSON).
 */
export function acceptsProtobuf(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (type!.trim() !== PROTOBUF) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

type Floats = readonly (number | null)[];

/** Float32 little-endian bytes of several rows back to back (`null` → NaN), filled in one pass. */
function f32Rows(rows: readonly Floats[]): Uint8Array {
  let n = 0;
  for (const r of rows) n += r.length;
  const out = new Float32Array(n);
  let k = 0;
  for (const r of rows) for (let i = 0; i < r.length; i++) out[k++] = r[i] ?? Number.NaN;
  const bytes = new Uint8Array(out.buffer);
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return tinkerProto.float32Bytes(Array.from(out)); // big-endian host
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
const f32 = (xs: Floats): Uint8Array => f32Rows([xs]);

/** Per-datum float32 tensors as one `BatchedTensor` (offsets in bytes, a leading 0). */
function batched(rows: readonly Floats[]): { data: Uint8Array; offsets: Uint8Array; dtype: number; trailing_shape: number[] } {
  const offsets = [0];
  for (const r of rows) offsets.push(offsets[offsets.length - 1]! + r.length * 4);
  return { data: f32Rows(rows), offsets: tinkerProto.int64Bytes(offsets), dtype: DTYPE_FLOAT32, trailing_shape: [] };
}

/**
 * The protobuf form of a finished future, when it has one: `SampleResponse` for `type: "sample"`,
 * `ForwardBackwardOutput` for `type: "forward_backward"` (one `ArrayRecord` holding every datum). Other results and
 * `{error, category}` bodies stay JSON (the SDK reads failures as JSON whatever it asked for).
 */
export function protoResult(body: FutureBody): Uint8Array | undefined {
  if (typeof body['error'] === 'string') return undefined;
  if (body['type'] === 'sample') {
    const seqs = body['sequences'] as { tokens: number[]; logprobs: number[]; stop_reason: string }[];
    const pl = body['prompt_logprobs'] as Floats | undefined;
    const T = tinkerProto.type('SampleResponse');
    return T.encode(
      T.fromObject({
        sequences: seqs.map((s) => ({ stop_reason: s.stop_reason === 'length' ? 1 : 0, tokens: tinkerProto.int32Bytes(s.tokens), logprobs: f32(s.logprobs) })),
        ...(pl ? { prompt_logprobs: f32(pl) } : {}),
      }),
    ).finish();
  }
  if (body['type'] === 'forward_backward') {
    const outs = body['loss_fn_outputs'] as Record<string, { data: number[] }>[];
    const fields: Record<string, ReturnType<typeof batched>> = {};
    const names = outs.length > 0 ? Object.keys(outs[0]!) : [];
    for (const name of names) fields[name] = batched(outs.map((o) => o[name]!.data));
    const T = tinkerProto.type('ForwardBackwardOutput');
    return T.encode(
      T.fromObject({
        loss_fn_output_type: String(body['loss_fn_output_type'] ?? 'ArrayRecord'),
        loss_fn_outputs: outs.length > 0 ? [{ type_tag: 'ArrayRecord', fields, num_datums: outs.length }] : [],
        metrics: { ...(body['metrics'] as Record<string, number>) },
      }),
    ).finish();
  }
  return undefined;
}
