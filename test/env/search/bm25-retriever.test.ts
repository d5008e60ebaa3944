import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { bm25Retriever, loadCorpus } from '../../../src/env/search/index.js';

const CORPUS = fileURLToPath(new URL('../../../examples/search-agent/data/corpus.jsonl', import.meta.url));

describe('bm25Retriever', () => {
  it('ranks the passage that names the entity first, batched per query', async () => {
    const r = bm25Retriever(await loadCorpus(CORPUS));
    const [finland, dish] = await r.search(['capital of Finland', 'national dish Kabuli Palaw'], 3);
    expect(finland?.[0]?.title).toBe('Finland');
    expect(dish?.[0]?.title).toBe('Afghanistan');
    expect(finland).toHaveLength(3);
    expect(finland![0]!.score!).toBeGreaterThanOrEqual(finland![1]!.score!);
  });

  it('returns [] for a query that matches nothing and honours topK', async () => {
    const r = bm25Retriever([
      { id: '1', title: 'Alpha', contents: 'red apples' },
      { id: '2', title: 'Beta', contents: 'green apples' },
    ]);
    expect(await r.search(['zzzz'], 3)).toEqual([[]]);
    const [hits] = await r.search(['apples'], 1);
    expect(hits).toHaveLength(1);
    // Ties break by corpus order, so results are deterministic.
    expect(hits?.[0]?.id).toBe('1');
  });
});
