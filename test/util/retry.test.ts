import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffMs, retry, retryAfterMs, RetryBudget, RetrySchedule, sleep, type RetryPolicy } from '../../src/util/retry.js';
import { ConfigError } from '../../src/errors/index.js';
import { SamplerUnavailableError } from '../../src/errors/sampler-errors.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A retryable agentrl error, as a transport fault of a client throws it. */
const transient = (i = 0) => new SamplerUnavailableError('http://127.0.0.1:1', `down ${i}`);

/** An `fn` for `retry` that fails with `errors[k]` on attempt k and then resolves `'ok'`; records the attempts. */
function failing(errors: readonly unknown[]) {
  const attempts: number[] = [];
  const fn = (attempt: number): Promise<string> => {
    attempts.push(attempt);
    return attempt < errors.length ? Promise.reject(errors[attempt]) : Promise.resolve('ok');
  };
  return { fn, attempts };
}

const fixed = (ms: number): RetryPolicy['backoff'] => ({ baseMs: ms, capMs: ms });

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads retry-after-ms, retry-after seconds and the HTTP-date form, from a record or from Headers', () => {
    for (const wrap of [(r: Record<string, string>) => r, (r: Record<string, string>) => new Headers(r)]) {
      expect(retryAfterMs(wrap({ 'retry-after-ms': '40' }), 60_000, now)).toBe(40);
      expect(retryAfterMs(wrap({ 'retry-after-ms': '0' }), 60_000, now)).toBe(0);
      expect(retryAfterMs(wrap({ 'retry-after': '2' }), 60_000, now)).toBe(2_000);
      expect(retryAfterMs(wrap({ 'retry-after': ' 1.5 ' }), 60_000, now)).toBe(1_500);
      expect(retryAfterMs(wrap({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), 60_000, now)).toBe(7_000);
      // retry-after-ms wins over retry-after
      expect(retryAfterMs(wrap({ 'retry-after-ms': '5', 'retry-after': '3' }), 60_000, now)).toBe(5);
    }
    expect(retryAfterMs({ 'retry-after': ['3', '9'] }, 60_000, now)).toBe(3_000);
  });

  it('ignores garbage and negative values (falling back to retry-after when retry-after-ms is unusable)', () => {
    for (const bad of ['', 'soon', '-1', '0x10', '1e3', 'NaN', 'Infinity', '12abc']) {
      expect(retryAfterMs({ 'retry-after': bad }, 60_000, now), bad).toBeUndefined();
      expect(retryAfterMs({ 'retry-after-ms': bad }, 60_000, now), bad).toBeUndefined();
      expect(retryAfterMs({ 'retry-after-ms': bad, 'retry-after': '4' }, 60_000, now), bad).toBe(4_000);
    }
    expect(retryAfterMs({}, 60_000, now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), 60_000, now)).toBeUndefined();
  });

  it('gives 0 for a date in the past, and caps every form at capMs', () => {
    expect(retryAfterMs({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, 60_000, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': '120' }, 60_000, now)).toBe(60_000);
    expect(retryAfterMs({ 'retry-after-ms': '999999' }, 60_000, now)).toBe(60_000);
    expect(retryAfterMs({ 'retry-after': 'Fri, 02 Jan 2026 00:00:00 GMT' }, 60_000, now)).toBe(60_000);
    expect(retryAfterMs({ 'retry-after': '3' }, 1_000, now)).toBe(1_000);
  });
});

describe('backoffMs', () => {
  it('doubles from baseMs up to capMs', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(n, { baseMs: 500, capMs: 10_000 }))).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000]);
  });

  it('with full jitter draws in [0, ceiling) from the injected random', () => {
    const at = (n: number, u: number) => backoffMs(n, { baseMs: 100, capMs: 1_000, fullJitter: true, random: () => u });
    expect([at(0, 0), at(0, 0.5), at(0, 0.999), at(2, 0.999), at(9, 0.999), at(9, 0)]).toEqual([0, 50, 99, 399, 999, 0]);
    for (let i = 0; i < 200; i++) {
      const d = backoffMs(3, { baseMs: 100, capMs: 1_000, fullJitter: true });
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(800);
    }
  });
});

