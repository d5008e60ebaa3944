import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadCorpus, parseCorpus, splitTitledContents } from '../../../src/env/search/index.js';
import { DatasetError } from '../../../src/errors/index.js';

const CORPUS = fileURLToPath(new URL('../../../examples/search-agent/data/corpus.jsonl', import.meta.url));

describe('corpus loading', () => {
  it('reads {id, title, contents} rows and splits Search-R1 "Title"\\ntext contents', () => {
    // Hazard: Search-R1 corpora carry the title inside contents; losing it breaks "Doc i (Title: …)".
    const docs = parseCorpus(['{"id":"a","title":"T","contents":"body"}', '', '{"id":7,"contents":"\\"Paris\\"\\nCapital of France."}'].join('\n'));
    expect(docs).toEqual([
      { id: 'a', title: 'T', contents: 'body' },
      { id: '7', title: 'Paris', contents: 'Capital of France.' },
    ]);
    expect(splitTitledContents('no title line')).toEqual({ title: '', text: 'no title line' });
  });

  it('names the line of a malformed or duplicate row', () => {
    expect(() => parseCorpus('{"id":"a","contents":"x"}\n{oops', 'c.jsonl')).toThrow(/c\.jsonl:2: invalid JSON/);
    expect(() => parseCorpus('{"id":"a"}', 'c.jsonl')).toThrow(DatasetError);
    expect(() => parseCorpus('{"id":"a","contents":"x"}\n{"id":"a","contents":"y"}')).toThrow(/duplicate id/);
  });

  it('loads the shipped example corpus', async () => {
    const docs = await loadCorpus(CORPUS);
    expect(docs.length).toBeGreaterThan(200);
    expect(docs.find((d) => d.title === 'Finland')?.contents).toMatch(/capital city is Helsinki/);
    await expect(loadCorpus('/nonexistent/corpus.jsonl')).rejects.toBeInstanceOf(DatasetError);
  });
});
