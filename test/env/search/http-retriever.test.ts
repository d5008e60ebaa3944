import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { bm25Retriever, createRetrievalServer, httpRetriever, type RetrievalServer } from '../../../src/env/search/index.js';
import { RetrieverError } from '../../../src/errors/index.js';

const corpus = [
  { id: '0', title: 'Finland', contents: 'Finland is a country in Northern Europe. Its capital city is Helsinki.' },
  { id: '1', title: 'France', contents: 'France is a country in Western Europe. Its capital city is Paris.' },
  { id: '2', title: 'Peru', contents: 'Peru is a country in South America. Its capital city is Lima.' },
];

/** A scripted HTTP server on loopback: each request gets the next handler. */
async function scripted(
  handlers: ((body: string) => { status: number; body: string; delayMs?: number })[],
): Promise<{ url: string; server: Server; hits: () => number }> {
  let i = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const h = handlers[Math.min(i++, handlers.length - 1)]!(body);
      setTimeout(() => {
        res.writeHead(h.status, { 'content-type': 'application/json' });
        res.end(h.body);
      }, h.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits: () => i };
}

describe('createRetrievalServer + httpRetriever (Search-R1 /retrieve protocol on loopback)', () => {
  let srv: RetrievalServer;
  let url: string;
  beforeAll(async () => {
    srv = createRetrievalServer(bm25Retriever(corpus));
    url = await srv.listen();
  });
  afterAll(() => srv.close());

  it('round-trips ranked passages with titles and scores', async () => {
    const r = httpRetriever({ url });
    const res = await r.search(['capital Helsinki', 'Lima'], 2);
    expect(res).toHaveLength(2);
    expect(res[0]?.[0]).toMatchObject({ id: '0', title: 'Finland', text: corpus[0]!.contents });
    expect(typeof res[0]?.[0]?.score).toBe('number');
    expect(res[1]?.[0]?.title).toBe('Peru');
  });

  it('speaks the exact wire shape: {result: [[{document: {id, contents}, score}]]}, bare docs without scores', async () => {
    // Hazard: Python Search-R1 clients index result[q][k]["document"]["contents"]; the shape must not drift.
    const withScores = await request(`${url}/retrieve`, { method: 'POST', body: JSON.stringify({ queries: ['Paris'], topk: 1, return_scores: true }) });
    const a = (await withScores.body.json()) as { result: { document: { id: string; contents: string }; score: number }[][] };
    expect(a.result[0]?.[0]?.document.contents).toBe(`"France"\n${corpus[1]!.contents}`);
    expect(typeof a.result[0]?.[0]?.score).toBe('number');
    const bare = await request(`${url}/retrieve`, { method: 'POST', body: JSON.stringify({ queries: ['Paris'] }) });
    const b = (await bare.body.json()) as { result: { id: string }[][] };
    expect(b.result[0]?.[0]?.id).toBe('1');
    const bad = await request(`${url}/retrieve`, { method: 'POST', body: '{"queries": "Paris"}' });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
    const missing = await request(`${url}/search`, { method: 'POST', body: '{}' });
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
  });

  it('retries a 5xx and then succeeds', async () => {
    const ok = JSON.stringify({ result: [[{ document: { id: '9', contents: '"X"\nbody' }, score: 1 }]] });
    const s = await scripted([() => ({ status: 503, body: 'busy' }), () => ({ status: 200, body: ok })]);
    try {
      const res = await httpRetriever({ url: s.url, retryDelayMs: 1 }).search(['q'], 1);
      expect(res).toEqual([[{ id: '9', title: 'X', text: 'body', score: 1 }]]);
      expect(s.hits()).toBe(2);
    } finally {
      s.server.close();
    }
  });

  it('fails with a typed, non-retryable RetrieverError on 4xx and on a malformed body', async () => {
    const s = await scripted([() => ({ status: 422, body: '{"detail":"bad"}' }), () => ({ status: 200, body: '{"nope":1}' })]);
    try {
      const r = httpRetriever({ url: s.url, retryDelayMs: 1 });
      const e1 = await r.search(['q'], 1).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(RetrieverError);
      expect(e1).toMatchObject({ code: 'RETRIEVER_FAILED', status: 422, retryable: false });
      const e2 = await r.search(['q'], 1).catch((e: unknown) => e);
      expect(e2).toMatchObject({ code: 'RETRIEVER_FAILED', retryable: false });
      expect(s.hits()).toBe(2); // no retries for either
    } finally {
      s.server.close();
    }
  });

  it('gives up after timeoutMs per attempt and after the retries', async () => {
    const s = await scripted([() => ({ status: 200, body: '{"result":[[]]}', delayMs: 1_000 })]);
    try {
      const t0 = performance.now();
      const err = await httpRetriever({ url: s.url, timeoutMs: 100, retries: 1, retryDelayMs: 1 })
        .search(['q'], 1)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetrieverError);
      expect((err as Error).message).toMatch(/no answer within 100 ms/);
      expect(performance.now() - t0).toBeLessThan(900);
    } finally {
      s.server.closeAllConnections();
      s.server.close();
    }
  });

  it('reports a refused connection as a retryable RetrieverError', async () => {
    const s = await scripted([() => ({ status: 200, body: '' })]);
    const deadUrl = s.url;
    await new Promise((r) => s.server.close(r));
    const err = await httpRetriever({ url: deadUrl, retries: 0 })
      .search(['q'], 1)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RETRIEVER_FAILED', retryable: true });
  });
});
