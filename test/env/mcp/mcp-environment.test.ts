import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_BUDGETS, McpServerError, mcpEnvironment, runGroup, type Example, type McpEnvironment } from 'agentrl';
import { localRenderer } from '../../helpers/local-renderer.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, MEMORY_SERVER, NODE, TEST_SERVER, alive, call, planSampler } from './helpers.js';

const ex: Example = { id: 'q', question: 'Use the tools.', answer: '' };
const open = (m: Parameters<typeof mcpEnvironment>[0]) => mcpEnvironment(m);
const envs: McpEnvironment[] = [];
const track = async (p: Promise<McpEnvironment>) => {
  const e = await p;
  envs.push(e);
  return e;
};
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});
const testServer = { command: NODE, args: [TEST_SERVER] };
const initialMessages = (e: Example) => [{ role: 'user' as const, content: e.question }];

/** Hazard: an MCP server's tools that the model never sees correctly, state leaking between trajectories, a slow or dying server crashing the run, or server processes outliving their trajectory. */
describe('mcpEnvironment (stdio, real SDK servers)', () => {
  it('offers the server tools with their JSON schemas', async () => {
    const env = await track(open({ server: testServer, initialMessages, tools: ['sleep', 'increment'] }));
    expect(env.tools.map((t) => t.function.name)).toEqual(['sleep', 'increment']);
    expect(env.tools[0]!.function.parameters).toMatchObject({ type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] });
    expect(env.tools[0]!.function.description).toBe('Waits ms milliseconds.');
  });

  it('starts one server process per trajectory and kills it when the trajectory ends', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages }));
    // each branch: pid, increment, increment, answer with everything it saw
    const sampler = planSampler(renderer, (seen) => (seen.length === 0 ? call('pid') : seen.length < 3 ? call('increment') : `done ${seen.join(',')}`));
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'answer', 'answer']);
    const seen = group.map((t) => t.finalText.replace('done ', '').split(','));
    expect(seen.map((s) => s.slice(1))).toEqual([
      ['1', '2'],
      ['1', '2'],
      ['1', '2'],
    ]); // no counter shared between trajectories
    const pids = seen.map((s) => Number(s[0]));
    expect(new Set(pids).size).toBe(3);
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  });

  it("shares one connection with connection: 'shared' and runs reset before each trajectory", async () => {
    const renderer = await localRenderer();
    const resets: string[] = [];
    const env = await track(
      open({
        server: testServer,
        initialMessages,
        connection: 'shared',
        reset: async (server, ctx) => {
          resets.push(ctx.trajectoryId);
          await server.callTool('increment', {}); // the hook may call tools itself
        },
      }),
    );
    const sampler = planSampler(renderer, (seen) => (seen.length === 0 ? call('pid') : 'ok'));
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
    expect(new Set(group.map((t) => t.messages.find((m) => m.role === 'tool')!.content)).size).toBe(1);
    expect(resets.sort()).toEqual(['q/0', 'q/1', 'q/2']);
  });

  it('answers a refused call, a tool error and structured content as observations', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages }));
    const calls = [call('fail'), call('stats', { xs: [1, 2, 3.5] }), call('sleep', { ms: 'soon' }), call('no_such_tool')];
    const sampler = planSampler(renderer, (seen, sample) => (seen.length === 0 ? calls[sample]! : 'ok'));
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 4 });
    const obs = group.map((t) => t.messages.find((m) => m.role === 'tool')?.content ?? `(${t.stopReason} ${t.turns[0]?.action.kind})`);
    expect(obs[0]).toBe('Error: no such record');
    expect(JSON.parse(obs[1]!)).toEqual({ sum: 6.5, n: 3 });
    // the chat parser already refuses arguments that break the schema; the server's own refusal is the fallback
    expect(obs[2]).toMatch(/invalid|bad_arguments|Error/i);
    expect(group[3]!.turns[0]!.action.kind).not.toBe('tool'); // unknown tool: a malformed call, the server never sees it
    expect(group.slice(0, 2).map((t) => t.stopReason)).toEqual(['answer', 'answer']);
  });

  it('answers a call past callTimeoutMs with a timeout observation and goes on', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages, callTimeoutMs: 300 }));
    // the first call starts the process; the second one would sleep 30 s
    const sampler = planSampler(renderer, (seen) =>
      seen.length === 0
        ? call('increment')
        : seen.length === 1
          ? call('sleep', { ms: 30_000 })
          : seen.length === 2
            ? call('increment')
            : `done ${seen.join('|')}`,
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('answer');
    expect(t!.finalText).toBe('done 1|Error: tool sleep timed out after 300 ms|2');
    expect(t!.turns[1]!.toolMs).toBeLessThan(15_000); // cancelled, not waited for
  });

  it('ends a trajectory whose server dies as an error with the server stderr; the other branches go on', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages }));
    const sampler = planSampler(renderer, (seen, sample) => (seen.length === 0 ? (sample === 0 ? call('crash') : call('increment')) : 'ok'));
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
    expect(group[0]!.stopReason).toBe('error');
    expect(group[0]!.error).toMatchObject({ stage: 'env_step', code: 'MCP_SERVER' });
    expect(group[0]!.error!.message).toMatch(/fatal: crash tool called/);
    expect(group[1]!.stopReason).toBe('answer');
  });

  it('bounds a 300 KB result to the tool-response budget (tail kept) and records its size', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages }));
    const sampler = planSampler(renderer, (seen) => (seen.length === 0 ? call('big', { n: 300_000 }) : 'ok'));
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 64 } }, { example: ex, groupSize: 1 });
    const obs = t!.messages.find((m) => m.role === 'tool')!.content;
    expect(renderer.encode(obs).length).toBeLessThanOrEqual(64);
    expect(obs.endsWith('TAIL')).toBe(true);
    expect(t!.turns[0]!.observationBytes).toBeGreaterThanOrEqual(300_000);
  });

  it("never passes the trainer's environment variables to the server unless listed", async () => {
    process.env.AGENTRL_TEST_SECRET = 'hunter2';
    try {
      const renderer = await localRenderer();
      const sampler = planSampler(renderer, (seen, sample) =>
        seen.length === 0 ? call('env', { name: sample === 0 ? 'AGENTRL_TEST_SECRET' : 'GIVEN' }) : 'ok',
      );
      const env = await track(open({ server: { ...testServer, env: { GIVEN: 'yes' } }, initialMessages }));
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
      expect(group.map((t) => t.messages.find((m) => m.role === 'tool')!.content)).toEqual(['(unset)', 'yes']);
    } finally {
      delete process.env.AGENTRL_TEST_SECRET;
    }
  });

  it('kills the server of an aborted trajectory at once', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: testServer, initialMessages }));
    let pid = 0;
    const ac = new AbortController();
    let abortedAt = 0;
    const sampler = planSampler(renderer, (seen) => {
      if (seen.length === 1 && pid === 0) {
        pid = Number(seen[0]);
        // abort while the next call (a 60 s sleep) is running on the server
        setTimeout(() => ((abortedAt = Date.now()), ac.abort(new Error('stop'))), 300);
      }
      return seen.length === 0 ? call('pid') : call('sleep', { ms: 60_000 });
    });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS, signal: ac.signal }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(10_000);
    expect(pid).toBeGreaterThan(0);
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it('rejects bad options and a server that cannot start, with typed errors', async () => {
    await expect(open({ server: { command: '' }, initialMessages, callTimeoutMs: -1 })).rejects.toThrow(ConfigError);
    await expect(open({ server: { url: 'ftp://x' }, initialMessages })).rejects.toThrow(/server.url/);
    await expect(open({ server: testServer, initialMessages, tools: ['increment', 'nope'] })).rejects.toThrow(/no tool 'nope'/);
    const err = await open({
      server: { command: NODE, args: ['-e', 'process.stderr.write("boom at start"); process.exit(1)'] },
      initialMessages,
      connectTimeoutMs: 5000,
    }).catch((e) => e);
    expect(McpServerError.isInstance(err)).toBe(true);
    expect(String(err.message)).toMatch(/did not start/);
    const missing = await open({ server: { command: '/nonexistent/mcp-server' }, initialMessages }).catch((e) => e);
    expect(McpServerError.isInstance(missing)).toBe(true);
  });
});

