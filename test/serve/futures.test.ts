import { describe, expect, it } from 'vitest';
import { FutureStore } from '../../apps/serve/tinker/future-store.js';
import { SeqQueue } from '../../apps/serve/tinker/seq-queue.js';

describe('FutureStore', () => {
  it('long-polls until the result, keeps it for re-polls, then answers expired (the client resubmits on 410)', async () => {
    const store = new FutureStore({ ttlMs: 1000 });
    try {
      let finish!: (v: Record<string, unknown>) => void;
      const id = store.create('a', new Promise((r) => (finish = r)), () => ({}));
      expect(await store.wait('a', id, 10)).toEqual({ state: 'pending' });
      const polled = store.wait('a', id, 60_000);
      finish({ type: 'optim_step' });
      expect(await polled).toEqual({ state: 'done', body: { type: 'optim_step' } });
      expect(await store.wait('a', id, 0)).toEqual({ state: 'done', body: { type: 'optim_step' } });
      store.sweep(Date.now() + 500);
      expect((await store.wait('a', id, 0)).state).toBe('done');
      store.sweep(Date.now() + 2000);
      expect(await store.wait('a', id, 0)).toEqual({ state: 'expired' });
      expect(await store.wait('a', 'req_never', 0)).toEqual({ state: 'unknown' });
    } finally {
      store.close();
    }
  });

  it('turns a failed request into its {error, category} body, and close() ends pending polls', async () => {
    const store = new FutureStore({ ttlMs: 1000 });
    const failed = store.create('a', Promise.reject(new Error('boom')), (e: unknown) => ({ error: String(e), category: 'server' }));
    expect(await store.wait('a', failed, 1000)).toEqual({ state: 'done', body: { error: 'Error: boom', category: 'server' } });
    const pending = store.create('a', new Promise(() => {}), () => ({}));
    const poll = store.wait('a', pending, 60_000);
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
      all.push(
        new Promise<void>((res) =>
          a.start(async () => {
            await job(n)();
            res();
          }),
        ),
      );
    }
    await Promise.all(all);
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(q.nextSeqId).toBe(5);
    expect(q.admit(2, 'd2').kind).toBe('duplicate');
    expect(q.admit(2, 'other').kind).toBe('conflict');
  });

  it('starts a run only after the current macrotask, so the submit is answered before the engine blocks', async () => {
    // Hazard: the run starting in the submit's own microtasks, so a 60 s forward_backward delays its {request_id}
    // answer by 60 s (the client times out and resubmits).
    const q = new SeqQueue();
    let ran = false;
    const a = q.admit(1, 'd');
    if (a.kind !== 'new') throw new Error('expected new');
    a.start(async () => {
      ran = true;
    });
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(ran).toBe(false);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(true);
  });
});
