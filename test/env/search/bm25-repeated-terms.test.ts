import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { bm25Retriever } from '../../../src/env/search/index.js';

const corpus = [
  { id: 'a', title: 'Paris', contents: 'Paris is the capital of France. The city of Paris has many museums.' },
  { id: 'b', title: 'Lyon', contents: 'Lyon is a city in France, on the Rhone. The food of Lyon is famous.' },
  { id: 'c', title: 'Rome', contents: 'Rome is the capital of Italy. The city has ancient ruins and the Vatican.' },
  { id: 'd', title: 'Capital', contents: 'A capital city is where a government sits; the the the the.' },
];

describe('bm25Retriever with repeated query terms', () => {
  it('scores as searching every occurrence (OR sums identical clauses) while searching each distinct term once', async () => {
    // Hazard: 3,000 copies of a common word cost 3,000 term searches per query (issue 14 item 4).
    const ref = new MiniSearch<(typeof corpus)[number]>({
      idField: 'id',
      fields: ['title', 'contents'],
      searchOptions: { boost: { title: 2 }, combineWith: 'OR', prefix: false, fuzzy: false },
    });
    ref.addAll(corpus);
    const r = bm25Retriever(corpus);
    for (const q of ['paris paris France', 'the the city THE capital', 'lyon', 'capital capital capital rome the']) {
      const [got] = await r.search([q], 10);
      const want = ref.search(q).sort((x, y) => y.score - x.score || corpus.findIndex((d) => d.id === x.id) - corpus.findIndex((d) => d.id === y.id));
      expect(got!.map((p) => p.id)).toEqual(want.map((h) => h.id));
      got!.forEach((p, i) => {
        expect(p.score).toBeCloseTo(want[i]!.score, 9);
      });
    }
  });

  it('answers 3,000 copies of a common word like one copy with the score scaled', async () => {
    const r = bm25Retriever(corpus);
    const [one] = await r.search(['the'], 3);
    const [many] = await r.search([Array.from({ length: 3000 }, () => 'the').join(' ')], 3);
    expect(many!.map((p) => p.id)).toEqual(one!.map((p) => p.id));
    expect(many![0]!.score).toBeCloseTo(one![0]!.score! * 3000, 6);
  });
});
