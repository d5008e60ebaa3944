import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

/** One HTTP request on its own connection (no keep-alive pool). Rejects on a transport error. */
export function send(
  url: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string; signal?: AbortSignal } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const u = new URL(opts.path ?? '/', url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: Number(u.port),
        path: u.pathname + u.search,
        method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
        headers: { connection: 'close', ...opts.headers },
        agent: false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** POSTs JSON. */
export const postJson = (url: string, path: string, body: unknown, headers: Record<string, string> = {}, localAddress?: string) =>
  send(url, { path, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers }, ...(localAddress ? { localAddress } : {}) });

/** A raw TCP connection to `url`'s host and port. */
export function rawConnect(url: string, localAddress?: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(u.port), host: u.hostname, ...(localAddress ? { localAddress } : {}) }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when `socket` closes (whoever closed it), with what it received. */
export function closed(socket: Socket): Promise<string> {
  let got = '';
  socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
  socket.on('error', () => {});
  return new Promise((resolve) => (socket.destroyed ? resolve(got) : socket.once('close', () => resolve(got))));
}

/** A promise with its resolve function. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls `cond` every 10 ms until true or `ms` elapsed; returns its last value. */
export async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
