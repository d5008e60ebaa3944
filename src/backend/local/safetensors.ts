import { CheckpointError } from '../../errors/index.js';
import { utf8ByteLength } from '../../platform/host.js';

/** One F32 tensor: shape and row-major data. */
export interface HostTensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/**
 * Encodes tensors in the safetensors format: 8-byte little-endian header length, a JSON header
 * `{name: {dtype: "F32", shape, data_offsets: [begin, end]}, __metadata__?}` padded with spaces to
 * 8-byte alignment, then the raw little-endian data. Names are written in sorted order.
 */
export function encodeSafetensors(tensors: ReadonlyMap<string, HostTensor>, metadata?: Record<string, string>): Uint8Array {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const bytes = t.data.length * 4;
    header[name] = { dtype: 'F32', shape: [...t.shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  while ((8 + utf8ByteLength(json)) % 8 !== 0) json += ' ';
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let pos = 8 + headerBytes.length;
  for (const name of names) {
    const t = tensors.get(name)!;
    for (let i = 0; i < t.data.length; i++, pos += 4) view.setFloat32(pos, t.data[i]!, true);
  }
  return out;
}

/**
 * Decodes a safetensors buffer (F32 tensors only).
 * @throws CheckpointError on a truncated or malformed file or a dtype other than F32.
 */
export function decodeSafetensors(buf: Uint8Array): { tensors: Map<string, HostTensor>; metadata: Record<string, string> } {
  if (buf.length < 8) throw new CheckpointError('safetensors: file shorter than 8 bytes');
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLen = Number(view.getBigUint64(0, true));
  if (8 + headerLen > buf.length) throw new CheckpointError('safetensors: header length exceeds file size');
  let header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] } | Record<string, string>>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(buf.subarray(8, 8 + headerLen)));
  } catch (e) {
    throw new CheckpointError('safetensors: header is not valid JSON', { cause: e });
  }
  const base = 8 + headerLen;
  const tensors = new Map<string, HostTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = entry as Record<string, string>;
      continue;
    }
    const e = entry as { dtype: string; shape: number[]; data_offsets: [number, number] };
    if (e.dtype !== 'F32') throw new CheckpointError(`safetensors: tensor ${name} has dtype ${e.dtype}, only F32 is supported`);
    const [begin, end] = e.data_offsets;
    const n = e.shape.reduce((a, b) => a * b, 1);
    if (end - begin !== n * 4 || base + end > buf.length) throw new CheckpointError(`safetensors: tensor ${name} has bad data_offsets`);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = view.getFloat32(base + begin + i * 4, true);
    tensors.set(name, { shape: e.shape, data });
  }
  return { tensors, metadata };
}