describe('RetryBudget', () => {
  it('allows minTokens retries, then one per 1/ratio first attempts, never more than maxTokens', () => {
    const b = new RetryBudget({ ratio: 0.5, minTokens: 1, maxTokens: 2 });
    expect(b.tryWithdraw()).toBe(true);
    expect(b.tryWithdraw()).toBe(false);
    b.deposit();
    expect(b.tryWithdraw()).toBe(false);
    b.deposit();
    expect(b.tryWithdraw()).toBe(true);
    for (let i = 0; i < 100; i++) b.deposit();
    expect(b.tokens).toBe(2);
  });
});

describe('RetrySchedule (fake timers)', () => {
  it('gives up when the time budget would be exceeded, counted from the first failure; reset starts a fresh run', () => {
    vi.useFakeTimers();
    const s = new RetrySchedule({ budgetMs: 10_000, backoff: { baseMs: 1_000, capMs: 3_000 } });
    const delays: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const n = s.next();
      delays.push('delayMs' in n ? n.delayMs : n.giveUp);
      if ('delayMs' in n) vi.advanceTimersByTime(n.delayMs);
    }
    // 1 + 2 + 3 + 3 = 9 s spent; the next 3 s would pass the 10 s budget.
    expect(delays).toEqual([1_000, 2_000, 3_000, 3_000, 'time', 'time']);
    s.reset();
    expect(s.next()).toEqual({ delayMs: 1_000 });
  });

  it('a server hint replaces the backoff, capped at retryAfterCapMs; a negative hint is ignored', () => {
    const s = new RetrySchedule({ backoff: { baseMs: 1_000, capMs: 30_000 }, retryAfterCapMs: 60_000 });
    expect(s.next(250)).toEqual({ delayMs: 250 });
    expect(s.next(120_000)).toEqual({ delayMs: 60_000 });
    expect(s.next(-5)).toEqual({ delayMs: 4_000 });
  });
});

