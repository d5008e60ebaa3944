import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Captured bytes of one output stream after the reader cap: the first bytes, the last bytes
 * (empty when nothing was cut) and the stream's full size in bytes.
 */
export interface CappedBytes {
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
  /** Size of the whole stream in bytes, including what was not read. */
  readonly totalBytes: number;
}

/** Decoded, capped text of one stream. */
export interface CappedText {
  /** UTF-8 text with U+FFFD for invalid bytes; holds a {@link truncationMarker} when cut. */
  readonly text: string;
  /** True when bytes were dropped between head and tail. */
  readonly truncated: boolean;
  /** Size of the whole stream in bytes. */
  readonly totalBytes: number;
}

/** The explicit marker placed where `omittedBytes` bytes were cut out of a stream. */
export function truncationMarker(omittedBytes: number): string {
  return `\n[... ${omittedBytes} bytes truncated ...]\n`;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes UTF-8; invalid or incomplete sequences become U+FFFD (never throws). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Length of `bytes` without a trailing incomplete UTF-8 sequence (at most 3 bytes dropped). */
export function utf8SafeEnd(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** Offset of the first byte of `bytes` that is not a UTF-8 continuation byte (at most 3 skipped). */
export function utf8SafeStart(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}

/**
 * Turns capped bytes into text: head + marker + tail, each cut on a UTF-8 character boundary
 * when the cut fell inside a multi-byte character (bytes that were invalid in the stream itself
 * still become U+FFFD). The marker counts every byte not shown.
 */
export function renderCapped(bytes: CappedBytes): CappedText {
  const { head, tail, totalBytes } = bytes;
  if (tail.length === 0 && head.length >= totalBytes) {
    return { text: decodeUtf8(head), truncated: false, totalBytes };
  }
  const h = head.subarray(0, utf8SafeEnd(head));
  const t = tail.subarray(utf8SafeStart(tail));
  const omitted = totalBytes - h.length - t.length;
  return { text: decodeUtf8(h) + truncationMarker(omitted) + decodeUtf8(t), truncated: true, totalBytes };
}

/**
 * Splits an in-memory buffer the way the readers do: everything when `length <= capBytes`,
 * else the first `floor(capBytes / 2)` and the last `capBytes - floor(capBytes / 2)` bytes.
 */
export function capBuffer(buf: Uint8Array, capBytes: number): CappedBytes {
  if (buf.length <= capBytes) return { head: buf, tail: new Uint8Array(0), totalBytes: buf.length };
  const half = Math.floor(capBytes / 2);
  return { head: buf.subarray(0, half), tail: buf.subarray(buf.length - (capBytes - half)), totalBytes: buf.length };
}

/**
 * Reads at most `capBytes` bytes of a file (head and tail halves when larger) without loading
 * the rest into memory. Used for child stdout/stderr redirected to files.
 * @throws the `fs` error when the file cannot be opened.
 */
export function readCappedFile(path: string, capBytes: number): CappedBytes {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const readAt = (len: number, pos: number): Uint8Array => {
      const b = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = readSync(fd, b, got, len - got, pos + got);
        if (n === 0) break;
        got += n;
      }
      return b.subarray(0, got);
    };
    if (size <= capBytes) return { head: readAt(size, 0), tail: new Uint8Array(0), totalBytes: size };
    const half = Math.floor(capBytes / 2);
    const tailLen = capBytes - half;
    return { head: readAt(half, 0), tail: readAt(tailLen, size - tailLen), totalBytes: size };
  } finally {
    closeSync(fd);
  }
}
