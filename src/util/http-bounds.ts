import { RedirectRefusedError, ResponseTooLargeError } from '../errors/http-bound-errors.js';
import { onAbort } from './on-abort.js';

/**
 * Bounds that every agentrl HTTP client applies to whatever a server sends (tinkerBackend, openaiCompatibleSampler,
 * httpRetriever, remoteSandbox): a maximum answer size enforced while streaming, a total deadline per request, and
 * no redirects. A hostile or broken server can make a request fail, never hold it forever or fill the heap.
 */

/** A body as undici's `request` (an async iterable of Buffers) or `fetch` (a web `ReadableStream`) returns it. */
export type StreamedBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

function announcedLength(headers: HeaderSource | undefined): number | undefined {
  if (headers === undefined) return undefined;
  const raw =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get('content-length')
      : (headers as Record<string, string | string[] | undefined>)['content-length'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** Response headers as undici (`Record`) or `fetch` (`Headers`) gives them. */
export type HeaderSource = Headers | Readonly<Record<string, string | string[] | undefined>>;

/** Stops reading `body` and drops its connection (best effort; never throws, never leaves an unhandled error). */
export function discardBody(body: StreamedBody): void {
  try {
    if (typeof (body as ReadableStream).cancel === 'function') void (body as ReadableStream).cancel().catch(() => undefined);
    else {
      const node = body as { on?: (e: string, f: () => void) => void; destroy?: () => void };
      node.on?.('error', () => undefined); // undici reports its own destroy as an AbortError event
      node.destroy?.();
    }
  } catch {
    /* already closed */
  }
}

/**
 * Reads a whole response body into one Buffer, refusing it as soon as it passes `maxBytes`: at once when
 * `Content-Length` announces more, else when the bytes streamed so far do (the rest is never read and the
 * connection is dropped). Memory held is at most `maxBytes` plus one chunk.
 * @param maxBytes - largest accepted body, bytes (≥ 0).
 * @throws ResponseTooLargeError past the limit; the stream's own error (reset, abort) otherwise.
 */
export async function readBounded(body: StreamedBody, maxBytes: number, url: string, headers?: HeaderSource): Promise<Buffer> {
  const announced = announcedLength(headers);
  if (announced !== undefined && announced > maxBytes) {
    discardBody(body);
    throw new ResponseTooLargeError(url, maxBytes, announced);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      discardBody(body);
      throw new ResponseTooLargeError(url, maxBytes, size);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A total deadline for one request (connect, headers and the whole body), joined with an outer signal. */
export interface Deadline {
  /** Aborts when the deadline passes (reason: a `TimeoutError` DOMException) or the outer signal aborts. */
  readonly signal: AbortSignal;
  /** True once the deadline itself (not the outer signal) has fired. */
  expired(): boolean;
  /** Clears the timer and the outer listener; call it when the request ends (success or not). */
  dispose(): void;
}

/**
 * Starts a total deadline of `timeoutMs` for one request. Unlike undici's `headersTimeout` / `bodyTimeout` (reset by
 * every chunk), nothing the server sends extends it: a body dripped a byte at a time is cut at `timeoutMs`.
 */
export function startDeadline(timeoutMs: number, outer?: AbortSignal): Deadline {
  const c = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    c.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  // One shared listener on `outer` (a client's long-lived close signal) whatever the number of requests in flight.
  if (outer?.aborted) c.abort(outer.reason);
  const unwatch = onAbort(outer, (reason) => c.abort(reason));
  return {
    signal: c.signal,
    expired: () => fired,
    dispose() {
      clearTimeout(timer);
      unwatch();
    },
  };
}

/** True for the statuses that ask a client to follow a `Location` (301, 302, 303, 307, 308). */
export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * The redirect rule of agentrl's clients: a redirect answer is refused (never followed, so neither the body nor
 * a credential or custom header is re-sent anywhere). Throws for a redirect status, returns otherwise.
 * @throws RedirectRefusedError for 301/302/303/307/308.
 */
export function refuseRedirect(url: string, status: number, headers: HeaderSource): void {
  if (!isRedirect(status)) return;
  const raw =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get('location')
      : (headers as Record<string, string | string[] | undefined>)['location'];
  const location = (Array.isArray(raw) ? raw[0] : raw) ?? undefined;
  throw new RedirectRefusedError(url, status, location === null ? undefined : location);
}
