import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** Longest JSON line the report readers parse; a longer record is skipped and counted. @default 64 MiB */
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** Why a line of a run file was skipped: unparsable JSON, longer than the record limit, or the wrong shape. */
export interface SkippedRecord {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
}

/** Options of {@link scanJsonLines}. */
export interface ScanOptions {
  /** Byte offset to start at: 0, or the `end` of an earlier scan of the same file. @default 0 */
  readonly from?: number;
  /** Line number of the line at `from` minus one (for messages). @default 0 */
  readonly linesBefore?: number;
  /** Longest line parsed, in bytes. @default {@link DEFAULT_MAX_RECORD_BYTES} */
  readonly maxRecordBytes?: number;
  /**
   * Also parse a last line that has no newline yet. Off for a file a live run is still writing (the line is read
   * again, complete, by the next scan); on for a finished run. @default false
   */
  readonly final?: boolean;
  /** Called per parsed record with its byte span; return a reason string to count the record as skipped. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing keeps the record (no `return undefined` needed)
  readonly onRecord: (value: unknown, span: { readonly offset: number; readonly length: number; readonly line: number }) => string | void;
  /** Called per skipped line. */
  readonly onSkip: (skipped: SkippedRecord) => void;
}

/** Where a {@link scanJsonLines} call stopped. */
export interface ScanEnd {
  /** Offset just after the last complete line consumed (resume here). */
  readonly end: number;
  /** Lines consumed, counting from the start of the file. */
  readonly lines: number;
}

/**
 * Reads a JSON-lines file as a stream, in 1 MiB chunks, holding at most one record (≤ `maxRecordBytes`) in memory
 * at a time: memory stays bounded whatever the file's size. Blank lines are ignored; a line that is not JSON,
 * or is longer than the limit, is reported to `onSkip` and the scan goes on.
 * @throws the file system's error when the file cannot be read (ENOENT included).
 */
export async function scanJsonLines(path: string, opts: ScanOptions): Promise<ScanEnd> {
  const max = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  let lineStart = opts.from ?? 0;
  let line = opts.linesBefore ?? 0;
  let parts: Buffer[] = [];
  let held = 0;
  let oversized = false;
  const finish = (bytes: Buffer | undefined, length: number) => {
    line++;
    if (oversized) opts.onSkip({ line, reason: `record of ${length} bytes is over the ${max}-byte limit` });
    else if (bytes !== undefined) parse(bytes, lineStart, length, line);
    lineStart += length + 1;
    parts = [];
    held = 0;
    oversized = false;
  };
  const parse = (bytes: Buffer, offset: number, length: number, at: number) => {
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      opts.onSkip({ line: at, reason: `not JSON (${(e as Error).message.slice(0, 120)})` });
      return;
    }
    const why = opts.onRecord(value, { offset, length, line: at });
    if (typeof why === 'string') opts.onSkip({ line: at, reason: why });
  };
  const stream = createReadStream(path, { start: lineStart, highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const stop = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(pos, stop);
      if (!oversized) {
        if (held + piece.length > max) {
          oversized = true;
          parts = [];
        } else parts.push(piece);
      }
      held += piece.length;
      if (nl < 0) break;
      finish(oversized ? undefined : Buffer.concat(parts), held);
      pos = nl + 1;
    }
  }
  if (held > 0 && opts.final) {
    const length = held;
    const bytes = oversized ? undefined : Buffer.concat(parts);
    line++;
    if (oversized) opts.onSkip({ line, reason: `record of ${length} bytes is over the ${max}-byte limit` });
    else if (bytes !== undefined) parse(bytes, lineStart, length, line);
    return { end: lineStart + length, lines: line };
  }
  return { end: lineStart, lines: line };
}

/**
 * Reads and parses the one record at `offset` (`length` bytes, as given to `onRecord` by {@link scanJsonLines}).
 * @returns the parsed value, or undefined when the bytes there are no longer that record (the file was rewritten).
 */
export async function readJsonRecord(path: string, offset: number, length: number): Promise<unknown> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    if (bytesRead !== length) return undefined;
    try {
      return JSON.parse(buf.toString('utf8'));
    } catch {
      return undefined;
    }
  } finally {
    await fh.close();
  }
}
