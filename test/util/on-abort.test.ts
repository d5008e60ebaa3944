import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/util/on-abort.js';

describe('onAbort (one shared abort listener per signal)', () => {
  it('keeps one listener on the signal however many operations watch it, and none once they are done', () => {
    // Hazard: one listener per pending operation on the trainer's shared signal → MaxListenersExceededWarning past 10.
    const ac = new AbortController();
    const undo = Array.from({ length: 100 }, () => onAbort(ac.signal, () => undefined));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    for (const u of undo.slice(0, 99)) u();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    undo[99]!();
    undo[99]!(); // twice is harmless
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('calls every pending callback once with the reason, not the cancelled ones', () => {
    const ac = new AbortController();
    const seen: unknown[] = [];
    onAbort(ac.signal, (r) => seen.push(['a', r]));
    const undoB = onAbort(ac.signal, (r) => seen.push(['b', r]));
    onAbort(ac.signal, (r) => seen.push(['c', r]));
    undoB();
    const reason = new Error('stop');
    ac.abort(reason);
    ac.abort(new Error('again'));
    expect(seen).toEqual([
      ['a', reason],
      ['c', reason],
    ]);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a long loop of register/cancel leaves the count flat; a fresh registration after a full cancel works', () => {
    const ac = new AbortController();
    const counts = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const u = onAbort(ac.signal, () => undefined);
      counts.add(getEventListeners(ac.signal, 'abort').length);
      u();
    }
    expect([...counts]).toEqual([1]);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    let fired = 0;
    onAbort(ac.signal, () => fired++);
    ac.abort();
    expect(fired).toBe(1);
  });

  it('does nothing for an undefined or already-aborted signal (as addEventListener would not fire)', () => {
    let fired = 0;
    onAbort(undefined, () => fired++)();
    const done = AbortSignal.abort();
    onAbort(done, () => fired++)();
    expect(fired).toBe(0);
    expect(getEventListeners(done, 'abort')).toHaveLength(0);
  });
});
