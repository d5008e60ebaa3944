import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import {
  DEFAULT_BUDGETS,
  agentEnvironment,
  runGroup,
  type AgentEnvironment,
  type AgentRunArgs,
  type Example,
  type Renderer,
  type RolloutBudgets,
  type SamplingClient,
  type Trajectory,
} from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';

const ex: Example = { id: 'q', question: 'Say hi.', answer: 'hi' };
const envs: AgentEnvironment[] = [];
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A model that answers `hi` after `delayMs` (so concurrent requests overlap), counting what it is asked to sample. */
async function slowModel(delayMs = 0) {
  const renderer = await localRenderer();
  const inner = scriptedSampler({ renderer, script: () => 'hi' });
  const asked = { samples: 0 };
  const sampler: SamplingClient = {
    ...inner,
    sample: async (p, params) => {
      asked.samples += params.numSamples ?? 1;
      await sleep(delayMs);
      params.signal?.throwIfAborted();
      return inner.sample(p, params);
    },
  };
  return { renderer, sampler, asked };
}

/** A renderer that counts every tokenising or rendering call (to show a refusal did none). */
function countingRenderer(r: Renderer) {
  const counts = { render: 0, encode: 0 };
  const wrapped: Renderer = Object.assign(Object.create(Object.getPrototypeOf(r) as object) as Renderer, r, {
    renderPrompt: (...a: Parameters<Renderer['renderPrompt']>) => (counts.render++, r.renderPrompt(...a)),
    nextPrompt: (...a: Parameters<Renderer['nextPrompt']>) => (counts.render++, r.nextPrompt(...a)),
    encode: (t: string) => (counts.encode++, r.encode(t)),
    decode: (t: readonly number[]) => r.decode(t),
    parseAssistant: (...a: Parameters<Renderer['parseAssistant']>) => r.parseAssistant(...a),
  });
  return { renderer: wrapped, counts };
}