describe('mcpEnvironment against the reference servers from npm', () => {
  it('server-memory: stores entities and finds them again within a trajectory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-mcp-mem-'));
    try {
      const renderer = await localRenderer();
      const env = await track(
        open({ server: { command: NODE, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } }, initialMessages }),
      );
      expect(env.tools.map((t) => t.function.name)).toContain('search_nodes');
      const sampler = planSampler(renderer, (seen) =>
        seen.length === 0
          ? call('create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['born in 1815'] }] })
          : seen.length === 1
            ? call('search_nodes', { query: 'Ada' })
            : 'ok',
      );
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
      const obs = t!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      expect(obs[1]).toContain('born in 1815');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('server-filesystem: writes and reads a file in a temp folder, refuses paths outside it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-mcp-fs-'));
    try {
      const renderer = await localRenderer();
      const env = await track(open({ server: { command: NODE, args: [FILESYSTEM_SERVER, dir] }, initialMessages, tools: ['write_file', 'read_text_file'] }));
      const path = join(dir, 'note.txt');
      const sampler = planSampler(renderer, (seen) =>
        seen.length === 0
          ? call('write_file', { path, content: 'forty-two' })
          : seen.length === 1
            ? call('read_text_file', { path })
            : seen.length === 2
              ? call('read_text_file', { path: '/etc/passwd' })
              : 'ok',
      );
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
      const obs = t!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      expect(await readFile(path, 'utf8')).toBe('forty-two');
      expect(obs[1]).toBe('forty-two');
      expect(obs[2]).toMatch(/^Error: .*(denied|outside|allowed)/is);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('server-everything: text, sums, structured content and images', async () => {
    const renderer = await localRenderer();
    const env = await track(open({ server: { command: NODE, args: [EVERYTHING_SERVER] }, initialMessages }));
    const calls = [
      call('echo', { message: 'hi there' }),
      call('get-sum', { a: 2, b: 40 }),
      call('get-tiny-image'),
      call('get-structured-content', { location: 'New York' }),
    ];
    const sampler = planSampler(renderer, (seen, sample) => (seen.length === 0 ? calls[sample]! : 'ok'));
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 4 });
    const obs = group.map((t) => t.messages.find((m) => m.role === 'tool')?.content ?? `(${t.stopReason}: ${t.error?.message ?? t.turns[0]?.action.kind})`);
    expect(obs[0]).toContain('hi there');
    expect(obs[1]).toContain('42');
    expect(obs[2]).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(obs[3]).toMatch(/temperature/i);
  });
});
