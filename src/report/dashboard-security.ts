import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * Headers of every dashboard response: a Content-Security-Policy that runs only the page's own script and style
 * (no inline script, no inline handler, nothing from elsewhere, never framed), no MIME sniffing, no referrer
 * (so a `?key=` URL never leaks), no framing by older browsers either.
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

/** Name of the HttpOnly cookie that carries a browser's dashboard session. */
export const SESSION_COOKIE = 'agentrl_dashboard';

/**
 * Browser sessions of a dashboard started with an API key: `GET /?key=KEY` (checked by the HTTP layer like a
 * header key) gets a random session token in an HttpOnly, SameSite=Strict cookie and a redirect to `/`; later
 * requests with the cookie count as carrying the key. Tokens live in memory until the dashboard stops
 * (at most `maxSessions`, the oldest dropped first).
 */
export class BrowserSessions {
  readonly #tokens = new Set<string>();
  readonly #apiKey: string;
  readonly #max: number;

  constructor(apiKey: string, maxSessions = 256) {
    this.#apiKey = apiKey;
    this.#max = maxSessions;
  }

  /** A new session token (call once the request's key was accepted). */
  issue(): string {
    const token = randomBytes(32).toString('base64url');
    this.#tokens.add(token);
    if (this.#tokens.size > this.#max) this.#tokens.delete(this.#tokens.values().next().value!);
    return token;
  }

  /** `Set-Cookie` value for `token`. */
  cookie(token: string): string {
    return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** For the HTTP layer's `keyFromRequest`: the key, when the request holds a live session cookie or `?key=` on `/`. */
  keyFrom(req: FastifyRequest): string | undefined {
    const token = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (token !== undefined && this.#tokens.has(token)) return this.#apiKey;
    if (req.method === 'GET' && new URL(req.url, 'http://x').pathname === '/') return queryKey(req.url);
    return undefined;
  }
}

/** The `key` query parameter of a request URL, if any. */
export function queryKey(url: string): string | undefined {
  const v = new URL(url, 'http://x').searchParams.get('key');
  return v === null ? undefined : v;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Limits of the live-update streams (`/api/events`). */
export interface StreamLimits {
  /** Open streams per client address. @default 8 */
  readonly maxStreamsPerClient: number;
  /** Open streams in total. @default 64 */
  readonly maxStreams: number;
  /** A stream is ended after this long (the browser reconnects by itself), ms. @default 300000 */
  readonly streamMaxLifetimeMs: number;
}

/** Counts open streams per client and in total; {@link StreamGate.open} refuses past the limits. */
export class StreamGate {
  readonly #perClient = new Map<string, number>();
  #total = 0;
  constructor(readonly limits: StreamLimits) {}

  /** A release function, or undefined when the client or the server is at its limit. */
  open(client: string): (() => void) | undefined {
    const mine = this.#perClient.get(client) ?? 0;
    if (mine >= this.limits.maxStreamsPerClient || this.#total >= this.limits.maxStreams) return undefined;
    this.#perClient.set(client, mine + 1);
    this.#total++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#total--;
      const n = (this.#perClient.get(client) ?? 1) - 1;
      if (n === 0) this.#perClient.delete(client);
      else this.#perClient.set(client, n);
    };
  }

  /** Streams open now. */
  get count(): number {
    return this.#total;
  }
}
