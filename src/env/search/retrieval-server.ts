import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Retriever } from './types.js';

/** Options of {@link createRetrievalServer}. */
export interface RetrievalServerOptions {
  /** `topk` used when a request omits it (Search-R1's `--topk`). @default 3 */
  readonly defaultTopK?: number;
  /** Largest accepted request body in bytes. @default 1_048_576 */
  readonly maxBodyBytes?: number;
}

/** A retrieval server created by {@link createRetrievalServer}. */
export interface RetrievalServer {
  /** The underlying `node:http` server (not listening until {@link RetrievalServer.listen}). */
  readonly server: Server;
  /** Starts listening; resolves to the base URL, e.g. `http://127.0.0.1:41234`. @default port 0 (any free port), host `127.0.0.1` */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections and closes idle ones. Idempotent. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves any {@link Retriever} over Search-R1's protocol, so a Python Search-R1 / SkyRL stack or
 * {@link httpRetriever} can use it: `POST /retrieve {"queries": string[], "topk"?: number, "return_scores"?: boolean}`
 * → `{"result": [[{"document": {"id", "title", "text", "contents"}, "score"}]]}` (bare documents when
 * `return_scores` is false; `contents` is `"Title"\ntext` as in Search-R1 corpora).
 * Answers 400 for a malformed body, 404 for other routes, 413 for oversized bodies, 500 when the retriever throws.
 */
export function createRetrievalServer(retriever: Retriever, opts: RetrievalServerOptions = {}): RetrievalServer {
  const defaultTopK = opts.defaultTopK ?? 3;
  const maxBodyBytes = opts.maxBodyBytes ?? 1_048_576;
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/retrieve') return send(res, 404, { error: 'not found' });
      const raw = await readBody(req, maxBodyBytes);
      if (raw === undefined) return send(res, 413, { error: `body larger than ${maxBodyBytes} bytes` });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return send(res, 400, { error: 'body is not JSON' });
      }
      const queries = body?.['queries'];
      const topk = body?.['topk'] ?? defaultTopK;
      if (!Array.isArray(queries) || !queries.every((q) => typeof q === 'string')) {
        return send(res, 400, { error: 'queries: expected an array of strings' });
      }
      if (typeof topk !== 'number' || !Number.isInteger(topk) || topk < 0) {
        return send(res, 400, { error: 'topk: expected a non-negative integer' });
      }
      const withScores = body['return_scores'] === true;
      try {
        const lists = await retriever.search(queries as string[], topk);
        const result = lists.map((list) =>
          list.map((p) => {
            const document = { id: p.id, title: p.title, text: p.text, contents: `"${p.title}"\n${p.text}` };
            return withScores ? { document, score: p.score ?? 0 } : document;
          }),
        );
        send(res, 200, { result });
      } catch (err) {
        send(res, 500, { error: err instanceof Error ? err.message : String(err) });
      }
    })().catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  let closed = false;
  return {
    server,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          resolve(`http://${h}:${addr.port}`);
        });
      });
    },
    close() {
      if (closed || !server.listening) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