describe('retry', () => {
  it('retries retryable failures up to maxAttempts in all, then throws the last failure', async () => {
    const errors = [transient(0), transient(1), transient(2), transient(3)];
    const seen: number[] = [];
    const why: string[] = [];
    const { fn, attempts } = failing(errors);
    const policy: RetryPolicy = { maxAttempts: 3, backoff: fixed(0), onRetry: (i) => seen.push(i.retry), onGiveUp: (w) => why.push(w) };
    await expect(retry(fn, policy)).rejects.toBe(errors[2]);
    expect(attempts).toEqual([0, 1, 2]);
    expect(seen).toEqual([0, 1]);
    expect(why).toEqual(['attempts']);
    expect(await retry(failing(errors.slice(0, 2)).fn, policy)).toBe('ok');
    await expect(retry(failing([transient()]).fn, { maxAttempts: 1, backoff: fixed(0) })).rejects.toThrow('down 0');
  });

  it('throws a non-retryable failure at once (default: AgentRLError.retryable), and honours a custom retryable', async () => {
    for (const e of [new ConfigError('x', []), new Error('plain'), 'a string']) {
      const { fn, attempts } = failing([e]);
      await expect(retry(fn, { maxAttempts: 5, backoff: fixed(0) })).rejects.toBe(e);
      expect(attempts).toEqual([0]);
    }
    const plain = new Error('plain');
    expect(await retry(failing([plain, plain]).fn, { maxAttempts: 5, backoff: fixed(0), retryable: (e) => e === plain })).toBe('ok');
    const { fn, attempts } = failing([transient()]);
    await expect(retry(fn, { maxAttempts: 5, backoff: fixed(0), retryable: () => false })).rejects.toThrow('down 0');
    expect(attempts).toEqual([0]);
  });

  it('waits the backoff (or a function of the retry index), and the retryAfterMs of an error that has one (fake timers)', async () => {
    vi.useFakeTimers();
    const delays: number[] = [];
    const hinted = Object.assign(transient(9), { retryAfterMs: 7 });
    const p = retry(failing([transient(), transient(), hinted, transient()]).fn, {
      backoff: (k) => (k + 1) * 200,
      onRetry: (i) => delays.push(i.delayMs),
    });
    await vi.runAllTimersAsync();
    expect(await p).toBe('ok');
    expect(delays).toEqual([200, 400, 7, 800]);
  });

  it('gives up on the time budget, and on an empty shared token bucket (one deposit per call)', async () => {
    vi.useFakeTimers();
    const why: string[] = [];
    const p = retry(failing(Array.from({ length: 50 }, (_, i) => transient(i))).fn, {
      budgetMs: 5_000,
      backoff: { baseMs: 1_000, capMs: 1_000 },
      onGiveUp: (w) => why.push(w),
    }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await p).toMatchObject({ message: expect.stringContaining('down 5') });
    expect(why).toEqual(['time']);
    vi.useRealTimers();

    const budget = new RetryBudget({ ratio: 0.5, minTokens: 1 });
    const policy: RetryPolicy = { maxAttempts: 10, backoff: fixed(0), budget, onGiveUp: (w) => why.push(w) };
    const first = failing(Array.from({ length: 20 }, (_, i) => transient(i)));
    // 1 initial token + 0.5 deposited: one retry, then 0.5 left (refused).
    await expect(retry(first.fn, policy)).rejects.toThrow('down 1');
    expect(first.attempts).toEqual([0, 1]);
    expect(budget.tokens).toBe(0.5);
    // The next call deposits 0.5: one whole token, one retry; the budget is shared, not per call.
    const second = failing(Array.from({ length: 20 }, (_, i) => transient(i)));
    await expect(retry(second.fn, policy)).rejects.toThrow('down 1');
    expect(second.attempts).toEqual([0, 1]);
    const third = failing(Array.from({ length: 20 }, (_, i) => transient(i)));
    await expect(retry(third.fn, policy)).rejects.toThrow('down 0');
    expect(third.attempts).toEqual([0]);
    expect(why.slice(1)).toEqual(['tokens', 'tokens', 'tokens']);
  });

  it('an abort during a wait rejects with the reason, clears the timer and removes the listener', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    const { fn, attempts } = failing([transient(), transient()]);
    const p = retry(fn, { backoff: fixed(60_000) }, ac.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    const reason = new Error('closed');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(attempts).toEqual([0]);
    // Already aborted: no attempt at all.
    const none = failing([]);
    await expect(retry(none.fn, { backoff: fixed(0) }, ac.signal)).rejects.toBe(reason);
    expect(none.attempts).toEqual([]);
  });

  it('a failure after the abort rejects with the abort reason, not retried', async () => {
    const ac = new AbortController();
    const reason = new Error('stop');
    let n = 0;
    const p = retry(
      () => {
        n += 1;
        ac.abort(reason);
        return Promise.reject(transient());
      },
      { maxAttempts: 5, backoff: fixed(0) },
      ac.signal,
    );
    await expect(p).rejects.toBe(reason);
    expect(n).toBe(1);
  });
});

describe('sleep', () => {
  it('resolves after the delay; an abort clears its timer and rejects with the reason', async () => {
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
    await expect(sleep(10, ac.signal)).rejects.toThrow('closed');
  });

  it('64 concurrent waits on one signal keep one listener and print no MaxListeners warning', async () => {
    vi.useFakeTimers();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      const waits = Array.from({ length: 64 }, () => sleep(10_000, ac.signal).catch((e: unknown) => e));
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
      expect(vi.getTimerCount()).toBe(64);
      const reason = new Error('closed');
      ac.abort(reason);
      expect(await Promise.all(waits)).toEqual(Array.from({ length: 64 }, () => reason));
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
      // Ones that end normally remove their registration too.
      const ac2 = new AbortController();
      const ok = Array.from({ length: 64 }, () => sleep(5, ac2.signal));
      await vi.advanceTimersByTimeAsync(5);
      await Promise.all(ok);
      expect(getEventListeners(ac2.signal, 'abort')).toHaveLength(0);
      await new Promise((r) => process.nextTick(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
