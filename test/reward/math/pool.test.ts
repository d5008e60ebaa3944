import { afterAll, describe, expect, it } from 'vitest';
import { MathCheckPool, closeDefaultMathPool, mathEquivalent } from '../../../src/reward/math/pool.js';
import { MathWorkerError } from '../../../src/errors/math-errors.js';

const pool = new MathCheckPool({ size: 1, timeoutMs: 10_000 });
afterAll(async () => {
  await pool.close();
  await closeDefaultMathPool();
});

describe('MathCheckPool', () => {
  // Hazard: the worker must load the TypeScript sources under vitest (and the build under dist).
  it('runs checks in a worker loaded from the sources', async () => {
    await expect(pool.check('\\frac12', '0.5')).resolves.toEqual({ equal: true, status: 'ok' });
    await expect(pool.check('3', '4')).resolves.toEqual({ equal: false, status: 'ok' });
  });

  // Hazard: a pathological input must not stall the trainer; the worker is replaced afterwards.
  it('times out a pathological check, then keeps serving with a fresh worker', async () => {
    // `1/100000!` is evaluated exactly by compute-engine: ~20 s in-thread.
    const r = await pool.check('0', '\\frac{1}{100000!}', { timeoutMs: 500 });
    expect(r.status).toBe('timeout');
    await expect(pool.check('2', '2')).resolves.toEqual({ equal: true, status: 'ok' });
    expect(pool.workerCount).toBe(1);
  });

  it('returns at once for a 50 KB expression and 10^{10^{10^{10}}}', async () => {
    const huge = Array.from({ length: 6000 }, (_, i) => `x^{${i}}`).join('+');
    expect(huge.length).toBeGreaterThan(50_000);
    await expect(pool.check(huge, `${huge}+1`)).resolves.toMatchObject({ equal: false, status: 'ok', detail: 'oversized input compared as text' });
    await expect(pool.check('1', '10^{10^{10^{10}}}')).resolves.toMatchObject({ equal: false, status: 'ok' });
  });

  it('answers concurrent checks in order of their promises', async () => {
    const results = await Promise.all(['1', '2', '3'].map((n) => pool.check(n, n)));
    expect(results.every((r) => r.equal)).toBe(true);
  });

  it('uses a shared default pool for mathEquivalent', async () => {
    await expect(mathEquivalent('x^2', 'x\\cdot x', { timeoutMs: 10_000 })).resolves.toMatchObject({ equal: true });
  });

  it('rejects checks after close()', async () => {
    const p = new MathCheckPool({ size: 1 });
    await p.close();
    await expect(p.check('1', '1')).rejects.toBeInstanceOf(MathWorkerError);
  });
});