/** POSTs JSON to the rollout's endpoint; resolves with the status and parsed body. */
async function post(a: AgentRunArgs, path: string, body: unknown): Promise<{ status: number; body: { error?: { code?: string; param?: string } } }> {
  const res = await fetch(`${a.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code?: string } } };
}
const chat = (a: AgentRunArgs, extra: Record<string, unknown> = {}) =>
  post(a, '/chat/completions', { model: a.model, messages: [{ role: 'user', content: 'hi?' }], ...extra });

async function rollout(
  budgets: Partial<RolloutBudgets>,
  run: (a: AgentRunArgs) => Promise<unknown>,
  model?: { renderer: Renderer; sampler: SamplingClient },
): Promise<Trajectory> {
  const { renderer, sampler } = model ?? (await slowModel());
  const env = agentEnvironment({ run });
  envs.push(env);
  const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, ...budgets } }, { example: ex, groupSize: 1 });
  expect(env.activeRollouts).toBe(0);
  return t!;
}

/** Hazard: one request with `n` > 1 recording more model calls than `maxTurns` allows (a trajectory longer than its budget, ending as a valid answer). */
describe('agent endpoint admission: n counts against maxTurns', () => {
  for (const [n, maxTurns] of [
    [16, 2],
    [3, 2],
    [2, 1],
    [64, 6],
  ] as const) {
    it(`refuses n = ${n} under maxTurns = ${maxTurns} before sampling, records nothing, and the rollout goes on`, async () => {
      const model = await slowModel();
      let first: Awaited<ReturnType<typeof chat>> | undefined;
      const t = await rollout(
        { maxTurns },
        async (a) => {
          first = await chat(a, { n });
          expect((await chat(a)).status).toBe(200);
          return 'hi';
        },
        model,
      );
      expect(first!.status).toBe(400);
      expect(first!.body.error).toMatchObject({ code: 'max_turns', param: 'n' });
      expect(model.asked.samples).toBe(1);
      expect(t.turns).toHaveLength(1);
      expect(t.stopReason).toBe('answer');
    });
  }

  it('n up to the calls left is served, each choice one recorded model call', async () => {
    for (const [n, maxTurns] of [
      [2, 2],
      [3, 5],
    ] as const) {
      const t = await rollout({ maxTurns }, async (a) => {
        const r = await chat(a, { n });
        expect(r.status).toBe(200);
        return 'hi';
      });
      expect(t.turns).toHaveLength(n);
      expect(t.turns.length).toBeLessThanOrEqual(maxTurns);
    }
  });
});

/** Hazard: concurrent requests on one rollout's key all passing the turn budget (checked before the sampler wait, counted after). */
describe('agent endpoint admission: concurrent requests on one key', () => {
  for (const [concurrency, maxTurns] of [
    [2, 1],
    [6, 2],
    [8, 3],
    [5, 5],
  ] as const) {
    it(`${concurrency} concurrent requests under maxTurns = ${maxTurns}: exactly ${Math.min(concurrency, maxTurns)} served and recorded`, async () => {
      const model = await slowModel(80);
      let statuses: number[] = [];
      const t = await rollout(
        { maxTurns },
        async (a) => {
          statuses = (await Promise.all(Array.from({ length: concurrency }, () => chat(a)))).map((r) => r.status);
          return 'hi';
        },
        model,
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(Math.min(concurrency, maxTurns));
      expect(statuses.filter((s) => s === 400)).toHaveLength(Math.max(0, concurrency - maxTurns));
      expect(model.asked.samples).toBe(Math.min(concurrency, maxTurns));
      expect(t.turns).toHaveLength(Math.min(concurrency, maxTurns));
    });
  }

  it('concurrent tool-calling completions cannot together hand out more tool calls than maxToolCalls', async () => {
    const renderer = await localRenderer();
    const inner = scriptedSampler({ renderer, script: () => `<tool_call>\n${JSON.stringify({ name: 'add', arguments: { a: 1, b: 2 } })}\n</tool_call>` });
    const sampler: SamplingClient = { ...inner, sample: async (p, params) => (await sleep(50), inner.sample(p, params)) };
    const tools = [{ type: 'function', function: { name: 'add', parameters: { type: 'object', properties: {} } } }];
    for (const maxToolCalls of [1, 2]) {
      let handed = 0;
      const t = await rollout(
        { maxTurns: 10, maxToolCalls },
        async (a) => {
          const rs = await Promise.all(
            Array.from({ length: 4 }, async () => {
              const res = await fetch(`${a.baseURL}/chat/completions`, {
                method: 'POST',
                headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
                body: JSON.stringify({ model: a.model, messages: [{ role: 'user', content: 'add' }], tools }),
              });
              // a request admitted after another's withheld calls ended the rollout is refused (400): it hands out nothing
              return (await res.json()) as { choices?: { message: { tool_calls?: unknown[] } }[] };
            }),
          );
          handed = rs.reduce((k, r) => k + (r.choices?.[0]?.message.tool_calls?.length ?? 0), 0);
          return 'x';
        },
        { renderer, sampler },
      );
      expect(handed).toBe(maxToolCalls);
      expect(t.toolCalls).toBe(maxToolCalls);
      expect(t.stopReason).toBe('max_tool_calls');
    }
  });
});

/** Hazard: a completion answered with an error (so the agent never received it) recorded and trained as the agent's action. */
describe('agent endpoint: a request answered 400 records nothing', () => {
  it('after sampling (top_logprobs the sampler cannot give) and before it (unsupported parameters): no turn, and the admission is freed', async () => {
    const bad: Record<string, unknown>[] = [
      { logprobs: true, top_logprobs: 3 },
      { logprobs: true, top_logprobs: 20, stream: true },
      { stop: ['x'] },
      { presence_penalty: 1 },
      { tool_choice: 'required' },
      { top_logprobs: 2 },
    ];
    const model = await slowModel();
    const results: number[] = [];
    const t = await rollout(
      { maxTurns: 1 },
      async (a) => {
        for (const extra of bad) results.push((await chat(a, extra)).status);
        results.push((await chat(a)).status); // the one model call the rollout allows is still free
        return 'hi';
      },
      model,
    );
    expect(results).toEqual([...bad.map(() => 400), 200]);
    expect(t.turns).toHaveLength(1);
    expect(t.stopReason).toBe('answer');
    expect(model.asked.samples).toBe(3); // the two top_logprobs requests were sampled, then refused
  });
});

/** Hazard: a huge message rendered and tokenised (seconds of the trainer's thread) before the token budget refuses it. */
describe('agent endpoint: a message too large for the token budget is refused without tokenising it', () => {
  for (const [bytes, maxTrajectoryTokens] of [
    [2 * 1024 * 1024, 2048],
    [300_000, 4096],
    [8 * 1024 * 1024, 8192],
    [70_000, 2048],
  ] as const) {
    it(`${bytes} bytes under maxTrajectoryTokens = ${maxTrajectoryTokens}`, async () => {
      const base = await localRenderer();
      const { renderer, counts } = countingRenderer(base);
      const { sampler } = await slowModel();
      let status = 0;
      let code: string | undefined;
      let ms = 0;
      let work = { render: -1, encode: -1 };
      const t = await rollout(
        { maxTrajectoryTokens },
        async (a) => {
          const before = { ...counts };
          const t0 = performance.now();
          const r = await post(a, '/chat/completions', { model: a.model, messages: [{ role: 'user', content: 'é'.repeat(bytes / 2) }] });
          ms = performance.now() - t0;
          status = r.status;
          code = r.body.error?.code;
          work = { render: counts.render - before.render, encode: counts.encode - before.encode };
          return 'x';
        },
        { renderer, sampler },
      );
      expect(status).toBe(400);
      expect(code).toBe('max_trajectory_tokens');
      // sending and parsing the body is all the work left (the old code spent 11 s on 2 MB, 30 s on 8 MB)
      expect(ms).toBeLessThan(1500 + (bytes / 2 ** 20) * 500);
      expect(work).toEqual({ render: 0, encode: 0 });
      expect(t.error).toBeUndefined();
      expect(t.turns).toHaveLength(0);
      expect(t.stopReason).toBe('max_trajectory_tokens');
    });
  }

  it('a message within the byte bound but over the token budget is rendered, then refused (token count)', async () => {
    // 40 KB of digits: fewer bytes than 2048 tokens × the longest token, more tokens than 2048
    const t = await rollout({ maxTrajectoryTokens: 2048 }, async (a) => {
      const r = await post(a, '/chat/completions', { model: a.model, messages: [{ role: 'user', content: '7 '.repeat(5000) }] });
      expect(r.status).toBe(400);
      expect(r.body.error?.code).toBe('max_trajectory_tokens');
      return 'x';
    });
    expect(t.turns).toHaveLength(0);
  });
});

/** Rejects when the client destroys the request after `afterMs` (the server's reply never read). */
function abandonedRequest(a: AgentRunArgs, body: unknown, afterMs: number): Promise<void> {
  const url = new URL(`${a.baseURL}/chat/completions`);
  return new Promise((resolve) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
    });
    req.on('error', () => resolve());
    req.on('response', (res) => {
      res.destroy();
      resolve();
    });
    req.end(JSON.stringify(body));
    setTimeout(() => {
      req.destroy();
      resolve();
    }, afterMs);
  });
}

/** Hazard: a completion recorded although the client disconnected before receiving it (trained as an action the agent never took). */
describe('agent endpoint: a client that disconnects before the reply records nothing', () => {
  for (const stream of [false, true]) {
    for (const afterMs of [5, 40, 120]) {
      it(`disconnect ${afterMs} ms into a 200 ms sampling (stream: ${stream})`, async () => {
        const model = await slowModel(200);
        const t = await rollout(
          { maxTurns: 1 },
          async (a) => {
            await abandonedRequest(a, { model: a.model, messages: [{ role: 'user', content: 'hi?' }], stream }, afterMs);
            await sleep(250); // the abandoned completion's sampling would have ended by now
            const r = await chat(a, { stream: false });
            expect(r.status).toBe(200); // its admission was freed
            return 'hi';
          },
          model,
        );
        expect(t.turns).toHaveLength(1);
        expect(t.stopReason).toBe('answer');
      });
    }
  }
});

/** The same request on each wire: `text` as the user message (and the wire's own path and key header). */
const WIRES = {
  chat: (a: AgentRunArgs, text: string, stream = false) => ({
    url: `${a.baseURL}/chat/completions`,
    headers: { authorization: `Bearer ${a.apiKey}` },
    body: { model: a.model, messages: [{ role: 'user', content: text }], stream },
  }),
  responses: (a: AgentRunArgs, text: string, stream = false) => ({
    url: `${a.baseURL}/responses`,
    headers: { authorization: `Bearer ${a.apiKey}` },
    body: { model: a.model, input: text, stream },
  }),
  messages: (a: AgentRunArgs, text: string, stream = false) => ({
    url: `${a.anthropicBaseURL}/v1/messages`,
    headers: { 'x-api-key': a.apiKey },
    body: { model: a.model, max_tokens: 16, messages: [{ role: 'user', content: text }], stream },
  }),
} as const;
type WireName = keyof typeof WIRES;
async function send(a: AgentRunArgs, wire: WireName, text: string, stream = false): Promise<number> {
  const r = WIRES[wire](a, text, stream);
  const res = await fetch(r.url, { method: 'POST', headers: { ...r.headers, 'content-type': 'application/json' }, body: JSON.stringify(r.body) });
  await res.arrayBuffer();
  return res.status;
}

/** Hazard: a budget the chat wire holds but another wire (responses, messages) lets through. */
describe('agent endpoint admission holds on every wire', () => {
  for (const wire of ['responses', 'messages'] as const) {
    it(`${wire}: 6 concurrent requests under maxTurns = 2 → 2 served and recorded`, async () => {
      const model = await slowModel(80);
      let statuses: number[] = [];
      const t = await rollout(
        { maxTurns: 2 },
        async (a) => ((statuses = await Promise.all(Array.from({ length: 6 }, () => send(a, wire, 'hi?')))), 'hi'),
        model,
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(2);
      expect(statuses.filter((s) => s === 400)).toHaveLength(4);
      expect(t.turns).toHaveLength(2);
    });

    it(`${wire}: a 3 MB message under maxTrajectoryTokens = 2048 is refused without tokenising it`, async () => {
      const { renderer, counts } = countingRenderer(await localRenderer());
      const { sampler } = await slowModel();
      let status = 0;
      let work = -1;
      const t = await rollout(
        { maxTrajectoryTokens: 2048 },
        async (a) => {
          const before = counts.render + counts.encode;
          status = await send(a, wire, 'z'.repeat(3_000_000));
          work = counts.render + counts.encode - before;
          return 'x';
        },
        { renderer, sampler },
      );
      expect({ status, work }).toEqual({ status: 400, work: 0 });
      expect(t.stopReason).toBe('max_trajectory_tokens');
      expect(t.turns).toHaveLength(0);
    });

    it(`${wire}: a streaming client gone during sampling records nothing`, async () => {
      const model = await slowModel(200);
      const t = await rollout(
        { maxTurns: 1 },
        async (a) => {
          const r = WIRES[wire](a, 'hi?', true);
          const ctl = new AbortController();
          const pending = fetch(r.url, {
            method: 'POST',
            headers: { ...r.headers, 'content-type': 'application/json' },
            body: JSON.stringify(r.body),
            signal: ctl.signal,
          }).catch(() => undefined);
          await sleep(60);
          ctl.abort();
          await pending;
          await sleep(250);
          expect(await send(a, wire, 'hi?')).toBe(200);
          return 'hi';
        },
        model,
      );
      expect(t.error).toBeUndefined();
      expect(t.turns).toHaveLength(1);
    });
  }
});
