/**
 * Child process of bench/server.bench.ts: one server, printing `port <n>` when ready.
 *   layer: the shared hardened HTTP layer (createHttpServer, sandbox-serve's 8 MiB body limit, default budget);
 *   naive: a plain node:http server that buffers each body up to 8 MiB (what sandbox-serve did before).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../src/http/index.js';

const mode = process.argv[2];
if (mode === 'layer') {
  const s = createHttpServer({ name: 'bench', limits: { maxBodyBytes: 8 * 1024 * 1024, requestTimeoutMs: 120_000 } });
  s.app.post('/echo', async (req) => ({ ok: req.body !== undefined }));
  const url = await s.listen();
  console.log(`port ${new URL(url).port}`);
} else {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 8 * 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => res.end(JSON.stringify({ ok: chunks.length > 0 })));
  });
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`));
}
