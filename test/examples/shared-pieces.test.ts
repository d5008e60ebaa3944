import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mulberry32, type Environment, type Reward, type TrainingBackend } from 'agentrl/internal';
import { pickMixStyle } from '../../examples/shared/demo-styles.js';
import { splitByCountry } from '../../examples/shared/country-split.js';
import { evaluateHeldOut } from '../../examples/shared/held-out.js';
import { trainOnSplit } from '../../examples/shared/rl.js';
import { rlRunFlags, rlRunOptions } from '../../examples/shared/flags.js';
import { pickStyle as retoolStyle } from '../../examples/retool/demos.js';
import { pickStyle as searchStyle } from '../../examples/search-agent/demos.js';
import { pickStyle as sqlStyle } from '../../examples/sql-agent/demos.js';

const STYLES = ['right', 'at-once', 'recover', 'mistake', 'malformed'] as const;

describe('examples/shared: the pieces the pipeline examples share', () => {
  it('the cold-start mix cuts at 0.5 / 0.75 / 0.85 / 0.9 and takes exactly one draw', () => {
    const cases: [number, (typeof STYLES)[number]][] = [
      [0, 'right'],
      [0.4999, 'right'],
      [0.5, 'at-once'],
      [0.7499, 'at-once'],
      [0.75, 'recover'],
      [0.8499, 'recover'],
      [0.85, 'mistake'],
      [0.8999, 'mistake'],
      [0.9, 'malformed'],
      [0.9999, 'malformed'],
    ];
    for (const [x, want] of cases) {
      let draws = 0;
      expect(
        pickMixStyle(() => (draws++, x), STYLES),
        String(x),
      ).toBe(want);
      expect(draws).toBe(1);
    }
  });

  it('every example draws its styles in the same mix order from the same seed', () => {
    const index = (pick: (r: () => number) => string, names: readonly string[]) => {
      const r = mulberry32(9);
      return Array.from({ length: 500 }, () => names.indexOf(pick(r)));
    };
    const reference = index((r) => pickMixStyle(r, STYLES), STYLES);
    expect(new Set(reference)).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(index(retoolStyle, ['tool', 'head', 'noprint-retry', 'noprint-guess', 'malformed'])).toEqual(reference);
    expect(index(searchStyle, ['search', 'guess', 'bad-query-retry', 'bad-query-guess', 'malformed'])).toEqual(reference);
    expect(index(sqlStyle, ['query', 'guess', 'error-fix', 'error-guess', 'malformed'])).toEqual(reference);
  });

  it('the country split: held-out countries never train, incomplete or long-named countries are left out, same seed same split', () => {
    const names = ['Peru', 'Chile', 'Japan', 'Kenya', 'Spain', 'Egypt', 'India', 'Brazil', 'Mozambique', 'Trinidad and Tobago', 'Fiji'];
    const rows = names.flatMap((country) => (country === 'Fiji' ? ['capital'] : ['capital', 'currency']).map((field) => ({ country, field })));
    for (const seed of [1, 2, 3]) {
      const s = splitByCountry(rows, 2, 4, seed);
      const train = new Set(s.train.map((r) => r.country));
      const test = new Set(s.test.map((r) => r.country));
      expect(s.countries).toBe(4);
      expect(train.size).toBe(4);
      expect(test.size).toBe(4);
      expect([...test].filter((c) => train.has(c))).toEqual([]);
      for (const c of [...train, ...test]) {
        expect(c).not.toBe('Fiji'); // one field only
        expect(c).not.toBe('Trinidad and Tobago'); // name longer than 12 characters
      }
      for (const part of [s.train, s.test])
        for (let i = 0; i < part.length; i += 2) expect(part.slice(i, i + 2).map((r) => r.field)).toEqual(['capital', 'currency']);
      expect(splitByCountry(rows, 2, 4, seed)).toEqual(s);
    }
    expect(splitByCountry(rows, 2, 4, 1).train).not.toEqual(splitByCountry(rows, 2, 4, 2).train);
    // Fewer eligible countries than asked for: training takes them first, the held-out part gets what is left.
    const few = splitByCountry(rows, 2, 6, 1);
    expect(few.countries).toBe(6);
    expect(new Set(few.test.map((r) => r.country)).size).toBe(3);
  });

  it('the RL flags become the RL run settings', () => {
    const flags = rlRunFlags({ steps: '40', lr: '3e-4' });
    expect(Object.keys(flags)).toEqual(['steps', 'questions', 'group', 'lr', 'wandb']);
    expect(Object.values(flags).map((f) => ('default' in f ? f.default : undefined))).toEqual(['40', '8', '8', '3e-4', undefined]);
    expect(rlRunOptions({ steps: '3', questions: '2', group: '4', lr: '1e-4', seed: '5' }, 'runs/x')).toEqual({
      steps: 3,
      questionsPerBatch: 2,
      groupSize: 4,
      learningRate: 1e-4,
      logDir: 'runs/x',
      seed: 5,
    });
    // `--wandb <project>`: a W&B sink (one object implementing MetricsSink) rides along.
    const withWandb = rlRunOptions({ steps: '3', questions: '2', group: '4', lr: '1e-4', seed: '5', wandb: 'retool' }, 'runs/x');
    expect(withWandb.sinks).toHaveLength(1);
    expect(typeof withWandb.sinks![0]!.write).toBe('function');
  });

  it('evaluation and RL close their environments and the reward when the split cannot be read', async () => {
    const closed: string[] = [];
    const env = (name: string): Environment => ({
      name,
      tools: [],
      initialMessages: () => [],
      step: async () => ({ done: true, reason: 'answer' }),
      close: async () => void closed.push(name),
    });
    const reward = Object.assign((() => ({ reward: 0, correct: false, validFormat: true })) as Reward, { close: async () => void closed.push('reward') });
    const missing = join(tmpdir(), 'agentrl-no-such-split.jsonl');
    const backend = {} as TrainingBackend; // never reached: the split is read first
    const budgets = { maxTurns: 1 };
    const sampling = { temperature: 1, topP: 1 };
    await expect(
      evaluateHeldOut(backend, { testPath: missing, budgets, sampling, reward }, { n: 1, problems: 1, seed: 1 }, [
        { env: env('tool'), file: 'a.jsonl' },
        { env: env('text'), file: 'b.jsonl' },
      ]),
    ).rejects.toThrow();
    expect(closed).toEqual(['tool', 'text', 'reward']);
    closed.length = 0;
    const opts = { steps: 1, questionsPerBatch: 1, groupSize: 2, learningRate: 1e-4, logDir: tmpdir(), seed: 1 };
    await expect(trainOnSplit(backend, { env: env('rl'), reward, trainPath: missing, budgets, sampling, contextTokens: 64 }, opts)).rejects.toThrow();
    expect(closed).toEqual(['rl', 'reward']);
    // A reward without `close` (exact match) is fine too.
    closed.length = 0;
    const plain: Reward = () => ({ reward: 0, correct: false, validFormat: true });
    await expect(trainOnSplit(backend, { env: env('rl'), reward: plain, trainPath: missing, budgets, sampling, contextTokens: 64 }, opts)).rejects.toThrow();
    expect(closed).toEqual(['rl']);
  });
});
