import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGETS, mcpEnvironment, runGroup, type Example } from 'agentrl';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call, planSampler } from './helpers.js';

/** A Streamable HTTP MCP server (official SDK) on loopback: one McpServer per session, so a counter is per session; needs a bearer token. */
let http: Server;
let url: string;
const sessions = new Map<string, StreamableHTTPServerTransport>();
let closedSessions = 0;

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

beforeAll(async () => {
  http = createServer(async (req, res) => {
    if (req.headers.authorization !== 'Bearer t0ken') return void res.writeHead(401).end();
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let transport = sid ? sessions.get(sid) : undefined;
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport!),
      });
      transport.onclose = () => {
        closedSessions++;
        if (transport!.sessionId) sessions.delete(transport!.sessionId);
      };
      const server = new McpServer({ name: 'http-test', version: '1.0.0' });
      let count = 0;
      server.registerTool('increment', { description: 'Adds one to this session\u2019s counter.', inputSchema: {} }, async () => ({
        content: [{ type: 'text', text: String(++count) }],
      }));
      await server.connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
});

const ex: Example = { id: 'h', question: 'count', answer: '' };

/** Hazard: an HTTP MCP server whose sessions leak state between trajectories, or whose auth headers are dropped. */
describe('mcpEnvironment over Streamable HTTP', () => {
  it('opens one MCP session per trajectory (with the given headers) and ends it with the trajectory', async () => {
    const renderer = await localRenderer();
    const env = await mcpEnvironment({
      server: { url, headers: { authorization: 'Bearer t0ken' } },
      initialMessages: (e) => [{ role: 'user', content: e.question }],
    });
    try {
      expect(env.tools.map((t) => t.function.name)).toEqual(['increment']);
      const sampler = planSampler(renderer, (seen) => (seen.length < 2 ? call('increment') : `saw ${seen.join(',')}`));
      const before = closedSessions;
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
      expect(group.map((t) => t.finalText)).toEqual(['saw 1,2', 'saw 1,2', 'saw 1,2']);
      expect(closedSessions - before).toBe(3); // each trajectory's session was terminated when it ended
    } finally {
      await env.close();
    }
  });

  it("shares one session with connection: 'shared'", async () => {
    const renderer = await localRenderer();
    const env = await mcpEnvironment({
      server: { url, headers: { authorization: 'Bearer t0ken' } },
      connection: 'shared',
      initialMessages: (e) => [{ role: 'user', content: e.question }],
    });
    try {
      const sampler = planSampler(renderer, (seen) => (seen.length < 1 ? call('increment') : `saw ${seen.join(',')}`));
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
      expect(group.map((t) => t.finalText).sort()).toEqual(['saw 1', 'saw 2', 'saw 3']);
    } finally {
      await env.close();
    }
  });

  it('fails to open with a typed error when the server refuses the key', async () => {
    await expect(mcpEnvironment({ server: { url }, initialMessages: () => [] })).rejects.toMatchObject({ code: 'MCP_SERVER' });
  });
});
