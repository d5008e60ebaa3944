import { describe, expect, it } from 'vitest';
import type { DemonstrationTurn, Example } from 'agentrl/internal';
import { canonicalKeys, overlappingPairs } from '../../examples/shared/overlap.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { extractFinalSql, loadMathDataset, localBackend } from 'agentrl/internal';
import { BUDGETS, MODEL, PATHS } from '../../examples/sql-agent/config.js';
import { buildDemoDatums, demoTurns, wrongTable } from '../../examples/sql-agent/demos.js';
import { renderDemonstration } from '../../src/rollout/demonstration.js';
import { loadDatabase, sqlEnv } from '../../examples/sql-agent/env.js';
import { runRl } from '../../examples/sql-agent/train.js';

describe('sql-agent example', () => {
  // Hazard: a gold query with no row, a NULL or an ambiguous result makes the execution-match reward meaningless.
  it('every gold SQL returns exactly one non-NULL value, and its wrong-table variant fails', async () => {
    const db = new Database(PATHS.database, { readonly: true });
    const questions = [...(await loadMathDataset(PATHS.train)), ...(await loadMathDataset(PATHS.test))];
    for (const q of questions) {
      const rows = db.prepare(q.answer).raw(true).all() as unknown[][];
      expect(rows.length, q.answer).toBe(1);
      expect(rows[0]?.[0], q.answer).not.toBeNull();
      expect(q.answer).toBe(`SELECT ${String(q.meta?.['column'])} FROM country WHERE name = '${String(q.meta?.['country'])}'`);
      expect(() => db.prepare(wrongTable(q.answer)).all()).toThrow(/no such table/);
    }
    db.close();
  });

  // Hazard: test questions that ask what training asked (the same lookup reworded, or the same question) make the
  // before/after eval measure recall of training items instead of the skill.
  it('the test split is disjoint from training: no shared question, canonical form or (column, country) pair', async () => {
    const train = await loadMathDataset(PATHS.train);
    const test = await loadMathDataset(PATHS.test);
    expect(test.length).toBe(64);
    const keys = (e: { id: string; question: string }) => {
      const meta = (e as Example).meta ?? {};
      return [...canonicalKeys(e.question), `item:${String(meta['column'])}|${String(meta['country'])}`, `country:${String(meta['country'])}`];
    };
    expect(overlappingPairs(train, test, keys)).toEqual([]);
    // The check itself finds an overlap when there is one.
    expect(overlappingPairs(train, [{ ...train[0]!, id: 'probe', question: train[0]!.question.toUpperCase() }], keys)).toHaveLength(1);
  });

  it('the harder train/test sets used by the wiring tests share no question or canonical form either', async () => {
    const dir = new URL('../../examples/sql-agent/data/', import.meta.url).pathname;
    const train = await loadMathDataset(dir + 'train.jsonl');
    const test = await loadMathDataset(dir + 'test.jsonl');
    expect(test.length).toBeGreaterThan(50);
    expect(overlappingPairs(train, test)).toEqual([]);
  });

  it('a demonstrated final answer is read back by the reward as the intended SQL', async () => {
    const [ex] = await loadMathDataset(PATHS.test, { limit: 1 });
    const answerOf = (t: DemonstrationTurn | undefined) => (t !== undefined && 'answer' in t ? t.answer : '');
    expect(extractFinalSql(answerOf(demoTurns(ex!, 'query', () => 0)[1]))).toBe(ex!.answer);
    expect(extractFinalSql(answerOf(demoTurns(ex!, 'error-guess', () => 0)[1]))).toBe(wrongTable(ex!.answer));
  });

  // Hazard: a call written as data that the template renders in a form the parser rejects (every demonstrated call
  // would teach an invalid call), or a "malformed" style that parses as a valid call (nothing left for RL to fix).
  it("demonstrated calls render in the template's call syntax and parse back; the malformed style does not parse", async () => {
    const backend = localBackend({ ...MODEL });
    const renderer = await backend.renderer();
    const env = sqlEnv(loadDatabase());
    const [ex] = await loadMathDataset(PATHS.train, { limit: 1 });
    const render = (style: 'query' | 'malformed') =>
      renderDemonstration(renderer, env, { example: ex!, turns: demoTurns(ex!, style, () => 0) }, { maxToolResponseTokens: BUDGETS.maxToolResponseTokens });
    const [call] = (await render('query')).texts;
    expect(call).toBe(`<tool_call>\n{"name": "execute_sql", "arguments": {"sql":${JSON.stringify(ex!.answer)}}}\n</tool_call>`);
    const parsed = renderer.parseAssistant(call!, env.tools);
    expect(parsed.kind === 'tool' ? parsed.call.function.arguments : parsed.kind).toEqual({ sql: ex!.answer });
    const [malformed] = (await render('malformed')).texts;
    // the same text as the rendered call, less its final closing brace
    expect(malformed).toBe(call!.replace('}}\n</tool_call>', '}\n</tool_call>'));
    expect(renderer.parseAssistant(malformed!, env.tools).kind).toBe('invalid');
    await env.close?.();
    await backend.close();
  });

  // Hazard: a demo rendered differently from a rollout (observation text, scaffolding) teaches a protocol RL never sees.
  it('demonstrations fit the context, carry real query results and train only on assistant tokens', async () => {
    const backend = localBackend({ ...MODEL });
    const renderer = await backend.renderer();
    const env = sqlEnv(loadDatabase());
    const examples = (await loadMathDataset(PATHS.train)).slice(0, 40);
    const { datums, dropped } = await buildDemoDatums(renderer, env, examples, {
      seed: 5,
      epochs: 1,
      maxToolResponseTokens: BUDGETS.maxToolResponseTokens,
      maxTokens: MODEL.contextTokens,
    });
    expect(datums.length + dropped).toBe(40);
    let sawTable = false;
    for (const d of datums) {
      expect(d.modelInput.length).toBeLessThanOrEqual(MODEL.contextTokens);
      expect(d.mask.length).toBe(d.modelInput.length);
      const text = renderer.decode(d.modelInput);
      expect(text).not.toContain('truncated');
      if (/\(1 row\)/.test(text)) sawTable = true;
      const trained = renderer.decode(d.targetTokens.filter((_, i) => d.mask[i] === 1));
      expect(trained).not.toContain('<tool_response>');
      expect(trained).not.toContain('(1 row)');
    }
    expect(sawTable).toBe(true);
    await env.close?.();
    await backend.close();
  });

  // Hazard: the RL wiring (trainer config, env, reward, budgets) breaks without anyone running the long job.
  it('runs one RL step end to end on a tiny fresh model', async () => {
    const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: MODEL.contextTokens, seed: 3 });
    const seen: number[] = [];
    const summary = await runRl(backend, {
      steps: 1,
      questionsPerBatch: 2,
      groupSize: 2,
      learningRate: 1e-4,
      logDir: await mkdtemp(join(tmpdir(), 'sql-agent-')),
      seed: 1,
      onStep: (step, m) => seen.push(step, m['reward/mean'] ?? NaN),
    });
    expect(summary.steps).toBe(1);
    expect(seen[0]).toBe(1);
    expect(Number.isFinite(seen[1])).toBe(true);
    await backend.close();
  }, 240_000);
});
