import { beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runGroup, DEFAULT_BUDGETS } from '../../../src/rollout/index.js';
import { scriptedSampler, type Script } from '../../../src/testing/index.js';
import { bm25Retriever, createRetrievalServer, httpRetriever, loadCorpus, search, type Retriever } from '../../../src/env/search/index.js';
import { exactMatch } from '../../../src/reward/exact-match.js';
import { localRenderer } from '../../helpers/local-renderer.js';

const CORPUS = fileURLToPath(new URL('../../../examples/search-agent/data/corpus.jsonl', import.meta.url));
const call = (query: unknown) => `<tool_call>\n${JSON.stringify({ name: 'search', arguments: { query } })}\n</tool_call>`;
const example = { id: 'fi', question: 'What is the capital of Finland?', answer: 'Helsinki', meta: { aliases: ['Helsingfors'] } };

/** Branch behaviours keyed by the sample index of the forking call; later turns keyed by what the prompt shows. */
const script: Script = ({ prompt, call: n, sample }) => {
  if (n === 0) return [call('capital of Finland'), '<answer>Oslo</answer>', '<tool_call>\n{"name": "search", "arguments": {', call('loop Peru')][sample] ?? '';
  if (prompt.includes('loop Peru')) return call('loop Peru');
  if (prompt.includes('Doc 1 (Title: Finland)')) return 'Found it. <answer>Helsinki</answer>';
  return 'unexpected';
};

describe('search environment through the rollout engine', () => {
  let retriever: Retriever;
  beforeAll(async () => {
    retriever = bm25Retriever(await loadCorpus(CORPUS));
  });

  it('runs a group: success, wrong answer, malformed call, env budget exhaustion; rewards by exact match', async () => {
    const renderer = await localRenderer();
    const env = search({ retriever, topK: 2, maxCalls: 2 });
    const sampler = scriptedSampler({ renderer, script });
    const group = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 2048, maxTrajectoryTokens: 16_384 } },
      { example, groupSize: 4 },
    );

    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'answer', 'invalid', 'env_done']);
    const obs = group[0]!.turns[0]!.observation?.[0];
    expect(obs).toMatchObject({ role: 'tool', name: 'search' });
    expect(obs?.content).toMatch(/^Doc 1 \(Title: Finland\)/);
    expect(group[0]!.turns[0]!.exec?.status).toBe('ok');
    // The looping branch ran exactly maxCalls searches before the env ended it.
    expect(group[3]!.turns.filter((t) => t.observation).length).toBe(2);
    expect(group[3]!.turns[1]!.observation?.[0]?.content).toMatch(/last search/);

    const reward = exactMatch();
    const rewards = await Promise.all(group.map((t) => reward(t, example)));
    expect(rewards.map((r) => r.reward)).toEqual([1, 0, 0, 0]);
    expect(rewards[2]).toMatchObject({ failure: 'invalid_format' });
    // Hazard: observation tokens must extend the prompt exactly (token-in, token-out).
    const t = group[0]!;
    const prefix = [...t.turns[0]!.promptTokens, ...t.turns[0]!.completionTokens];
    expect(t.turns[1]!.promptTokens.slice(0, prefix.length)).toEqual(prefix);
  });

  it('works the same over the Search-R1 HTTP protocol on loopback', async () => {
    const renderer = await localRenderer();
    const server = createRetrievalServer(retriever);
    const url = await server.listen();
    try {
      const env = search({ retriever: httpRetriever({ url }), topK: 2 });
      const sampler = scriptedSampler({ renderer, script });
      const [t] = await runGroup(
        { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 2048, maxTrajectoryTokens: 16_384 } },
        { example, groupSize: 1 },
      );
      expect(t!.stopReason).toBe('answer');
      expect(t!.turns[0]!.observation?.[0]?.content).toMatch(/^Doc 1 \(Title: Finland\)/);
      expect((await exactMatch()(t!, example)).correct).toBe(true);
    } finally {
      await server.close();
    }
  });
});
