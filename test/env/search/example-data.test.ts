import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadMathDataset } from '../../../src/data/index.js';
import { bm25Retriever, loadCorpus } from '../../../src/env/search/index.js';
import { exactMatch } from '../../../src/reward/exact-match.js';
import type { Trajectory } from '../../../src/types/trajectory.js';

const file = (p: string) => fileURLToPath(new URL(`../../../examples/search-agent/data/${p}`, import.meta.url));

describe('search-agent example data', () => {
  it('loads as Examples with aliases in meta, and every gold answer scores 1 against itself', async () => {
    const test = await loadMathDataset(file('test.jsonl'));
    expect(test).toHaveLength(100);
    expect(new Set(test.map((e) => e.id)).size).toBe(100);
    const reward = exactMatch();
    for (const ex of test) {
      const t = { finalText: `<answer>${ex.answer}</answer>`, stopReason: 'answer' } as Trajectory;
      expect((await reward(t, ex)).correct, ex.id).toBe(true);
      for (const alias of (ex.meta?.['aliases'] as string[] | undefined) ?? []) {
        expect((await reward({ ...t, finalText: `<answer>${alias}</answer>` }, ex)).correct, `${ex.id} ${alias}`).toBe(true);
      }
    }
  });

  it('retrieves a passage holding the answer in the top 3 for > 80% of one-hop test questions', async () => {
    // Guards the data: a question whose supporting passage cannot be retrieved cannot be learned.
    const retriever = bm25Retriever(await loadCorpus(file('corpus.jsonl')));
    const test = (await loadMathDataset(file('test.jsonl'))).filter((e) => e.meta?.['hops'] === 1);
    const lists = await retriever.search(
      test.map((e) => e.question),
      3,
    );
    const hits = test.filter((e, i) => lists[i]!.some((p) => p.text.includes(e.answer) || p.title === e.answer));
    expect(hits.length / test.length).toBeGreaterThan(0.8);
  });
});
