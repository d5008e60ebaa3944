import { describe, expect, it } from 'vitest';
import { backoffDelayMs, RetryBudget } from '../../../adapters/remote/index.js';

describe('retry policy', () => {
  it('draws full-jitter delays below a doubling, capped ceiling', () => {
    const at = (attempt: number, u: number) => backoffDelayMs(attempt, { baseMs: 100, capMs: 1000, random: () => u });
    expect(at(0, 0.999)).toBe(99);
    expect(at(1, 0.999)).toBe(199);
    expect(at(3, 0.999)).toBe(799);
    expect(at(10, 0.999)).toBe(999);
    expect(at(5, 0)).toBe(0);
  });

  it('limits retries to the initial tokens plus a fraction of first attempts', () => {
    // Hazard: a dead server turning every call into 1 + retries requests (a retry storm).
    const b = new RetryBudget({ ratio: 0.2, minTokens: 2 });
    expect(b.tryWithdraw()).toBe(true);
    expect(b.tryWithdraw()).toBe(true);
    expect(b.tryWithdraw()).toBe(false);
    for (let i = 0; i < 10; i++) b.deposit();
    expect(b.tryWithdraw()).toBe(true);
    expect(b.tryWithdraw()).toBe(true);
    expect(b.tryWithdraw()).toBe(false);
  });
});
