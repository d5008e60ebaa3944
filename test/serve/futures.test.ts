import { describe, expect, it } from 'vitest';
import { FutureStore } from '../../src/serve/tinker/futures.js';
import { SeqQueue } from '../../src/serve/tinker/seq-queue.js';

describe('FutureStore', () => {
  it('long-polls until the result, keeps it for re-polls, then answers expired (the client resubmits on 410)', async () => {
    const store = new FutureStore({ ttlMs: 1000 });
    try {
      let finish!: (v: Record<string, unknown>) => void;
      const id = store.create(new Promise((r) => (finish = r)), () => ({}));
      expect(await store.wait(id, 10)).toEqual({ state: 'pending' });
      const polled = store.wait(id, 60_000);
      finish({ type: 'optim_step' });
      expect(await polled).toEqual({ state: 'done', body: { type: 'optim_step' } });
      expect(await store.wait(id, 0)).toEqual({ state: 'done', body: { type: 'optim_step' } });
      store.sweep(Date.now() + 500);
      expect((await store.wait(id, 0)).state).toBe('done');
      store.sweep(Date.now() + 2000);
      expect(await store.wait(id, 0)).toEqual({ state: 'expired' });
      expect(await store.wait('req_never', 0)).toEqual({ state: 'unknown' });
    } finally {
      store.close();
    }
  });

  it('turns a failed request into its {error, category} body, and close() ends pending polls', async () => {
    const store = new FutureStore({ ttlMs: 1000 });
    const failed = store.create(Promise.reject(new Error('boom')), (e) => ({ error: String(e), category: 'server' }));
    expect(await store.wait(failed, 1000)).toEqual({ state: 'done', body: { error: 'Error: boom', category: 'server' } });
    const pending = store.create(new Promise(() => {}), () => ({}));
    const poll = store.wait(pending, 60_000);
    store.close();
    expect(await poll).toEqual({ state: 'pending' });
  });
});

describe('SeqQueue', () => {
  it('releases requests in seq_id order, one at a time', async () => {
    const q = new SeqQueue();
    const ran: number[] = [];
    let running = 0;
    const job = (n: number) => async () => {
      running += 1;
      expect(running).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      ran.push(n);
      running -= 1;
    };
    const all: Promise<void>[] = [];
    for (const n of [3, 1, 4, 2]) {
      const a = q.admit(n, `d${n}`);
      if (a.kind !== 'new') throw new Error('expected new');
      all.push(new Promise<void>((res) => a.start(async () => { await job(n)(); res(); })));
    }
    await Promise.all(all);
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(q.nextSeqId).toBe(5);
    expect(q.admit(2, 'd2').kind).toBe('duplicate');
    expect(q.admit(2, 'other').kind).toBe('conflict');
  });
});
