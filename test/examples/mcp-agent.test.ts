import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import {
  DEFAULT_BUDGETS,
  coldStart,
  exactMatch,
  localBackend,
  mcpEnvironment,
  runGroup,
  tokenize,
  type DemonstrationTurn,
  type Example,
  type McpEnvironment,
} from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import {
  BUDGETS,
  DEPOTS,
  FIELDS,
  HELD_OUT_DEPOTS,
  MODEL,
  SYSTEM_PROMPT,
  TOOL,
  demonstrations,
  lookupCall,
  questions,
  recordsServer,
} from '../../examples/mcp-agent/task.js';
import { localRenderer } from '../helpers/local-renderer.js';
import { renderDemonstration } from '../../src/rollout/demonstration.js';

const dirs: string[] = [];
const envs: McpEnvironment[] = [];
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function recordsEnv() {
  const { dir, ...server } = recordsServer();
  dirs.push(dir);
  const env = await mcpEnvironment({
    server,
    connection: 'shared',
    tools: [TOOL],
    initialMessages: (ex) => [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: ex.question },
    ],
  });
  envs.push(env);
  return env;
}

const toolResponse = (prompt: string) => /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/.exec(prompt)?.[1];

/** The text a model of the renderer's family writes for the demonstrated call of `ex` (the demonstration's first turn, rendered). */
async function callText(renderer: Awaited<ReturnType<typeof localRenderer>>, env: McpEnvironment, ex: Example): Promise<string> {
  const demo = { example: ex, turns: [{ call: lookupCall(ex) }, { answer: `<answer>${ex.answer}</answer>` }] };
  return (await renderDemonstration(renderer, env, demo, { maxToolResponseTokens: BUDGETS.maxToolResponseTokens })).texts[0]!;
}

