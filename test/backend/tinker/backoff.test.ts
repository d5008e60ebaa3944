import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetryClock, retryAfterMs, sleep } from '../../../src/backend/tinker/backoff.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('RetryClock (fake timers)', () => {
  it('doubles the delay from initialDelayMs up to maxDelayMs and gives up when the budget would be exceeded', () => {
    vi.useFakeTimers();
    const c = new RetryClock({ budgetMs: 10_000, initialDelayMs: 1_000, maxDelayMs: 3_000 });
    const delays: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const d = c.nextDelay();
      delays.push(d);
      if (d !== undefined) vi.advanceTimersByTime(d);
    }
    // 1 + 2 + 3 + 3 = 9 s spent; the next 3 s would pass the 10 s budget.
    expect(delays).toEqual([1_000, 2_000, 3_000, 3_000, undefined, undefined]);
  });

  it('a success starts a new run with the initial delay and a fresh budget', () => {
    vi.useFakeTimers();
    const c = new RetryClock({ budgetMs: 2_500, initialDelayMs: 1_000, maxDelayMs: 30_000 });
    expect(c.nextDelay()).toBe(1_000);
    vi.advanceTimersByTime(1_000);
    expect(c.nextDelay()).toBeUndefined();
    c.succeeded();
    expect(c.nextDelay()).toBe(1_000);
  });

  it('honours retry-after up to 60 s, and ignores longer ones', () => {
    const c = new RetryClock({ budgetMs: 1_000_000, initialDelayMs: 1_000, maxDelayMs: 30_000 });
    expect(c.nextDelay(250)).toBe(250);
    expect(c.nextDelay(120_000)).toBe(2_000);
    expect(retryAfterMs({ 'retry-after-ms': '40' })).toBe(40);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2_000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe('sleep', () => {
  it('resolves after the delay, and an abort clears its timer and rejects with the reason', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = sleep(5_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    const ac = new AbortController();
    const q = sleep(60_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort(new Error('closed'));
    await expect(q).rejects.toThrow('closed');
    expect(vi.getTimerCount()).toBe(0);
  });
});
