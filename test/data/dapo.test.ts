import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatasetError, dapoRowToExample, loadMathDataset, stripDapoTemplate } from 'agentrl/internal';

const WRAPPED =
  'Solve the following math problem step by step. The last line of your response should be of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\nWhat is 2+3?\n\nRemember to put your answer on its own line after "Answer:".';

describe('DAPO template stripping', () => {
  it('keeps only the problem text', () => {
    // Hazard: the DAPO "Answer: $Answer" instruction conflicts with ReTool's \boxed{} convention.
    expect(stripDapoTemplate(WRAPPED)).toBe('What is 2+3?');
  });
  it('leaves text without the template untouched (apart from trimming)', () => {
    expect(stripDapoTemplate('  Find x.  ')).toBe('Find x.');
  });
  it('maps a DAPO row to an Example, taking the first ground truth of a list', () => {
    const ex = dapoRowToExample({ prompt: [{ role: 'user', content: WRAPPED }], reward_model: { ground_truth: ['5', '6'] }, extra_info: { index: 42 } }, 0);
    expect(ex).toMatchObject({ id: '42', question: 'What is 2+3?', answer: '5' });
  });
  it('rejects rows without a question or an answer', () => {
    expect(dapoRowToExample({ prompt: [], reward_model: { ground_truth: '1' } }, 0)).toBeNull();
    expect(dapoRowToExample({ prompt: [{ content: 'q' }], reward_model: {} }, 0)).toBeNull();
  });
});

describe('loadMathDataset', () => {
  it('reads our own JSONL shape and keeps extra fields as meta', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-data-'));
    const path = join(dir, 'x.jsonl');
    await writeFile(path, '{"id":"a","question":"1+1?","answer":"2","level":3}\n\n{"id":"b","question":"2+2?","answer":4}\n');
    const xs = await loadMathDataset(path);
    expect(xs).toEqual([
      { id: 'a', question: '1+1?', answer: '2', meta: { level: 3 } },
      { id: 'b', question: '2+2?', answer: '4', meta: {} },
    ]);
  });
  it('names the file and line of malformed JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-data-'));
    const path = join(dir, 'bad.jsonl');
    await writeFile(path, '{"question":"q","answer":"1"}\n{oops\n');
    await expect(loadMathDataset(path)).rejects.toThrow(DatasetError);
    await expect(loadMathDataset(path)).rejects.toThrow(/bad\.jsonl:2/);
  });
});
