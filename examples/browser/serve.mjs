#!/usr/bin/env node
// Serves examples/browser/dist/ on 127.0.0.1 (static files only: all compute runs in the page).
// Usage: node examples/browser/serve.mjs [--port 8731]   (0: any free port; the URL is printed)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), 'dist');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.map': 'application/json',
  '.json': 'application/json',
  '.jsonl': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.safetensors': 'application/octet-stream',
};
// The page and its workers may load code and data from this origin only; wasm compilation is allowed, nothing else.
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Starts the server; resolves with its URL. */
export function serveDemo(port = 8731) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dist + sep)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-security-policy': CSP, 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(() => r())) }),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--port');
  const { url } = await serveDemo(i >= 0 ? Number(process.argv[i + 1]) : 8731);
  console.log(`agentrl browser demo: ${url}  (Ctrl-C to stop)`);
}
