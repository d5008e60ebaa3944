import { decompress } from 'fzstd';
import { ServeRequestError } from './errors.js';

const ZSTD_MAGIC = 0xfd2fb528;
/** Largest decompressed size of one compressed block (RFC 8878 §3.1.1.2.3: min(window, 128 KiB)). */
const BLOCK_MAX = 128 * 1024;

/**
 * Bounds a zstd body before it is decompressed (RFC 8878): walks every frame header and block header, and refuses
 * what would take more than `maxBytes` of output or window memory — a few bytes can declare gigabytes (a zip bomb),
 * and the decoder allocates the declared window up front. Dictionaries are refused (none is agreed with any client).
 * Returns an upper bound of the decompressed size.
 * @throws ServeRequestError 400 for a malformed frame or a dictionary; 413 past `maxBytes`.
 */
export function zstdOutputBound(body: Uint8Array, maxBytes: number): number {
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const bad = (why: string) => new ServeRequestError(400, `forward_backward: zstd body: ${why}`);
  const tooBig = () => new ServeRequestError(413, `forward_backward: zstd body decompresses past the body limit of ${maxBytes} bytes`);
  let at = 0;
  let bound = 0;
  const need = (n: number) => {
    if (at + n > body.length) throw bad('truncated');
  };
  if (body.length === 0) throw bad('empty');
  while (at < body.length) {
    need(4);
    const magic = v.getUint32(at, true);
    at += 4;
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // Skippable frame: 4-byte size, then that many bytes of nothing.
      need(4);
      const n = v.getUint32(at, true);
      at += 4;
      need(n);
      at += n;
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw bad('not a zstd frame');
    need(1);
    const fhd = body[at++]!;
    const fcsFlag = fhd >> 6;
    const single = (fhd >> 5) & 1;
    if (fhd & 0x08) throw bad('reserved bit set');
    const checksum = (fhd >> 2) & 1;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    let window = 0;
    if (!single) {
      need(1);
      const wd = body[at++]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    need(dictBytes);
    let dict = 0;
    for (let i = 0; i < dictBytes; i++) dict += body[at + i]! * 2 ** (8 * i);
    at += dictBytes;
    if (dict !== 0) throw bad('dictionaries are not accepted');
    const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag;
    need(fcsBytes);
    let fcs: number | undefined;
    if (fcsBytes > 0) {
      fcs = 0;
      for (let i = 0; i < fcsBytes; i++) fcs += body[at + i]! * 2 ** (8 * i);
      if (fcsBytes === 2) fcs += 256;
    }
    at += fcsBytes;
    if (single) window = fcs!;
    // The decoder allocates the declared content size up front, or the window when there is none (or it is 0).
    if ((fcs || window) > maxBytes) throw tooBig();
    const blockMax = Math.min(window, BLOCK_MAX);
    let frame = 0;
    for (let last = 0; !last; ) {
      need(3);
      const h = body[at]! | (body[at + 1]! << 8) | (body[at + 2]! << 16);
      at += 3;
      last = h & 1;
      const type = (h >> 1) & 3;
      const size = h >>> 3;
      if (type === 3) throw bad('reserved block type');
      if (type === 1) {
        need(1);
        at += 1;
        frame += size; // RLE: one byte repeated `size` times
      } else {
        need(size);
        at += size;
        frame += type === 0 ? size : blockMax;
      }
      if (bound + Math.min(frame, fcs ?? frame) > maxBytes) throw tooBig();
    }
    bound += Math.min(frame, fcs ?? frame);
    if (checksum) {
      need(4);
      at += 4;
    }
  }
  return bound;
}

/**
 * Decompresses a `Content-Encoding: zstd` request body (the Tinker SDK's compressed `forward_backward` bodies, sent
 * when `client/config` says `proto_compress_fwdbwd`), refusing more than `maxBytes` of output ({@link zstdOutputBound}).
 * @throws ServeRequestError 400 for a body that is not valid zstd; 413 past `maxBytes`.
 */
export function decodeZstdBody(body: Uint8Array, maxBytes: number): Uint8Array {
  zstdOutputBound(body, maxBytes);
  let out: Uint8Array;
  try {
    out = decompress(body);
  } catch (e) {
    throw new ServeRequestError(400, `forward_backward: zstd body does not decompress (${e instanceof Error ? e.message : String(e)})`);
  }
  if (out.length > maxBytes) throw new ServeRequestError(413, `forward_backward: zstd body decompresses past the body limit of ${maxBytes} bytes`);
  return out;
}