describe('mcp-agent example', () => {
  // Hazard: a held-out split that asks what training asked measures recall of training items, not the lookup skill.
  it('held-out questions are (depot, field) pairs never asked in training, about depots training does ask about', () => {
    const train = questions('train');
    const test = questions('test');
    expect([train.length, test.length]).toEqual([DEPOTS.length * FIELDS.length - HELD_OUT_DEPOTS, HELD_OUT_DEPOTS]);
    const pair = (e: { meta?: Readonly<Record<string, unknown>> }) => `${String(e.meta?.['depot'])}/${String(e.meta?.['field'])}`;
    const trained = new Set(train.map(pair));
    expect(test.filter((e) => trained.has(pair(e)))).toEqual([]);
    expect(new Set(train.map((e) => e.question)).size).toBe(train.length);
    expect(test.filter((e) => train.some((t) => t.question === e.question))).toEqual([]);
    // every held-out depot is asked in training (its other field), so its name is a token the model has copied
    for (const e of test) expect(train.some((t) => t.meta?.['depot'] === e.meta?.['depot'])).toBe(true);
  });

  // Hazard: a multi-token name or number, which the tiny model cannot learn to copy in a short cold start.
  it('every depot, field and stored number is one token of the embedded tokenizer', async () => {
    const renderer = await localRenderer();
    const words = [...DEPOTS, ...FIELDS, ...[...questions('train'), ...questions('test')].map((e) => e.answer)];
    expect(words.filter((w) => tokenize(renderer, w).length !== 1)).toEqual([]);
  });

  // Hazard: the demonstrated call does not reach the record on the real server, so the cold start teaches copying a number that is not there.
  it('the real filesystem server answers the demonstrated call with the stored number: a copying policy scores 1, a guessing one 0', async () => {
    const env = await recordsEnv();
    const renderer = await localRenderer();
    expect(env.tools.map((t) => t.function.name)).toEqual([TOOL]);
    const test = questions('test');
    const calls = new Map(await Promise.all(test.map(async (e) => [e.question, await callText(renderer, env, e)] as const)));
    // the call as the template renders it: compact arguments, parsed back to the same path
    expect(calls.get(test[0]!.question)).toBe(
      `<tool_call>\n{"name": "${TOOL}", "arguments": {"path":"${String(test[0]!.meta?.['depot'])}/${String(test[0]!.meta?.['field'])}"}}\n</tool_call>`,
    );
    const copier = scriptedSampler({
      renderer,
      script: ({ prompt }) =>
        toolResponse(prompt) === undefined
          ? calls.get(test.find((e) => prompt.includes(e.question))!.question)!
          : `<answer>${toolResponse(prompt)!.trim()}</answer>`,
    });
    const reward = exactMatch();
    for (const ex of test.slice(0, 6)) {
      const [t] = await runGroup(
        { sampler: copier, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 1, maxTurns: 2 } },
        { example: ex, groupSize: 1 },
      );
      expect(t!.stopReason).toBe('answer');
      expect((await reward(t!, ex)).reward).toBe(1);
    }
    const guesser = scriptedSampler({ renderer, script: () => '<answer>10</answer>' });
    const ex = test.find((e) => e.answer !== '10')!;
    const [g] = await runGroup({ sampler: guesser, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect((await reward(g!, ex)).reward).toBe(0);
  });

  // Hazard: training answers the model can remember. Each training question has one stored number, so a cold start on
  // the server's answers alone can fit every target by remembering it — and the held-out answers, never a target, stay
  // wrong (measured: 100% right calls teacher-forced, 6.3% right answers sampled). Later passes show other numbers.
  it('demonstrations after the first pass show another number in the record and answer it; a fixed record renders as the server does', async () => {
    const env = await recordsEnv();
    const renderer = await localRenderer();
    const train = questions('train');
    const demos = demonstrations(train, { passes: 4, guessShare: 0.25, seed: 7, otherRecords: true });
    const answerOf = (d: (typeof demos)[number]) => /<answer>(\d+)<\/answer>/.exec((d.turns.at(-1) as { answer: string }).answer)![1];
    const lookups = demos.slice(train.length).filter((d) => d.turns.length === 2);
    const shown = lookups.map((d) => String((d.turns[0] as DemonstrationTurn).observation![0]!.content));
    expect(lookups.map(answerOf)).toEqual(shown);
    expect(lookups.filter((d, i) => shown[i] !== d.example.answer).length).toBeGreaterThan(lookups.length * 0.9);
    // per training question, the lookups' answers differ across passes: no single answer fits them
    const byQuestion = new Map<string, Set<string>>();
    lookups.forEach((d, i) => {
      byQuestion.set(d.example.id, (byQuestion.get(d.example.id) ?? new Set()).add(shown[i]!));
    });
    expect([...byQuestion.values()].filter((v) => v.size > 1).length).toBeGreaterThan(train.length / 2);
    for (const d of demos.slice(0, train.length).filter((x) => x.turns.length === 2)) expect(answerOf(d)).toBe(d.example.answer);
    // without otherRecords every pass shows the server's record
    for (const d of demonstrations(train, { passes: 3, guessShare: 0.25, seed: 7 }).filter((x) => x.turns.length === 2)) {
      expect(['observation' in (d.turns[0] as DemonstrationTurn), answerOf(d)]).toEqual([false, d.example.answer]);
    }
    // the fixed observation is rendered token for token like the real server's answer
    const ex = train[0]!;
    const real = await renderDemonstration(
      renderer,
      env,
      { example: ex, turns: [{ call: lookupCall(ex) }, { answer: `<answer>${ex.answer}</answer>` }] },
      { maxToolResponseTokens: 16 },
    );
    const fixed = await renderDemonstration(
      renderer,
      env,
      {
        example: ex,
        turns: [{ call: lookupCall(ex), observation: [{ role: 'tool', name: TOOL, content: ex.answer }] }, { answer: `<answer>${ex.answer}</answer>` }],
      },
      { maxToolResponseTokens: 16 },
    );
    expect(fixed.tokens).toEqual(real.tokens);
  });

  // Hazard: demonstrations that do not fit the example's context (left out) or render differently from a rollout; or
  // budgets that cut a demonstrated turn (a 32-token turn budget cut every sampled call before its end, so every call
  // was invalid and RL saw reward 0).
  it('cold start renders every demonstration through the real server within the context and the turn budget, and trains on it', async () => {
    const env = await recordsEnv();
    const backend = localBackend({ layers: 1, dModel: 32, heads: 2, contextTokens: MODEL.contextTokens, seed: 3 });
    try {
      const demos = demonstrations([...questions('train'), ...questions('test')], { passes: 1, guessShare: 0.25, seed: 7 });
      expect(demos.filter((d) => d.turns.length === 1).length).toBeGreaterThan(0);
      expect(demos.filter((d) => d.turns.length === 2).length).toBeGreaterThan(demos.length / 2);
      // a guess is never the stored number
      for (const d of demos.filter((x) => x.turns.length === 1)) expect(d.turns[0]).not.toEqual({ answer: `<answer>${d.example.answer}</answer>` });
      const warnings: string[] = [];
      const r = await coldStart(backend, env, demos, {
        steps: 2,
        batchSize: 4,
        learningRate: 1e-3,
        seed: 1,
        maxToolResponseTokens: BUDGETS.maxToolResponseTokens,
        maxTurnTokens: BUDGETS.maxTurnTokens,
        onWarning: (m) => warnings.push(m),
      });
      expect([r.skipped, r.longTurns, warnings]).toEqual([0, 0, []]);
      expect(r.datums).toBe(demos.length);
      expect(r.longestTokens).toBeLessThanOrEqual(Math.min(MODEL.contextTokens, BUDGETS.maxTrajectoryTokens));
      expect(r.longestTurnTokens).toBeLessThanOrEqual(BUDGETS.maxTurnTokens);
      expect(Number.isFinite(r.lastLoss)).toBe(true);
    } finally {
      await backend.close();
    }
  });
});
