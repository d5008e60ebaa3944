import { afterEach, describe, expect, it } from 'vitest';
import { bm25Retriever, createRetrievalServer, type RetrievalServer, type Retriever } from '../../src/env/search/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { postJson, until } from './helpers.js';

// Hazards (issue 14 item 4): 3,000 copies of a common word with topk 1e9 returned the whole corpus per
// query (a large corpus ran the process out of heap); 20,000 queries with topk 3 blocked it for a minute.

const corpus = Array.from({ length: 300 }, (_, i) => ({ id: String(i), title: `Doc ${i}`, contents: `the common word appears in document number ${i}` }));

/** The BM25 retriever, counting the queries it searched. */
function counting(): Retriever & { searched: () => number } {
  const inner = bm25Retriever(corpus);
  let n = 0;
  return {
    search(queries, topK, signal) {
      n += queries.length;
      return inner.search(queries, topK, signal);
    },
    searched: () => n,
  };
}

/** A retriever that burns `msPerQuery` of CPU per query (a slow index), counting queries. */
function busy(msPerQuery: number): Retriever & { searched: () => number } {
  let n = 0;
  return {
    async search(queries) {
      n += queries.length;
      const end = performance.now() + msPerQuery * queries.length;
      while (performance.now() < end) {
        /* spin: the event loop is blocked, as in a synchronous index */
      }
      return queries.map((q) => [{ id: q, title: q, text: q, score: 1 }]);
    },
    searched: () => n,
  };
}

const servers: RetrievalServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function start(r: Retriever, opts: Parameters<typeof createRetrievalServer>[1] = {}) {
  const s = createRetrievalServer(r, opts);
  servers.push(s);
  return { s, url: await s.listen() };
}

describe('retrieval server under hostile requests', () => {
  it('refuses topk above maxTopK and queries longer than maxQueryChars with 400, without searching', async () => {
    const r = counting();
    const { url } = await start(r);
    const flood = Array.from({ length: 3000 }, () => 'the').join(' ');
    const a = await postJson(url, '/retrieve', { queries: [flood], topk: 1e9 });
    expect(a.status).toBe(400);
    const b = await postJson(url, '/retrieve', { queries: ['the'], topk: 1e9 });
    expect([b.status, JSON.parse(b.text).error]).toEqual([400, 'topk: at most 50, got 1000000000']);
    const c = await postJson(url, '/retrieve', { queries: [flood], topk: 3 });
    expect(c.status).toBe(400);
    expect(JSON.parse(c.text).error).toMatch(/queries\[0\]: at most 2048 characters/);
    expect(r.searched()).toBe(0);
    const ok = await postJson(url, '/retrieve', { queries: ['common word'], topk: 50 });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).result[0]).toHaveLength(50);
  });

  it('with limits raised by configuration, the flood query returns at most topk passages', async () => {
    const r = counting();
    const { url } = await start(r, { maxQueryChars: 20_000, maxTopK: 5 });
    const flood = Array.from({ length: 3000 }, () => 'the').join(' ');
    const res = await postJson(url, '/retrieve', { queries: [flood, flood], topk: 5 });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).result.map((l: unknown[]) => l.length)).toEqual([5, 5]);
    expect((await postJson(url, '/retrieve', { queries: ['x'], topk: 6 })).status).toBe(400);
  });

  it('refuses 20,000 queries in one request with 400 at once, and a body over maxBodyBytes with 413', async () => {
    const r = counting();
    const { url } = await start(r);
    const many = await postJson(url, '/retrieve', { queries: Array.from({ length: 20_000 }, (_, i) => `q${i}`), topk: 3 });
    expect(many.status).toBe(400);
    expect(JSON.parse(many.text).error).toBe('queries: at most 256 per request, got 20000');
    const huge = await postJson(url, '/retrieve', { queries: ['x'.repeat(2_000_000)] });
    expect(huge.status).toBe(413);
    expect(r.searched()).toBe(0);
    const max = await postJson(url, '/retrieve', { queries: Array.from({ length: 256 }, () => 'common'), topk: 3 });
    expect(max.status).toBe(200);
    expect(r.searched()).toBe(256);
  });

  it('answers a small request while a large one is still being searched (work is sliced)', async () => {
    const r = busy(20);
    const { url } = await start(r, { sliceSize: 4 });
    const order: string[] = [];
    const big = postJson(url, '/retrieve', { queries: Array.from({ length: 64 }, (_, i) => `q${i}`), topk: 1 }).then((x) => (order.push('big'), x));
    await until(() => r.searched() > 0);
    const small = postJson(url, '/retrieve', { queries: ['one'], topk: 1 }).then((x) => (order.push('small'), x));
    const [b, s] = await Promise.all([big, small]);
    expect([b.status, s.status]).toEqual([200, 200]);
    expect(JSON.parse(b.text).result).toHaveLength(64);
    expect(order).toEqual(['small', 'big']);
  }, 30_000);

  it('stops searching for a client that disconnected', async () => {
    const r = busy(20);
    const { s, url } = await start(r, { sliceSize: 2 });
    const ac = new AbortController();
    const body = JSON.stringify({ queries: Array.from({ length: 200 }, (_, i) => `q${i}`), topk: 1 });
    const p = fetch(`${url}/retrieve`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal: ac.signal }).catch((e: unknown) => e);
    await until(() => r.searched() > 0);
    ac.abort();
    await p;
    await until(() => s.stats().inFlight === 0);
    const at = r.searched();
    expect(at).toBeLessThan(200);
    expect((await postJson(url, '/retrieve', { queries: ['still up'], topk: 1 })).status).toBe(200);
  }, 30_000);

  it('validates its options', () => {
    expect(() => createRetrievalServer(counting(), { defaultTopK: 10, maxTopK: 5 })).toThrow(ConfigError);
    expect(() => createRetrievalServer(counting(), { maxQueries: 0 })).toThrow(/maxQueries/);
    expect(() => createRetrievalServer(counting(), { bogus: 1 } as never)).toThrow(ConfigError);
  });

  it('requires its API key when given, and refuses browser cross-origin posts', async () => {
    const { url } = await start(counting(), { apiKey: 'secret' });
    expect((await postJson(url, '/retrieve', { queries: ['the'] })).status).toBe(401);
    expect((await postJson(url, '/retrieve', { queries: ['the'] }, { authorization: 'Bearer secret' })).status).toBe(200);
    expect((await postJson(url, '/retrieve', { queries: ['the'] }, { authorization: 'Bearer secret', origin: 'http://evil.example' })).status).toBe(403);
    const open = createRetrievalServer(counting());
    servers.push(open);
    await expect(open.listen(0, '0.0.0.0')).rejects.toBeInstanceOf(ConfigError);
  });
});
