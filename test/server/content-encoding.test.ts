import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../../src/http/index.js';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { TINY } from '../backend/helpers.js';

// No agentrl server decompresses a body on its own: every Content-Encoding but identity (and a route's own, e.g. zstd
// on forward_backward, bounded in zstd-bomb.test.ts) is 415 before the body is read, so a gzip/deflate/br bomb is
// never inflated whatever it declares.
const MiB = 1024 * 1024;
const json = Buffer.from(JSON.stringify({ pad: 'a'.repeat(64 * MiB) })); // inflates to 64 MiB
const bombs: Record<string, Buffer> = {
  gzip: gzipSync(json),
  deflate: deflateSync(json),
  br: brotliCompressSync(json),
  'gzip, br': gzipSync(json),
  'x-gzip': gzipSync(json),
  GZIP: gzipSync(json),
};

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function post(url: string, body: Buffer, encoding: string, type = 'application/json') {
  const t0 = performance.now();
  const res = await request(url, { method: 'POST', headers: { 'content-type': type, 'content-encoding': encoding }, body });
  return { status: res.statusCode, text: await res.body.text(), ms: performance.now() - t0 };
}

describe('Content-Encoding: refused (415) unless the route decodes it within a bound', () => {
  it('the HTTP layer refuses gzip, deflate, br and any unknown encoding before a handler runs', async () => {
    const s: HttpServer = createHttpServer({ name: 'test server' });
    closers.push(() => s.close());
    let handled = 0;
    s.app.post('/echo', async (req) => {
      handled += 1;
      return { got: req.body ?? null };
    });
    s.app.post('/z', { config: { contentEncodings: ['zstd'] } }, async () => ({ ok: true }));
    const url = await s.listen();
    for (const [enc, body] of Object.entries(bombs)) {
      expect(body.length).toBeLessThan(MiB);
      const r = await post(`${url}/echo`, body, enc);
      expect(r.status, enc).toBe(415);
      expect(JSON.parse(r.text).error).toMatch(/Content-Encoding/);
    }
    expect(handled).toBe(0);
    // identity is the default; a route's own encoding passes the layer (the route decodes it).
    expect((await post(`${url}/echo`, Buffer.from('{"a":1}'), 'identity')).status).toBe(200);
    expect((await post(`${url}/z`, Buffer.from('{"a":1}'), 'zstd')).status).toBe(200);
    expect((await post(`${url}/z`, bombs.gzip!, 'gzip')).status).toBe(415);
  });

  it('agentrl serve: /v1 and every Tinker route refuse compressed bodies they do not decode', async () => {
    const serve: ServeApp = createServeApp({
      port: 0,
      model: { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! },
      pollTimeoutMs: 200,
    });
    closers.push(() => serve.close());
    const base = await serve.listen();
    for (const path of ['/v1/chat/completions', '/v1/completions', '/api/v1/create_session', '/api/v1/asample']) {
      for (const enc of ['gzip', 'deflate', 'br']) expect((await post(`${base}${path}`, bombs[enc]!, enc)).status, `${path} ${enc}`).toBe(415);
    }
    for (const enc of ['gzip', 'deflate', 'br']) {
      expect((await post(`${base}/api/v1/forward_backward`, bombs[enc]!, enc, 'application/x-protobuf')).status).toBe(415);
    }
  });
});
