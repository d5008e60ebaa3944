import type { HttpBody } from './http.js';
import { PROTOBUF } from './http.js';
import type { TinkerLossPlan } from './loss-mapping.js';
import { encodeForwardBackwardRequest } from './proto.js';
import { forwardBackwardInputJson, type WireDatum } from './json-wire.js';
import { tinkerPath } from './protocol/routes.js';

/** Estimated protobuf bytes of one datum: int32 tokens, tensors in their dtype, and a little framing per tensor. */
export function datumProtoBytes(d: WireDatum): number {
  let n = d.modelInput.length * 4 + 16;
  for (const t of Object.values(d.inputs)) n += t.data.length * (t.dtype === 'int64' ? 8 : 4) + 24;
  return n;
}

/**
 * Splits wire datums into chunks of at most `maxDatums` datums and about `maxBytes` estimated protobuf bytes (the
 * SDK's `fwdbwd_max_chunk_bytes_count`, default 5,000,000); each chunk is one request. A datum larger than the
 * byte limit goes alone.
 */
export function chunkDatums(datums: readonly WireDatum[], maxDatums: number, maxBytes = 5_000_000): WireDatum[][] {
  const out: WireDatum[][] = [];
  let cur: WireDatum[] = [];
  let bytes = 0;
  for (const d of datums) {
    const n = datumProtoBytes(d);
    if (cur.length > 0 && (cur.length >= maxDatums || bytes + n > maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(d);
    bytes += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Body of one `forward_backward` (or, with `forwardOnly`, `forward`) request, JSON or protobuf. */
export function forwardBackwardBody(args: {
  readonly modelId: string;
  readonly seqId: number;
  readonly datums: readonly WireDatum[];
  readonly plan: Pick<TinkerLossPlan, 'lossFn' | 'lossFnConfig'>;
  readonly forwardOnly: boolean;
  readonly wireFormat: 'json' | 'protobuf';
}): { path: string; body: HttpBody } {
  const { modelId, seqId, datums, plan, forwardOnly } = args;
  if (args.wireFormat === 'protobuf') {
    return {
      path: tinkerPath('forward_backward'),
      body: {
        raw: encodeForwardBackwardRequest({
          modelId,
          seqId,
          datums,
          lossFn: plan.lossFn,
          ...(plan.lossFnConfig ? { lossFnConfig: plan.lossFnConfig } : {}),
          forwardOnly,
        }),
        contentType: PROTOBUF,
      },
    };
  }
  const input = forwardBackwardInputJson(datums, plan.lossFn, plan.lossFnConfig);
  return forwardOnly
    ? { path: tinkerPath('forward'), body: { json: { forward_input: input, model_id: modelId, seq_id: seqId } } }
    : { path: tinkerPath('forward_backward'), body: { json: { forward_backward_input: input, model_id: modelId, seq_id: seqId } } };
}

/**
 * A checkpoint name every server accepts — SkyRL's rule `^[a-zA-Z0-9_-]+$` (no `.`), ≤ 128 chars — derived from a
 * path such as `runs/a/ckpt-10.5` (→ `runs_a_ckpt-10_5`).
 */
export function checkpointName(path: string): string {
  const s = path
    .replace(/^\.?\/+/, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (s === '' ? 'checkpoint' : s).slice(-128);
}
