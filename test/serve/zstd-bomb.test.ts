import { describe, expect, it } from 'vitest';
import { decodeZstdBody } from '../../apps/serve/tinker/zstd-body.js';
import { ServeRequestError } from '../../apps/serve/tinker/errors.js';
import * as zx from './zstd-fixtures.js';

// Bodies whose headers say little (or lie) and whose blocks inflate a lot. Each must be refused with 413 without the
// decoder producing the bytes: the peak RSS of this worker (a high-water mark, so it sees what a GC later frees) may
// grow by far less than the bomb's size. This file runs its bombs before anything else allocates much.
const MiB = 1024 * 1024;
const LIMIT = 64 * MiB; // agentrl serve's default body limit
const le = (n: number, bytes: number) => Array.from({ length: bytes }, (_, i) => Math.floor(n / 2 ** (8 * i)) % 256);
/** RLE blocks of 2^21 − 1 bytes each (the largest the 21-bit field can say; RFC 8878 allows 128 KiB). */
const RLE_MAX = 2 ** 21 - 1;
const magic = [0x28, 0xb5, 0x2f, 0xfd];
const headers: Record<string, number[]> = {
  'single segment, content size 0 (1-byte field)': [...magic, 0x20, 0],
  'window 128 KiB, content size 0 (4-byte field)': [...magic, 0x80, 0x38, ...le(0, 4)],
  'window 2 MiB, content size 0 (4-byte field)': [...magic, 0x80, 0x58, ...le(0, 4)],
  'window 2 MiB, content size 0 (2-byte field means 256)': [...magic, 0x40, 0x58, ...le(0, 2)],
  'window 128 KiB, content size 0 (8-byte field)': [...magic, 0xc0, 0x38, ...le(0, 8)],
  'window 128 KiB, content size 1000 (2-byte field)': [...magic, 0x40, 0x38, ...le(1000 - 256, 2)],
  'window 4 MiB, no content size': [...magic, 0x00, 0x60],
  'window 1 KiB, no content size': [...magic, 0x00, 0x00],
};
const maxRssBytes = () => process.resourceUsage().maxRSS * 1024;

function refusal(body: Uint8Array, limit = LIMIT): { status: number | 'ok'; ms: number; rssGrowth: number } {
  const rss0 = maxRssBytes();
  const t0 = performance.now();
  let status: number | 'ok' = 'ok';
  try {
    decodeZstdBody(body, limit);
  } catch (e) {
    if (!(e instanceof ServeRequestError)) throw e;
    status = e.status;
  }
  return { status, ms: performance.now() - t0, rssGrowth: maxRssBytes() - rss0 };
}

