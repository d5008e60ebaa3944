import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a hostile server does with one request (it may never end the response). */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** A raw loopback HTTP server whose behaviour tests swap; it records every request and ends its sockets on close. */
export interface HostileServer {
  readonly url: string;
  behaviour: Behaviour;
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

export async function hostileServer(): Promise<HostileServer> {
  const timers = new Set<NodeJS.Timeout>();
  const h: { behaviour: Behaviour } = { behaviour: (_q, s) => s.end('{}') };
  const requests: HostileServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
      h.behaviour(req, res, body);
    });
  });
  (server as Server & { timers?: Set<NodeJS.Timeout> }).timers = timers;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get behaviour() {
      return h.behaviour;
    },
    set behaviour(b: Behaviour) {
      h.behaviour = b;
    },
    requests,
    async close() {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Headers, then one byte of a never-ending body every `everyMs` (the connection stays busy, never idle). */
export function drip(everyMs: number, contentType = 'application/json'): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write('{');
    const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), everyMs);
    res.on('close', () => clearInterval(t));
  };
}

/** A 200 that streams `chunkBytes`-sized chunks without end (chunked; no Content-Length), or with a lying one. */
export function flood(chunkBytes: number, announce?: number): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...(announce !== undefined ? { 'content-length': String(announce) } : {}) });
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    res.write('[');
    pump();
  };
}

/** Headers never come: the request is held open until the client gives up. */
export const silent: Behaviour = () => undefined;

/** A redirect to `location` with `status`. */
export function redirect(status: number, location: string): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { location, 'content-type': 'application/json' });
    res.end('{}');
  };
}
