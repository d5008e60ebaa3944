import { Decompress, decompress } from 'fzstd';
import { ServeRequestError } from './errors.js';

const ZSTD_MAGIC = 0xfd2fb528;
/** Largest decompressed size of one compressed block (RFC 8878 §3.1.1.2.3: min(window, 128 KiB)). */
const BLOCK_MAX = 128 * 1024;
/**
 * A frame without a content size is decoded through a sliding window that the decoder shifts once per block (a copy
 * of the window's bytes), so a frame of many tiny blocks costs blocks × window even when it inflates to little. That
 * copy work is refused past this multiple of the body limit (at 64 MiB: 2 GiB of copying, well under a second).
 */
const STREAM_WORK_FACTOR = 32;

/** One frame of a body, as {@link zstdFrames} read it from its headers. */
interface FrameInfo {
  readonly start: number;
  readonly end: number;
  /** Skippable frame: no output. */
  readonly skippable: boolean;
  /** Frame_Content_Size when the header has the field (0 included). */
  readonly contentSize: number | undefined;
}

const bad = (why: string) => new ServeRequestError(400, `forward_backward: zstd body: ${why}`);
const tooBig = (maxBytes: number, why = '') =>
  new ServeRequestError(413, `forward_backward: zstd body decompresses past the body limit of ${maxBytes} bytes${why}`);

/**
 * Reads every frame and block header of a zstd body (RFC 8878) and refuses, before anything is decompressed, what
 * the headers alone show to be too large: a declared content size or window past `maxBytes`, raw/RLE blocks that
 * produce more than the frame declares, a sum of block maxima past `maxBytes` in frames without a content size, and
 * (for those frames) more window copying than {@link STREAM_WORK_FACTOR} × `maxBytes`, and more compressed blocks
 * than `2 × maxBytes / 128 KiB + 1` (each may cost the decoder 128 KiB of work). A declared content size is a
 * claim, not a bound: {@link decodeZstdBody} enforces it while decoding. Dictionaries are refused.
 * @throws ServeRequestError 400 for a malformed frame or a dictionary; 413 past `maxBytes`.
 */
function zstdFrames(body: Uint8Array, maxBytes: number): { frames: FrameInfo[]; bound: number } {
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const frames: FrameInfo[] = [];
  let at = 0;
  let bound = 0;
  let streamWork = 0;
  let compressedBlocks = 0;
  const need = (n: number) => {
    if (at + n > body.length) throw bad('truncated');
  };
  if (body.length === 0) throw bad('empty');
  while (at < body.length) {
    const start = at;
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
      frames.push({ start, end: at, skippable: true, contentSize: undefined });
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
    // With a content size the decoder allocates exactly that and writes into it; without one, it allocates the window.
    if (fcs !== undefined ? bound + fcs > maxBytes : window > maxBytes) throw tooBig(maxBytes);
    const blockMax = Math.min(window, BLOCK_MAX);
    let exact = 0; // raw + RLE bytes: known from the headers
    let most = 0; // upper bound of the frame's output (compressed blocks: blockMax each)
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
        exact += size; // RLE: one byte repeated `size` times
        most += size;
      } else {
        need(size);
        at += size;
        if (type === 2 && ++compressedBlocks * BLOCK_MAX > 2 * maxBytes + BLOCK_MAX) {
          // Each compressed block may make the decoder produce up to 128 KiB (written or dropped past a declared
          // size): more of them than the limit's worth is work no honest body needs.
          throw tooBig(maxBytes, ' (more compressed blocks than the limit allows)');
        }
        if (type === 0) exact += size;
        // A compressed block that holds bytes in a frame that declares none: nothing legitimate writes that.
        else if (fcs === 0 && size > 0) throw tooBig(maxBytes, ' (a frame declares 0 bytes and its blocks hold more)');
        most += type === 0 ? size : blockMax;
      }
      if (fcs !== undefined && exact > fcs) throw tooBig(maxBytes, ` (a frame declares ${fcs} bytes and its blocks hold more)`);
      if (fcs === undefined && bound + most > maxBytes) throw tooBig(maxBytes);
      if (fcs === undefined && (streamWork += window) > STREAM_WORK_FACTOR * maxBytes) {
        throw tooBig(maxBytes, ' (too many blocks for a frame without a content size)');
      }
    }
    if (checksum) {
      need(4);
      at += 4;
    }
    bound += fcs ?? most;
    frames.push({ start, end: at, skippable: false, contentSize: fcs });
  }
  return { frames, bound };
}

/**
 * Bounds a zstd body before it is decompressed: refuses what its frame and block headers show to need more than
 * `maxBytes` of output or window memory (a few bytes can declare gigabytes, a zip bomb). Returns an upper bound of the
 * decompressed size, counting a frame's declared content size as the decoder will enforce it
 * ({@link decodeZstdBody}).
 * @throws ServeRequestError 400 for a malformed frame or a dictionary; 413 past `maxBytes`.
 */
export function zstdOutputBound(body: Uint8Array, maxBytes: number): number {
  return zstdFrames(body, maxBytes).bound;
}

/**
 * Decodes one frame that declares its content size: the decoder allocates exactly that size and writes its blocks
 * into it (what a lying frame writes past the end is dropped, and the body then fails to parse).
 */
const decodeSizedFrame = (frame: Uint8Array): Uint8Array => decompress(frame);

/** Decodes one frame without a content size block by block, counting its output against what is left of the limit. */
function decodeStreamedFrame(frame: Uint8Array, left: number, maxBytes: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let produced = 0;
  const d = new Decompress((chunk) => {
    produced += chunk.length;
    if (produced > left) throw tooBig(maxBytes);
    if (chunk.length > 0) parts.push(chunk);
  });
  d.push(frame, true);
  return parts;
}

/**
 * Decompresses a `Content-Encoding: zstd` request body (the Tinker SDK's compressed `forward_backward` bodies, sent
 * when `client/config` says `proto_compress_fwdbwd`), never holding more than `maxBytes` of output whatever the
 * headers claim: a frame that declares its content size is decoded into a buffer of exactly that size (its blocks
 * cannot write past it, and the size must match); a frame that declares none (or declares 0) is decoded block by block
 * and refused at the first block that passes the limit; concatenated frames share the one limit.
 * @throws ServeRequestError 400 for a body that is not valid zstd; 413 past `maxBytes`.
 */
export function decodeZstdBody(body: Uint8Array, maxBytes: number): Uint8Array {
  const { frames } = zstdFrames(body, maxBytes);
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (const f of frames) {
      if (f.skippable) continue;
      const bytes = body.subarray(f.start, f.end);
      if (f.contentSize === 0) continue; // its blocks are all empty (checked from the headers)
      const got = f.contentSize !== undefined ? [decodeSizedFrame(bytes)] : decodeStreamedFrame(bytes, maxBytes - total, maxBytes);
      for (const p of got) {
        total += p.length;
        parts.push(p);
      }
      if (total > maxBytes) throw tooBig(maxBytes);
    }
  } catch (e) {
    if (e instanceof ServeRequestError) throw e;
    throw new ServeRequestError(400, `forward_backward: zstd body does not decompress (${e instanceof Error ? e.message : String(e)})`);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
