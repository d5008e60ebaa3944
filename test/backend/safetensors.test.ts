import { describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensors } from '../../src/backend/local/safetensors.js';
import { CheckpointError } from '../../src/errors/index.js';

describe('safetensors', () => {
  it('round-trips F32 tensors with shapes and metadata', () => {
    // Hazard: checkpoints that do not load back bit-identically.
    const tensors = new Map([
      ['b', { shape: [2, 3], data: Float32Array.from([1, -2, 3.5, 1e-30, -0, 7]) }],
      ['a', { shape: [1], data: Float32Array.from([Math.PI]) }],
    ]);
    const buf = encodeSafetensors(tensors, { step: '3' });
    const { tensors: out, metadata } = decodeSafetensors(buf);
    expect(metadata).toEqual({ step: '3' });
    expect(out.get('a')!.shape).toEqual([1]);
    expect(Array.from(out.get('b')!.data)).toEqual(Array.from(tensors.get('b')!.data));
    expect(out.get('a')!.data[0]).toBe(Math.fround(Math.PI));
  });

  it('writes the documented layout: u64 LE header length, JSON header, 8-byte aligned data', () => {
    // Hazard: files other tools (Python safetensors) cannot read.
    const buf = encodeSafetensors(new Map([['w', { shape: [2], data: Float32Array.from([1, 2]) }]]));
    const n = Number(new DataView(buf.buffer).getBigUint64(0, true));
    expect((8 + n) % 8).toBe(0);
    const header = JSON.parse(Buffer.from(buf.subarray(8, 8 + n)).toString('utf8'));
    expect(header.w).toEqual({ dtype: 'F32', shape: [2], data_offsets: [0, 8] });
    expect(new DataView(buf.buffer).getFloat32(8 + n + 4, true)).toBe(2);
  });

  it('rejects truncated files with CheckpointError', () => {
    // Hazard: a half-written checkpoint silently loading garbage.
    const buf = encodeSafetensors(new Map([['w', { shape: [4], data: new Float32Array(4) }]]));
    expect(() => decodeSafetensors(buf.subarray(0, buf.length - 4))).toThrow(CheckpointError);
    expect(() => decodeSafetensors(new Uint8Array(3))).toThrow(CheckpointError);
  });
});
