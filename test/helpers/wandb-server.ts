import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the SDK sent: method, path, headers and the parsed JSON body. */
export interface WandbRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: {
    query?: string;
    variables?: Record<string, unknown>;
    files?: Record<string, { offset: number; content: string[] }>;
    complete?: boolean;
    exitcode?: number;
  };
}

/**
 * A loopback stand-in for the two W&B endpoints `@wandb/sdk` 0.5.1 calls (read from its source): `POST /graphql`
 * (the `Viewer` query for the default entity, the `UpsertBucket` mutation that creates the run) and
 * `POST /files/<entity>/<project>/<run>/file_stream` (history rows, the summary, then `{complete, exitcode}`).
 * It answers just enough for the SDK to go on and records everything, so a test checks what the real SDK sent.
 * `status` makes every answer an HTTP error; `upsertStatus` / `fileStreamStatus` only those of the run's creation / its stream.
 */
export async function wandbServer(opts: { entity?: string; status?: number; upsertStatus?: number; fileStreamStatus?: number } = {}) {
  const requests: WandbRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as WandbRequest['body']) : {};
      const path = req.url ?? '';
      requests.push({ path, headers: req.headers, body });
      const fail = path.includes('/file_stream')
        ? (opts.fileStreamStatus ?? opts.status)
        : body.query?.includes('mutation UpsertBucket')
          ? (opts.upsertStatus ?? opts.status)
          : opts.status;
      res.setHeader('content-type', 'application/json');
      if (fail) {
        res.statusCode = fail;
        res.end(JSON.stringify({ errors: [{ message: `status ${fail}` }] }));
        return;
      }
      if (path === '/graphql' && body.query?.includes('query Viewer')) {
        res.end(JSON.stringify({ data: { viewer: { id: 'u1', entity: opts.entity ?? 'test-team', flags: null, teams: { edges: [] } } } }));
      } else if (path === '/graphql' && body.query?.includes('mutation UpsertBucket')) {
        const v = body.variables ?? {};
        res.end(
          JSON.stringify({
            data: {
              upsertBucket: {
                bucket: {
                  id: 'b1',
                  name: v['name'],
                  displayName: v['displayName'] ?? 'generated-name',
                  description: null,
                  config: v['config'],
                  sweepName: null,
                  project: { id: 'p1', name: v['project'], entity: { id: 'e1', name: v['entity'] } },
                },
                inserted: true,
              },
            },
          }),
        );
      } else if (path.endsWith('/file_stream')) {
        res.end('{}');
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The history rows the SDK streamed, in offset order, parsed. */
    history(): Record<string, unknown>[] {
      const rows = new Map<number, Record<string, unknown>>();
      for (const r of requests) {
        const h = r.body.files?.['wandb-history.jsonl'];
        h?.content.forEach((line, i) => {
          rows.set(h.offset + i, JSON.parse(line) as Record<string, unknown>);
        });
      }
      return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
