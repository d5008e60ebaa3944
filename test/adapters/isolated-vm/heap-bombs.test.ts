import { afterAll, describe, expect, it } from 'vitest';
import { isolatedVmSandbox } from '../../../adapters/isolated-vm/index.js';

// A heap bomb is `memory`, whatever it allocates and whether it reaches the isolate's limit before its deadline or is
// still collecting garbage near the limit when the deadline comes; code that only runs long is still `timeout`.
const sb = isolatedVmSandbox({ workers: 1, timeoutMs: 8000, memoryMb: 8 });
afterAll(() => sb.close());

const BOMBS: Record<string, string> = {
  'array growth': 'const a = []; for (;;) a.push(new Array(1e4).fill(1.5))',
  'many small objects': 'const a = []; for (let i = 0;; i++) a.push({ i, s: "x" + i })',
  'string doubling, kept flat':
    'const keep = []; let s = "ab"; for (let i = 0;; i++) { s = s.length < 1 << 12 ? s + s : "x".repeat(1 << 12) + i; keep.push(s); }',
  'typed arrays': 'const a = []; for (;;) a.push(new Float64Array(1 << 16))',
  'object graph': 'let root = { next: null }; for (;;) { root = { next: root, a: [root, root], m: new Map([[1, root]]) }; }',
  'growth across awaits': 'const a = []; for (let i = 0;; i++) { a.push(new Array(1000).fill(i)); if (i % 100 === 0) await null; }',
};

describe('isolated-vm heap bombs', () => {
  for (const [name, code] of Object.entries(BOMBS)) {
    it(`${name} → memory, and the next call runs`, async () => {
      // A generous deadline: on a loaded machine a bomb fills even 8 MiB slowly (V8 collects more often as it grows).
      const r = await sb.run({ code, timeoutMs: 30_000 });
      expect(r.status, r.stderr).toBe('memory');
      expect((await sb.run({ code: 'console.log("alive")' })).stdout).toBe('alive\n');
    }, 120_000);
  }

  it('a program that runs out of time holding its heap at the limit is memory', async () => {
    // ≈6.8 MB of arrays in an 8 MiB isolate, then a loop until the deadline: the committed heap tells.
    const r = await sb.run({ code: 'const keep = []; for (let i = 0; i < 85; i++) keep.push(new Array(1e4).fill(1.5)); while (true) {}', timeoutMs: 3000 });
    expect(r.status).toBe('memory');
    expect((await sb.run({ code: 'console.log("alive")' })).stdout).toBe('alive\n');
  }, 60_000);

  it('a busy loop, and one holding a little memory, stay timeout', async () => {
    expect((await sb.run({ code: 'while (true) {}', timeoutMs: 1500 })).status).toBe('timeout');
    expect((await sb.run({ code: 'const keep = new Array(1e5).fill(1.5); for (;;) keep[0]++', timeoutMs: 1500 })).status).toBe('timeout');
    expect((await sb.run({ code: 'await new Promise(() => {})', timeoutMs: 1500 })).status).toBe('timeout');
  }, 60_000);

  it('a RangeError from a refused allocation that the code catches is not memory', async () => {
    const r = await sb.run({ code: 'try { new ArrayBuffer(2 ** 30) } catch (e) { console.log("caught", e.name) }' });
    expect(r).toMatchObject({ status: 'ok', stdout: 'caught RangeError\n' });
    expect((await sb.run({ code: 'throw new RangeError("my own range error")' })).status).toBe('error');
  });
});
