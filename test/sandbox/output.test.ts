import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capBuffer,
  classifyOutcome,
  decodeUtf8,
  execResultSchema,
  looksLikeMemoryError,
  readCappedFile,
  renderCapped,
  sandboxErrorResult,
  truncationMarker,
} from '../../src/sandbox/index.js';

const enc = new TextEncoder();

describe('renderCapped', () => {
  it('returns the whole text untouched when under the cap', () => {
    const t = renderCapped(capBuffer(enc.encode('héllo'), 100));
    expect(t).toEqual({ text: 'héllo', truncated: false, totalBytes: 6 });
  });

  it('keeps head and tail around an explicit marker that counts the dropped bytes', () => {
    const t = renderCapped(capBuffer(enc.encode('a'.repeat(50) + 'b'.repeat(50)), 20));
    expect(t.truncated).toBe(true);
    expect(t.text).toBe('a'.repeat(10) + truncationMarker(80) + 'b'.repeat(10));
  });

  it('never invents U+FFFD when the cap falls inside a multi-byte character', () => {
    // Hazard: a cut mid-character would show the model garbage it never printed.
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 64, max: 400 }), (s, cap) => {
        const t = renderCapped(capBuffer(enc.encode(s), cap));
        expect(t.text.includes('\uFFFD')).toBe(s.includes('\uFFFD'));
        if (!t.truncated) expect(t.text).toBe(s);
      }),
    );
  });

  it('turns invalid bytes into U+FFFD without throwing and keeps neighbours intact', () => {
    const bytes = new Uint8Array([0x41, 0xff, 0x42, 0xe2, 0x82]);
    expect(decodeUtf8(bytes)).toBe('A\uFFFDB\uFFFD');
  });
});

describe('readCappedFile', () => {
  it('reads head and tail of a large file without reading the middle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-out-'));
    try {
      const p = join(dir, 'f');
      writeFileSync(p, 'x'.repeat(10) + 'm'.repeat(1_000_000) + 'y'.repeat(10));
      const c = readCappedFile(p, 20);
      expect(Buffer.from(c.head).toString()).toBe('x'.repeat(10));
      expect(Buffer.from(c.tail).toString()).toBe('y'.repeat(10));
      expect(c.totalBytes).toBe(1_000_020);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('classifyOutcome', () => {
  const text = (s: string) => ({ text: s, truncated: false, totalBytes: s.length });
  const base = { timedOut: false, outputLimited: false, exitCode: 0, signal: null, stdout: text(''), stderr: text(''), wallMs: 5 };

  it('ranks timeout over output_limit over memory over exit status', () => {
    expect(classifyOutcome({ ...base, timedOut: true, outputLimited: true, signal: 'SIGKILL', exitCode: null }).status).toBe('timeout');
    expect(classifyOutcome({ ...base, outputLimited: true, exitCode: 1 }).status).toBe('output_limit');
    expect(classifyOutcome({ ...base, exitCode: 1, stderr: text('Traceback\nMemoryError\n') }).status).toBe('memory');
    expect(classifyOutcome({ ...base, exitCode: 1, stderr: text('ValueError: x') }).status).toBe('error');
    expect(classifyOutcome(base).status).toBe('ok');
    expect(classifyOutcome({ ...base, exitCode: null, signal: 'SIGXCPU' }).status).toBe('timeout');
  });

  it('recognises numpy allocation errors as memory errors', () => {
    expect(looksLikeMemoryError('numpy.core._exceptions._ArrayMemoryError: Unable to allocate 8.0 GiB')).toBe(true);
    expect(looksLikeMemoryError('print("MemoryError")\nNameError: x')).toBe(false);
  });

  it('produces results that satisfy the shared schema', () => {
    expect(execResultSchema.safeParse(classifyOutcome({ ...base, cpuMs: 3 })).success).toBe(true);
    expect(execResultSchema.safeParse(sandboxErrorResult('boom')).success).toBe(true);
    expect(execResultSchema.safeParse({ ...sandboxErrorResult('x'), extra: 1 }).success).toBe(false);
  });
});
