import { describe, expect, it } from 'vitest';
import { FairAdmission, type AdmissionResult } from '../../src/http/index.js';

const limits = { maxInFlight: 1, maxInFlightPerClient: 1, maxQueued: 10, queueTimeoutMs: 60_000 };
const granted = (r: AdmissionResult): (() => void) => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.release;
};

describe('FairAdmission', () => {
  it('clients take turns for freed slots, whoever queued first', async () => {
    const adm = new FairAdmission(limits);
    const order: string[] = [];
    const first = granted(await adm.acquire('a'));
    const waits = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].map((id) =>
      adm.acquire(id[0]!).then((r) => {
        order.push(id);
        return granted(r);
      }),
    );
    let release = first;
    for (let i = 0; i < 6; i++) {
      release();
      await new Promise((r) => setImmediate(r));
      release = await waits[['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].indexOf(order[i]!)]!;
    }
    release();
    expect(order).toEqual(['b1', 'c1', 'a1', 'b2', 'a2', 'a3']);
    expect(adm.inFlight).toBe(0);
    expect(adm.activeClients).toBe(0);
  });

  it('when the queue is full, the client with the most waiters loses its newest one; that client is refused outright', async () => {
    const adm = new FairAdmission({ ...limits, maxQueued: 2 });
    const hold = granted(await adm.acquire('a'));
    const a1 = adm.acquire('a');
    const a2 = adm.acquire('a');
    expect(await adm.acquire('a')).toEqual({ ok: false, reason: 'queue_full' });
    const b1 = adm.acquire('b');
    expect(await a2).toEqual({ ok: false, reason: 'displaced' });
    hold();
    const rb = await b1;
    expect(rb.ok).toBe(true);
    granted(rb)();
    granted(await a1)();
    expect(adm.queued).toBe(0);
  });

  it('refuses with queue_timeout after queueTimeoutMs, drops aborted waiters, refuses all after close()', async () => {
    const adm = new FairAdmission({ ...limits, maxQueued: 5, queueTimeoutMs: 50 });
    const hold = granted(await adm.acquire('a'));
    expect(await adm.acquire('b')).toEqual({ ok: false, reason: 'queue_timeout' });
    const ac = new AbortController();
    const gone = adm.acquire('c', ac.signal);
    expect(adm.queued).toBe(1);
    ac.abort();
    expect(await gone).toEqual({ ok: false, reason: 'closed' });
    expect(adm.queued).toBe(0);
    const pending = adm.acquire('d');
    adm.close();
    expect(await pending).toEqual({ ok: false, reason: 'closed' });
    expect(await adm.acquire('e')).toEqual({ ok: false, reason: 'closed' });
    hold();
    expect(adm.inFlight).toBe(0);
  });

  it('caps slots per client while others are free to use the rest', async () => {
    const adm = new FairAdmission({ maxInFlight: 3, maxInFlightPerClient: 2, maxQueued: 0, queueTimeoutMs: 1000 });
    const r1 = granted(await adm.acquire('a'));
    const r2 = granted(await adm.acquire('a'));
    expect(await adm.acquire('a')).toEqual({ ok: false, reason: 'queue_full' });
    const r3 = granted(await adm.acquire('b'));
    expect(await adm.acquire('c')).toEqual({ ok: false, reason: 'queue_full' });
    [r1, r2, r3].forEach((r) => {
      r();
    });
    r1(); // releasing twice is harmless
    expect(adm.inFlight).toBe(0);
  });
});