describe('zstd bombs: refused (413) with bounded memory, whatever the frame header claims', () => {
  it.each(Object.entries(headers))('RLE blocks of 2 MiB under "%s": 1.2 KB that would inflate to ~600 MiB', (_, header) => {
    const body = zx.rleFrame(0x41, RLE_MAX, 300, header);
    expect(body.length).toBeLessThan(1300);
    const r = refusal(body);
    expect(r.status).toBe(413);
    expect(r.rssGrowth).toBeLessThan(48 * MiB);
    expect(r.ms).toBeLessThan(2000);
  });

  it('concatenated frames that each declare 0 bytes, or each stay under the limit, are refused together', () => {
    const zeros = zx.concat(...Array.from({ length: 200 }, () => zx.rleFrame(7, RLE_MAX, 2, headers['single segment, content size 0 (1-byte field)'])));
    expect(refusal(zeros).status).toBe(413);
    // 40 frames of 2 MiB (declared honestly) = 80 MiB > 64 MiB.
    const honest = zx.rleFrame(7, 128 * 1024, 16, [...magic, 0x80, 0x38, ...le(2 * MiB, 4)]);
    const many = zx.concat(...Array.from({ length: 40 }, () => honest));
    const r = refusal(many);
    expect(r.status).toBe(413);
    expect(r.rssGrowth).toBeLessThan(48 * MiB);
    // 30 of them (60 MiB) fit and decode.
    expect(decodeZstdBody(zx.concat(...Array.from({ length: 30 }, () => honest)), LIMIT).length).toBe(60 * MiB);
  });

  it('many tiny blocks in a frame without a content size and a large window: refused before the window is shifted per block', () => {
    // 300k empty raw blocks (900 KB) under a 32 MiB window: the streaming decoder would copy the window 300k times.
    const blocks: number[] = [];
    for (let i = 0; i < 300_000; i++) blocks.push(...le(i === 299_999 ? 1 : 0, 3));
    const r = refusal(Uint8Array.from([...magic, 0x00, 0x78, ...blocks]));
    expect(r.status).toBe(413);
    expect(r.ms).toBeLessThan(1000);
  });

  it('a declared content size is enforced: blocks that hold more are refused, and a compressed frame cannot write past it', () => {
    for (const size of [1, 100, 5000]) {
      const lie = zx.rleFrame(1, 128 * 1024, 3, [...magic, 0x80, 0x38, ...le(size, 4)]);
      expect(refusal(lie).status).toBe(413);
    }
    // The CLI fixture (Huffman/FSE blocks) with its content size patched smaller: never more than the declared bytes.
    const real = zx.fixtureRequest().length;
    for (const declared of [1, 100, real - 1]) {
      const patched = Uint8Array.from(zx.ZSTD_L3);
      expect(patched[4]! >> 6).toBe(1); // 2-byte content size field, at byte 5 (single segment)
      patched.set(le(Math.max(declared - 256, 0), 2), 5);
      const r = (() => {
        try {
          return decodeZstdBody(patched, LIMIT).length;
        } catch (e) {
          return (e as ServeRequestError).status;
        }
      })();
      expect([400, 413, Math.max(declared, 256)]).toContain(r);
    }
  });

  it('more compressed blocks than the limit’s worth (each may cost 128 KiB of decoding) is refused from the headers', () => {
    const blocks: number[] = [];
    const n = 3000; // 3000 × 128 KiB > 2 × 64 MiB
    for (let i = 0; i < n; i++) blocks.push(...le((i === n - 1 ? 1 : 0) | (2 << 1) | (1 << 3), 3), 0);
    for (const header of [
      [...magic, 0x80, 0x58, ...le(100, 4)],
      [...magic, 0x00, 0x58],
    ]) {
      const r = refusal(Uint8Array.from([...header, ...blocks]));
      expect(r.status).toBe(413);
      expect(r.ms).toBeLessThan(1000);
    }
  });

  it('frames from the reference encoder: a lying content size (0, 1 KiB, 60 MiB) or none never yields more than declared', () => {
    const z = zx.PATTERN_70MIB; // declares 70 MiB
    expect(refusal(z).status).toBe(413);
    const rest = z.subarray(10); // magic, FHD 0x84 (4-byte size, checksum), window byte, size
    for (const declared of [undefined, 0, 1024, 60 * MiB]) {
      const head = declared === undefined ? [...magic, 0x04, z[5]!] : [...magic, 0x84, z[5]!, ...le(declared, 4)];
      const body = zx.concat(Uint8Array.from(head), rest);
      const rss0 = maxRssBytes();
      const t0 = performance.now();
      let out: number;
      try {
        out = decodeZstdBody(body, LIMIT).length;
      } catch (e) {
        out = -(e as ServeRequestError).status;
      }
      expect(performance.now() - t0).toBeLessThan(3000);
      if (out >= 0)
        expect(out).toBe(declared); // the buffer the frame declared, nothing past it
      else expect([-400, -413]).toContain(out);
      expect(maxRssBytes() - rss0).toBeLessThan(LIMIT + 32 * MiB);
    }
    // An honest 20 MiB one decodes exactly.
    const ok = decodeZstdBody(zx.PATTERN_20MIB, LIMIT);
    expect(Buffer.from(ok).equals(zx.pattern(20 * MiB))).toBe(true);
  });

  it('a declared size past the limit, or a window past it, is refused from the header alone', () => {
    expect(refusal(zx.rleFrame(0, 10, 1, [...magic, 0xc0, 0x38, ...le(2 ** 40, 8)])).status).toBe(413);
    expect(refusal(zx.rleFrame(0, 10, 1, [...magic, 0x00, 0xa8])).status).toBe(413); // 2 GiB window
    expect(refusal(zx.rleFrame(0, 10, 1, [...magic, 0x00, 0x60]), MiB).status).toBe(413); // 4 MiB window, 1 MiB limit
  });
});
