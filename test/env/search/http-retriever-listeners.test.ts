import { createServer } from 'node:http';
import { getEventListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { httpRetriever } from '../../../src/env/search/index.js';

describe('httpRetriever on a shared signal (issue 21 §3)', () => {
  it('leaves no abort listener behind after a long loop of calls that retry', async () => {
    // Hazard: the retry sleep added an abort listener per retry and never removed it: one leaked closure per retry
    // for the whole run, and MaxListenersExceededWarning after 11.
    let hits = 0;
    const ok = JSON.stringify({ result: [[{ document: { id: '1', contents: '"T"\nbody' }, score: 1 }]] });
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const fail = hits++ % 2 === 0; // every call fails once, then succeeds on its retry
        res.writeHead(fail ? 503 : 200, { 'content-type': 'application/json' });
        res.end(fail ? 'busy' : ok);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const r = httpRetriever({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retryDelayMs: 1, retries: 2 });
      const ac = new AbortController();
      for (let i = 0; i < 30; i++) {
        const res = await r.search(['q'], 1, ac.signal);
        expect(res[0]?.[0]?.title).toBe('T');
      }
      expect(hits).toBe(60);
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
