import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DatasetError, Trainer, codeInterpreter, loadDataset, loadMathDataset, type Reward } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

async function file(lines: unknown[]): Promise<string> {
  const p = join(await mkdtemp(join(tmpdir(), 'agentrl-ds-')), 'rows.jsonl');
  await writeFile(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return p;
}

describe('loadDataset', () => {
  it('loads { id, question, answer } rows, other fields to meta', async () => {
    const p = await file([
      { id: 'a', question: 'q?', answer: '1', level: 2 },
      { id: 'b', question: 'r?', answer: '2' },
    ]);
    expect(await loadDataset(p)).toEqual([
      { id: 'a', question: 'q?', answer: '1', meta: { level: 2 } },
      { id: 'b', question: 'r?', answer: '2' },
    ]);
  });

  it('lists every row missing id or answer and every duplicate id, with 1-based row numbers', async () => {
    const p = await file([
      { id: 'a', question: 'q', answer: '1' },
      { question: 'q', answer: '2' },
      { id: 'c', question: 'q' },
      { id: 'a', question: 'q', answer: '3' },
    ]);
    const e = await loadDataset(p).catch((x: unknown) => x);
    expect(DatasetError.isInstance(e)).toBe(true);
    const m = (e as Error).message;
    expect(m).toMatch(/^3 problems in /);
    expect(m).toContain("row 2: missing 'id'");
    expect(m).toContain("row 3 (id 'c'): missing 'answer'");
    expect(m).toContain("row 4: duplicate id 'a' (first used by row 1)");
  });

  it('map turns rows of another shape into Examples (row numbers from 1)', async () => {
    const p = await file([
      { q: 'x?', a: 1 },
      { q: 'y?', a: 2 },
    ]);
    const ds = await loadDataset(p, { map: (r, n) => ({ id: `row-${n}`, question: String(r['q']), answer: String(r['a']) }) });
    expect(ds.map((e) => e.id)).toEqual(['row-1', 'row-2']);
  });
});

describe('loadMathDataset', () => {
  it('rejects duplicate ids and names rows from 1', async () => {
    const dup = await file([
      { id: 'a', question: 'q', answer: '1' },
      { id: 'a', question: 'q', answer: '2' },
    ]);
    await expect(loadMathDataset(dup)).rejects.toThrow("row 2: duplicate id 'a' (first used by row 1)");
    const bad = await file([{ id: 'a', question: 'q', answer: '1' }, { nothing: true }]);
    await expect(loadMathDataset(bad)).rejects.toThrow(/row 2 has neither/);
  });
});

describe('Trainer dataset rows', () => {
  it('rows missing answer or id and duplicate ids are a ConfigError naming 1-based rows', async () => {
    const renderer = await localRenderer();
    const reward: Reward = () => ({ reward: 1, correct: true, validFormat: true });
    let e: unknown;
    try {
      new Trainer({
        backend: mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '1' }) }),
        env: codeInterpreter({ sandbox: fakeSandbox() }),
        reward,
        loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
        dataset: [
          { id: 'a', question: 'q', answer: '1' },
          { id: 'b', question: 'q' } as never,
          { question: 'q', answer: '1' } as never,
          { id: 'a', question: 'q', answer: '2' },
        ],
        groupSize: 0, // another problem: the rows are still reported in the same pass
      });
    } catch (x) {
      e = x;
    }
    expect(ConfigError.isInstance(e)).toBe(true);
    const msgs = (e as ConfigError).issues.filter((i) => i.path === 'dataset').map((i) => i.message);
    expect(msgs).toEqual(["row 2 (id 'b'): missing 'answer'", "row 3: missing 'id'", "row 4: duplicate id 'a' (first used by row 1)"]);
    expect((e as ConfigError).issues.map((i) => i.path)).toContain('groupSize');
  });
});

describe('loadMathDataset dedupe', () => {
  it('drops exact repeats with dedupe (as in the published DAPO parquet), still rejects same id with different content', async () => {
    const rep = await file([
      { id: 'a', question: 'q', answer: '1' },
      { id: 'a', question: 'q', answer: '1' },
      { id: 'b', question: 'r', answer: '2' },
    ]);
    await expect(loadMathDataset(rep)).rejects.toThrow(/dedupe: true/);
    expect((await loadMathDataset(rep, { dedupe: true })).map((e) => e.id)).toEqual(['a', 'b']);
    const clash = await file([
      { id: 'a', question: 'q', answer: '1' },
      { id: 'a', question: 'q', answer: '2' },
    ]);
    await expect(loadMathDataset(clash, { dedupe: true })).rejects.toThrow("row 2: duplicate id 'a'");
  });
});
