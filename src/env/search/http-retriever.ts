import { request, type Dispatcher } from 'undici';
import { RetrieverError } from '../../errors/index.js';
import { splitTitledContents } from './corpus.js';
import type { Passage, Retriever } from './types.js';
import { retry } from '../../util/retry.js';
import { discardBody, isRedirect, readBounded, startDeadline } from '../../util/http-bounds.js';
import { ResponseTooLargeError } from '../../errors/http-bound-errors.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const HTTP_RETRIEVER_OPTIONS = optionKeys<HttpRetrieverOptions>({
  url: true,
  timeoutMs: true,
  maxResponseBytes: true,
  retries: true,
  retryDelayMs: true,
  dispatcher: true,
});

/** Options of {@link httpRetriever}. */
export interface HttpRetrieverOptions {
  /** Base URL of a Search-R1-compatible server, e.g. `http://127.0.0.1:8000` (`/retrieve` is appended). */
  readonly url: string;
  /** Total deadline per HTTP attempt (headers and the whole body; a slow drip does not extend it), ms. @default 30_000 */
  readonly timeoutMs?: number;
  /** Largest answer accepted, bytes; a larger one is refused while streaming (not retried). @default 16_777_216 (16 MiB) */
  readonly maxResponseBytes?: number;
  /** Extra attempts after a retryable failure (transport error, timeout, 5xx). @default 2 */
  readonly retries?: number;
  /** Wait before retry k (1-based) is `k × retryDelayMs` (linear backoff, as SkyRL's search tool). @default 200 */
  readonly retryDelayMs?: number;
  /** undici dispatcher (for tests, proxies or connection limits). @default undici's global dispatcher */
  readonly dispatcher?: Dispatcher;
}

/** One hit of Search-R1's `/retrieve` answer: `{ document, score }`, or a bare document when `return_scores` is false. */
function toPassage(hit: unknown): Passage | undefined {
  if (typeof hit !== 'object' || hit === null) return undefined;
  const h = hit as Record<string, unknown>;
  const doc = (typeof h['document'] === 'object' && h['document'] !== null ? h['document'] : h) as Record<string, unknown>;
  const id = doc['id'] === undefined ? '' : String(doc['id']);
  const score = typeof h['score'] === 'number' ? h['score'] : undefined;
  let title: string;
  let text: string;
  if (typeof doc['title'] === 'string' && typeof doc['text'] === 'string') {
    title = doc['title'];
    text = doc['text'];
  } else if (typeof doc['contents'] === 'string') {
    ({ title, text } = splitTitledContents(doc['contents']));
  } else return undefined;
  return score === undefined ? { id, title, text } : { id, title, text, score };
}

function parseAnswer(body: unknown, nQueries: number): Passage[][] {
  const result = (body as { result?: unknown } | null)?.result;
  if (!Array.isArray(result) || result.length !== nQueries) {
    throw new RetrieverError(`retrieval answer must be {"result": [...]} with ${nQueries} lists`, undefined, { retryable: false });
  }
  return result.map((list) => {
    if (!Array.isArray(list)) throw new RetrieverError('retrieval answer: each result entry must be a list', undefined, { retryable: false });
    return list.map(toPassage).filter((p): p is Passage => p !== undefined);
  });
}

/**
 * A client for Search-R1's retrieval server protocol:
 * `POST {url}/retrieve {"queries": [...], "topk": k, "return_scores": true}` →
 * `{"result": [[{"document": {"id", "contents": "\"Title\"\ntext"}, "score"}, ...], ...]}`.
 * Documents carrying `title` and `text` (pyserini hits) are used as is; otherwise the title is split off `contents`.
 * Retries transport errors, timeouts and 5xx with linear backoff. Each attempt has a total deadline (`timeoutMs`), its
 * answer is refused past `maxResponseBytes`, and a redirect is refused (never followed).
 * @throws RetrieverError after the last attempt (`status` set for HTTP errors); rejects with the abort reason when `signal` aborts.
 */
export function httpRetriever(opts: HttpRetrieverOptions): Retriever {
  checkOptions('httpRetriever options', HTTP_RETRIEVER_OPTIONS, opts, { signature: 'httpRetriever({ url, … })' });
  const endpoint = new URL('retrieve', opts.url.endsWith('/') ? opts.url : opts.url + '/').toString();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const retries = opts.retries ?? 2;
  const retryDelayMs = opts.retryDelayMs ?? 200;
  const maxResponseBytes = opts.maxResponseBytes ?? 16_777_216;

  async function attempt(queries: readonly string[], topK: number, signal?: AbortSignal): Promise<Passage[][]> {
    const deadline = startDeadline(timeoutMs, signal);
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      try {
        res = await request(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ queries, topk: topK, return_scores: true }),
          signal: deadline.signal,
          ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
        });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const what = deadline.expired() ? `no answer within ${timeoutMs} ms` : (err as Error).message;
        throw new RetrieverError(`retrieval request to ${endpoint} failed: ${what}`, undefined, { cause: err });
      }
      if (isRedirect(res.statusCode)) {
        discardBody(res.body);
        throw new RetrieverError(
          `retrieval server answered ${res.statusCode} (a redirect, refused: the queries are sent to ${endpoint} only)`,
          res.statusCode,
          { retryable: false },
        );
      }
      try {
        text = (await readBounded(res.body, maxResponseBytes, endpoint, res.headers)).toString('utf8');
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (err instanceof ResponseTooLargeError) throw new RetrieverError(err.message, res.statusCode, { cause: err, retryable: false });
        const what = deadline.expired() ? `not complete within ${timeoutMs} ms` : 'cut off';
        throw new RetrieverError(`retrieval answer from ${endpoint} was ${what}`, undefined, { cause: err });
      }
    } finally {
      deadline.dispose();
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw new RetrieverError(`retrieval server answered ${res.statusCode}: ${text.slice(0, 200)}`, res.statusCode);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new RetrieverError('retrieval answer is not JSON', res.statusCode, { cause: err, retryable: false });
    }
    return parseAnswer(body, queries.length);
  }

  return {
    async search(queries: readonly string[], topK: number, signal?: AbortSignal): Promise<Passage[][]> {
      if (queries.length === 0) return [];
      return retry(
        () => attempt(queries, topK, signal),
        {
          maxAttempts: retries + 1,
          backoff: (k) => (k + 1) * retryDelayMs, // linear, as documented for `retryDelayMs`
          retryable: (err) => err instanceof RetrieverError && err.retryable,
        },
        signal,
      );
    },
  };
}
