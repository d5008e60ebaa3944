/**
 * Request bodies of the official Tinker Python SDK after 0.25, written byte by byte by hand — not through our own
 * protobuf schema — so a wrong field number in `src/backend/tinker/proto.ts` fails the tests that use them.
 *
 * Sources (thinking-machines-lab/tinker, files as stored by the public index):
 * - `src/tinker/proto/tinker_public_pb2.py` @ 6889e5e (the serialized descriptor): `ForwardBackwardRequest` field 7
 *   `loss_fn_config_v2` (map<string, LossConfigValue>); `LossConfigValue` oneof `value` { double `number` = 1;
 *   string `text` = 2 }; `Datum` field 3 `model_input_spans` and 4 `loss_fn_input_spans` (repeated ProvenanceSpan);
 *   `ProvenanceSpan` oneof `span` { PromptProvenanceSpan `prompt_tokens` = 1; SampledProvenanceSpan
 *   `sampled_tokens` = 2 }; both span messages { string `sequence_id` = 1; int64 `offset` = 2; int64 `length` = 3 }.
 * - `src/tinker/proto/tinker_public_pb2.pyi` @ 0beab58: "New SDKs mirror float kwargs [into loss_fn_config] for
 *   servers that predate loss_fn_config_v2; servers prefer v2 when it is set."
 * - `src/tinker/types/datum.py`, `types/provenance_spans.py` @ 494a47f: spans come as a pair and tile their field.
 * - `src/tinker/types/sample_request.py` (stored version with `record_stability_info`): `topk_sample_logprobs: int = 0`,
 *   `target_prompt_logprobs: Optional[TensorData]`, `record_stability_info: Optional[bool]`.
 */
import { DATUM, f32, i32, i64 } from './sdk-fixtures.js';

/** Base-128 varint of a non-negative integer, or of a negative one as its 64-bit two's complement (10 bytes). */
export function varint(x: number): number[] {
  let v = BigInt.asUintN(64, BigInt(x));
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
}
const cat = (...parts: (readonly number[] | Uint8Array)[]): number[] => parts.flatMap((p) => Array.from(p));
/** A length-delimited field (wire type 2). */
export const ld = (field: number, body: readonly number[] | Uint8Array): number[] => cat([(field << 3) | 2], varint(body.length), body);
/** A varint field (wire type 0). */
export const vi = (field: number, x: number): number[] => cat([(field << 3) | 0], varint(x));
/** A string field. */
export const str = (field: number, s: string): number[] => ld(field, new TextEncoder().encode(s));
/** A double field (wire type 1, little-endian). */
export const dbl = (field: number, x: number): number[] => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x, true);
  return cat([(field << 3) | 1], b);
};

/** A `Tensor` { dense = 1; dtype = 3; shape = 4 (packed int64) }. */
const tensor = (dense: Uint8Array, dtype: number, length: number) => cat(ld(1, dense), vi(3, dtype), ld(4, varint(length)));
/** One `map<string, Tensor>` entry of `Datum.loss_fn_inputs` (field 2). */
const input = (key: string, t: number[]) => ld(2, cat(str(1, key), ld(2, t)));

/** One provenance run: `kind` picks the `ProvenanceSpan` arm (1 prompt_tokens, 2 sampled_tokens). */
export interface Span {
  readonly kind: 'prompt' | 'sampled';
  readonly sequenceId: string;
  readonly offset?: number;
  readonly length: number;
}
const span = (s: Span) => ld(s.kind === 'prompt' ? 1 : 2, cat(str(1, s.sequenceId), s.offset === undefined ? [] : vi(2, s.offset), vi(3, s.length)));

/** A PPO datum of {@link DATUM} with optional provenance lists (`Datum` fields 3 and 4). */
export function datum026(modelInputSpans: readonly Span[] = [], lossSpans: readonly Span[] = []): number[] {
  return cat(
    ld(1, ld(1, ld(1, i32(DATUM.tokens)))), // model_input: [Chunk{encoded_text{tokens}}]
    input('target_tokens', tensor(i64(DATUM.targets), 2, 4)),
    input('logprobs', tensor(f32(DATUM.logprobs), 1, 4)),
    input('advantages', tensor(f32(DATUM.advantages), 1, 4)),
    ...modelInputSpans.map((s) => ld(3, span(s))),
    ...lossSpans.map((s) => ld(4, span(s))),
  );
}

/** A `LossConfigValue` in the v2 map: a number, a text, or (`'empty'`) neither arm set. */
export type V2Value = number | string | 'empty';

/**
 * A `ForwardBackwardRequest` as SDK ≥ 0.26 writes it: the loss config in `loss_fn_config_v2` and mirrored (numbers
 * only) into the legacy `loss_fn_config`; `legacy` overrides the mirror to show which one a server reads.
 */
export function fb026(o: {
  modelId: string;
  seqId: number;
  v2: Readonly<Record<string, V2Value>>;
  legacy?: Readonly<Record<string, number>>;
  datum?: number[];
  lossFn?: string;
}): Uint8Array {
  const legacy = o.legacy ?? Object.fromEntries(Object.entries(o.v2).filter((e): e is [string, number] => typeof e[1] === 'number'));
  const v2value = (v: V2Value) => (v === 'empty' ? [] : typeof v === 'number' ? dbl(1, v) : str(2, v));
  return new Uint8Array(
    cat(
      str(1, o.modelId),
      vi(2, o.seqId),
      ld(3, o.datum ?? datum026()),
      str(4, o.lossFn ?? 'ppo'),
      ...Object.entries(legacy).map(([k, v]) => ld(5, cat(str(1, k), dbl(2, v)))),
      ...Object.entries(o.v2).map(([k, v]) => ld(7, cat(str(1, k), ld(2, v2value(v))))),
    ),
  );
}

/** `asample` of SDK ≥ 0.26 with its new fields at their defaults (`exclude_none` drops the `None` ones). */
export const SAMPLE_026 = (samplingSessionId: string, extra: Record<string, unknown> = {}) => ({
  num_samples: 2,
  prompt: { chunks: [{ tokens: [5, 6, 7], type: 'encoded_text' }] },
  sampling_params: { max_tokens: 3, seed: 7, temperature: 1, top_k: -1, top_p: 1 },
  sampling_session_id: samplingSessionId,
  seq_id: 0,
  prompt_logprobs: false,
  topk_prompt_logprobs: 0,
  topk_sample_logprobs: 0,
  type: 'sample',
  ...extra,
});

/** One protobuf field as read back by {@link readFields}. */
export interface Field {
  readonly field: number;
  readonly wire: number;
  /** Varint value (wire 0), the 8 raw bytes (wire 1) or the payload (wire 2). */
  readonly value: bigint | Uint8Array;
}

/** The top-level fields of a protobuf message, read without any schema (wire types 0, 1, 2 and 5). */
export function readFields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  const next = (): bigint => {
    let x = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[i++]!;
      x |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return x;
      shift += 7n;
    }
  };
  while (i < bytes.length) {
    const key = Number(next());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ field, wire, value: next() });
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      out.push({ field, wire, value: bytes.slice(i, i + n) });
      i += n;
    } else if (wire === 2) {
      const n = Number(next());
      out.push({ field, wire, value: bytes.slice(i, i + n) });
      i += n;
    } else throw new Error(`wire type ${wire} at byte ${i}`);
  }
  return out;
}
