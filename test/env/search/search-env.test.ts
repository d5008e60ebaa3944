import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import {
  bm25Retriever,
  createRetrievalServer,
  httpRetriever,
  loadCorpus,
  search,
  SEARCH_TOOL,
  type Retriever,
  type RetrievalServer,
} from '../../../src/env/search/index.js';
import { ConfigError, RetrieverError } from '../../../src/errors/index.js';
import type { StepOutcome } from '../../../src/env/types.js';
import { countTokens, makeCtx, toolCall } from './make-ctx.js';

const CORPUS = fileURLToPath(new URL('../../../examples/search-agent/data/corpus.jsonl', import.meta.url));

function observation(o: StepOutcome): string {
  if (o.done) throw new Error('expected an observation, got done');
  return o.observation.map((m) => m.content).join('\n');
}

describe('search environment', () => {
  let retriever: Retriever;
  beforeAll(async () => {
    retriever = bm25Retriever(await loadCorpus(CORPUS));
  });

  it('offers one search tool and opens with a system prompt and the question', () => {
    const env = search({ retriever });
    expect(env.tools).toEqual([SEARCH_TOOL]);
    const msgs = env.initialMessages({ id: 'q', question: 'What is the capital of Peru?', answer: 'Lima' });
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1]?.content).toBe('Question: What is the capital of Peru?');
    expect(msgs[0]?.content).toMatch(/<answer>/);
  });

  it('returns the top-k passages as "Doc i (Title: …) text" in a tool message (real minisearch index)', async () => {
    const env = search({ retriever, topK: 2 });
    const out = await env.step(toolCall('search', { query: 'capital of Finland' }, 'call-1'), makeCtx());
    expect(out.done).toBe(false);
    if (out.done) return;
    expect(out.observation).toHaveLength(1);
    expect(out.observation[0]).toMatchObject({ role: 'tool', name: 'search', toolCallId: 'call-1' });
    const text = observation(out);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toMatch(/^Doc 1 \(Title: Finland\) Finland is a country .*Helsinki/);
    expect(text).toMatch(/\nDoc 2 \(Title: /);
    expect(out.exec).toMatchObject({ status: 'ok', truncated: false });
  });

  it('keeps whole top passages within the tool-response token budget', async () => {
    // Hazard: an observation over budget would blow the trajectory token budget or be cut mid-token by the engine.
    const env = search({ retriever, topK: 3 });
    const out = await env.step(toolCall('search', { query: 'capital of Finland' }), makeCtx({ maxToolResponseTokens: 160 }));
    const text = observation(out);
    expect(countTokens(text)).toBeLessThanOrEqual(160);
    expect(text).toMatch(/^Doc 1 \(Title: Finland\)/);
    expect(text).toMatch(/more passages cut/);
    expect(out.done === false && out.exec?.truncated).toBe(true);
    const tiny = observation(await env.step(toolCall('search', { query: 'capital of Finland' }), makeCtx({ maxToolResponseTokens: 20 })));
    expect(countTokens(tiny)).toBeLessThanOrEqual(20);
    expect(tiny).toMatch(/^Doc 1 \(Title: Finland\)/);
  });

  it('says so when nothing matches', async () => {
    const env = search({ retriever });
    expect(observation(await env.step(toolCall('search', { query: 'qwxzv' }), makeCtx()))).toBe('No results found.');
  });

  it('turns malformed calls into error observations, not throws', async () => {
    const env = search({ retriever });
    const unknown = await env.step(toolCall('lookup', { query: 'x' }), makeCtx());
    expect(observation(unknown)).toMatch(/^Error: unknown tool "lookup"/);
    expect(unknown.done === false && unknown.exec?.status).toBe('error');
    expect(observation(await env.step(toolCall('search', {}), makeCtx()))).toMatch(/^Error: search expects \{"query"/);
    expect(observation(await env.step(toolCall('search', { query: '   ' }), makeCtx()))).toMatch(/^Error: search expects/);
    expect(observation(await env.step(toolCall('search', { query: 42 }), makeCtx()))).toMatch(/^Error: search expects/);
  });

  it('ends the episode on answers and invalid turns', async () => {
    const env = search({ retriever });
    expect(await env.step({ kind: 'answer', content: '<answer>Lima</answer>', raw: '' }, makeCtx())).toEqual({ done: true, reason: 'answer' });
    expect(await env.step({ kind: 'invalid', reason: 'bad_tool_json', content: '', raw: '' }, makeCtx())).toEqual({ done: true, reason: 'invalid' });
  });

  it('enforces maxCalls: warns on the last allowed call, ends the episode on the next', async () => {
    const env = search({ retriever, maxCalls: 2 });
    const first = observation(await env.step(toolCall('search', { query: 'Peru' }), makeCtx({ toolCalls: 0 })));
    expect(first).not.toMatch(/last search/);
    const last = observation(await env.step(toolCall('search', { query: 'Peru' }), makeCtx({ toolCalls: 1 })));
    expect(last).toMatch(/That was your last search/);
    expect(await env.step(toolCall('search', { query: 'Peru' }), makeCtx({ toolCalls: 2 }))).toEqual({ done: true, reason: 'env_done' });
  });

  it('reports a failing retriever as an observation with a sandbox_error exec', async () => {
    const failing: Retriever = { search: () => Promise.reject(new RetrieverError('down', 503)) };
    const out = await search({ retriever: failing }).step(toolCall('search', { query: 'x' }), makeCtx());
    expect(observation(out)).toMatch(/^Error: the search service failed \(down\)/);
    expect(out.done === false && out.exec?.status).toBe('sandbox_error');
  });

  it('rethrows when the rollout is aborted', async () => {
    const ac = new AbortController();
    const hanging: Retriever = {
      search: (_q, _k, signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    };
    const p = search({ retriever: hanging }).step(toolCall('search', { query: 'x' }), makeCtx({ signal: ac.signal }));
    ac.abort(new Error('cancelled'));
    await expect(p).rejects.toThrow('cancelled');
  });

  it('rejects bad options with every issue listed', () => {
    const err = (() => {
      try {
        search({ retriever, topK: 0, maxCalls: 1.5 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(['topK', 'maxCalls']);
  });

  describe('over a real HTTP retriever on loopback', () => {
    let srv: RetrievalServer;
    let url: string;
    beforeAll(async () => {
      srv = createRetrievalServer(retriever);
      url = await srv.listen();
    });
    afterAll(() => srv.close());

    it('gives the same observation as the embedded index', async () => {
      const local = observation(await search({ retriever }).step(toolCall('search', { query: 'national dish Kabuli Palaw' }), makeCtx()));
      const remote = observation(
        await search({ retriever: httpRetriever({ url }) }).step(toolCall('search', { query: 'national dish Kabuli Palaw' }), makeCtx()),
      );
      expect(remote).toBe(local);
      expect(remote).toMatch(/^Doc 1 \(Title: Afghanistan\)/);
    });

    it('turns a dead server into an error observation', async () => {
      const out = await search({ retriever: httpRetriever({ url: 'http://127.0.0.1:9', retries: 0, timeoutMs: 2_000 }) }).step(
        toolCall('search', { query: 'x' }),
        makeCtx(),
      );
      expect(observation(out)).toMatch(/^Error: the search service failed/);
    });
  });
});
