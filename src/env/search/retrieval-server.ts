import type { Server } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { z } from '../../util/zod.js';
import { ConfigError } from '../../errors/config-error.js';
import { clientGone, createHttpServer, type HttpLimits, type HttpServerStats } from '../../http/index.js';
import type { Passage, Retriever } from './types.js';

/** Options of {@link createRetrievalServer}. */
export interface RetrievalServerOptions {
  /** `topk` used when a request omits it (Search-R1's `--topk`). @default 3 */
  readonly defaultTopK?: number;
  /** Largest `topk` accepted; larger gets 400. @default 50 */
  readonly maxTopK?: number;
  /** Most `queries` in one request; more gets 400 (split the batch). @default 256 */
  readonly maxQueries?: number;
  /** Longest query in UTF-16 code units; longer gets 400. @default 2048 */
  readonly maxQueryChars?: number;
  /**
   * Queries searched per slice; between slices the server yields to the event loop (other requests
   * and pings are answered) and stops if the client has gone. @default 8
   */
  readonly sliceSize?: number;
  /** Largest accepted request body in bytes (413 beyond). @default 1_048_576 */
  readonly maxBodyBytes?: number;
  /** Required bearer key (`Authorization: Bearer KEY` or `X-API-Key`); required when listening on a non-loopback address. */
  readonly apiKey?: string;
  /** Other limits of the shared HTTP layer (timeouts, connections, body budget, in-flight); see {@link HttpLimits}. */
  readonly limits?: Partial<HttpLimits>;
}

/** A retrieval server created by {@link createRetrievalServer}. */
export interface RetrievalServer {
  /** The underlying `node:http` server (not listening until {@link RetrievalServer.listen}). */
  readonly server: Server;
  /**
   * Starts listening; resolves to the base URL, e.g. `http://127.0.0.1:41234`. @default port 0 (any free port), host `127.0.0.1`
   * @throws ConfigError when `host` is not loopback and no `apiKey` was given.
   */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting connections and closes open ones. Idempotent. */
  close(): Promise<void>;
  /** Counters of the HTTP layer (connections, in-flight, queued, buffered body bytes, shed requests). */
  stats(): HttpServerStats;
}

const count = z.number().int().min(1).max(1_000_000);
const optionsSchema = z
  .object({
    defaultTopK: z.number().int().min(0).optional(),
    maxTopK: count.optional(),
    maxQueries: count.optional(),
    maxQueryChars: count.optional(),
    sliceSize: count.optional(),
    maxBodyBytes: z.number().int().min(1).optional(),
    apiKey: z.string().min(1).optional(),
    limits: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * Serves any {@link Retriever} over Search-R1's protocol, so a Python Search-R1 / SkyRL stack or
 * {@link httpRetriever} can use it: `POST /retrieve {"queries": string[], "topk"?: number, "return_scores"?: boolean}`
 * → `{"result": [[{"document": {"id", "title", "text", "contents"}, "score"}]]}` (bare documents when
 * `return_scores` is false; `contents` is `"Title"\ntext` as in Search-R1 corpora).
 * Work per request is bounded: at most `maxQueries` queries of at most `maxQueryChars`, `topk` ≤ `maxTopK`
 * (400 beyond each), searched `sliceSize` at a time with the event loop free in between, abandoned
 * when the client disconnects. Runs on the shared hardened HTTP layer (deadlines, connection cap,
 * body budget, in-flight limit with 503, API key, no browser cross-origin requests).
 * Answers 400 for a malformed body or a limit exceeded, 404 for other routes, 413 for oversized
 * bodies, 500 when the retriever throws, 503 when overloaded.
 * @throws ConfigError for invalid options (e.g. `defaultTopK` above `maxTopK`).
 */
export function createRetrievalServer(retriever: Retriever, opts: RetrievalServerOptions = {}): RetrievalServer {
  const checked = optionsSchema.safeParse(opts);
  const issues = checked.success ? [] : checked.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  const defaultTopK = opts.defaultTopK ?? 3;
  const maxTopK = opts.maxTopK ?? 50;
  if (defaultTopK > maxTopK) issues.push({ path: 'defaultTopK', message: `must be at most maxTopK (${maxTopK}), got ${defaultTopK}` });
  if (issues.length > 0) throw new ConfigError('retrieval server options', issues);
  const maxQueries = opts.maxQueries ?? 256;
  const maxQueryChars = opts.maxQueryChars ?? 2048;
  const sliceSize = opts.sliceSize ?? 8;
  const http = createHttpServer({
    name: 'retrieval server',
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    limits: { maxBodyBytes: opts.maxBodyBytes ?? 1_048_576, ...opts.limits },
  });
  const app = http.app;
  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return reply.code(400).send({ error: 'body is not JSON' });
    return reply.code(status >= 400 && status < 600 ? status : 500).send({ error: status >= 500 && status !== 503 ? 'internal error' : err.message });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'not found' }));

  app.post('/retrieve', async (req, reply) => {
    const body = req.body as Record<string, unknown> | null | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return reply.code(400).send({ error: 'body: expected a JSON object' });
    const queries = body['queries'];
    const topk = body['topk'] ?? defaultTopK;
    if (!Array.isArray(queries) || !queries.every((q) => typeof q === 'string')) {
      return reply.code(400).send({ error: 'queries: expected an array of strings' });
    }
    if (queries.length > maxQueries) return reply.code(400).send({ error: `queries: at most ${maxQueries} per request, got ${queries.length}` });
    const long = (queries as string[]).findIndex((q) => q.length > maxQueryChars);
    if (long >= 0) return reply.code(400).send({ error: `queries[${long}]: at most ${maxQueryChars} characters, got ${(queries[long] as string).length}` });
    if (typeof topk !== 'number' || !Number.isInteger(topk) || topk < 0) {
      return reply.code(400).send({ error: 'topk: expected a non-negative integer' });
    }
    if (topk > maxTopK) return reply.code(400).send({ error: `topk: at most ${maxTopK}, got ${topk}` });
    const withScores = body['return_scores'] === true;
    const signal = clientGone(reply);
    try {
      const lists: Passage[][] = [];
      for (let i = 0; i < queries.length; i += sliceSize) {
        if (i > 0) await yieldToLoop();
        if (signal.aborted) return reply.code(499).send({ error: 'client disconnected' });
        const part = await retriever.search((queries as string[]).slice(i, i + sliceSize), topk, signal);
        for (const list of part) lists.push(list.slice(0, topk));
      }
      const result = lists.map((list) =>
        list.map((p) => {
          const document = { id: p.id, title: p.title, text: p.text, contents: `"${p.title}"\n${p.text}` };
          return withScores ? { document, score: p.score ?? 0 } : document;
        }),
      );
      return reply.code(200).send({ result });
    } catch (err) {
      if (signal.aborted) return reply.code(499).send({ error: 'client disconnected' });
      return reply.code(500).send({ error: err instanceof Error ? err.message : String(err) });
    }
  });

  return {
    server: app.server,
    listen: (port = 0, host = '127.0.0.1') => http.listen({ port, host }),
    close: () => http.close(),
    stats: () => http.stats(),
  };
}
