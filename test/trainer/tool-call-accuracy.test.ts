import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, DemonstrationFitError, coldStart, defineTool, toolEnvironment, toolCallAccuracy, type Demonstration, type Example } from 'agentrl';
import { mockBackend, scriptedSampler, type Script } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

// Hazard: a cold start that taught the tool-call FORMAT but not to copy the arguments (the model calls `price` with
// the wrong country) looks fine by its loss, and RL then moves nothing. The check must score the arguments, on
// demonstrations the model was not trained on, from the exact prompt of each demonstrated turn.
const price = defineTool({
  name: 'price',
  description: 'Price of tea in a country.',
  inputSchema: z.object({ country: z.string(), cups: z.number().int().optional() }),
  execute: ({ country }) => (country === 'Peru' ? '42' : '17'),
});
const convert = defineTool({
  name: 'convert',
  description: 'Cents to dollars.',
  inputSchema: z.object({ cents: z.number() }),
  execute: ({ cents }) => String(cents / 100),
});
const env = toolEnvironment({ name: 'tea', tools: [price, convert], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
const call = (name: string, args: unknown) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(args)}}\n</tool_call>`;
const ex = (id: string, country: string): Example => ({ id, question: `What does tea cost in ${country}?`, answer: '42', meta: { country } });

/** The scripted "model": right call for Peru and Japan (keys in another order), wrong country for Chile, wrong tool for Kenya, no call for Spain, broken JSON for India. */
const script: Script = ({ prompt }) => {
  if (prompt.includes('<tool_response>')) return prompt.includes('17\n</tool_response>') ? call('convert', { cents: 17 }) : '42';
  const country = /cost in (\w+)\?/.exec(prompt.slice(prompt.lastIndexOf('cost in')))?.[1];
  switch (country) {
    case 'Peru':
      return call('price', { country: 'Peru' });
    case 'Japan':
      return `<tool_call>\n{"arguments": {"cups": 1, "country": "Japan"}, "name": "price"}\n</tool_call>`;
    case 'Chile':
      return call('price', { country: 'Peru' });
    case 'Kenya':
      return call('convert', { cents: 1 });
    case 'Spain':
      return 'about 40';
    default:
      return '<tool_call>\n{"name": "price", "arguments": {"country": \n</tool_call>';
  }
};

describe('toolCallAccuracy / coldStart({ heldOut })', () => {
  it('scores same tool and same arguments per demonstrated call, key order ignored, later turns from their own prompt', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
    const demos: Demonstration[] = [
      { example: ex('a', 'Peru'), turns: [call('price', { country: 'Peru' }), '42'] },
      { example: ex('b', 'Japan'), turns: [call('price', { cups: 1, country: 'Japan' }), call('convert', { cents: 17 }), '0.17'] },
      { example: ex('c', 'Chile'), turns: [call('price', { country: 'Chile' }), '17'] },
      { example: ex('d', 'Kenya'), turns: [call('price', { country: 'Kenya' }), '17'] },
      { example: ex('e', 'Spain'), turns: [call('price', { country: 'Spain' }), '17'] },
      { example: ex('f', 'India'), turns: [call('price', { country: 'India' }), '17'] },
      { example: ex('g', 'Peru'), turns: ['42'] }, // no tool call: nothing to check
    ];
    const r = await toolCallAccuracy(backend, env, demos, { maxToolResponseTokens: 16 });
    // a ok; b turn 0 ok (key order), b turn 1 ok only because its prompt holds the first call's result (17);
    // c wrong argument; d wrong tool; e no call; f broken JSON; g has no call.
    expect(r.calls).toBe(7);
    expect(r.argumentAccuracy).toBeCloseTo(3 / 7, 10);
    expect(r.toolNameAccuracy).toBeCloseTo(4 / 7, 10);
    expect(r.misses.map((m) => `${m.exampleId}:${m.turn}`)).toEqual(['c:0', 'd:0', 'e:0', 'f:0']);
    expect(r.misses[0]).toMatchObject({ expected: 'price({"country":"Chile"})', got: 'price({"country":"Peru"})' });
    expect(r.misses[1]!.got).toBe('convert({"cents":1})');
    expect(r.misses[2]!.got).toBe('"about 40"');
    // c: the right tool with another argument; d: another tool; e: no call; f: a malformed call
    expect(r.failures).toEqual({ length: 0, format: 2, tool: 1, arguments: 1 });
  });

  it('coldStart reports heldOut and warns below minArgumentAccuracy, naming a miss; silent at or above it', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
    const train = [{ example: ex('t1', 'Peru'), turns: [call('price', { country: 'Peru' }), '42'] }];
    const heldOut = [
      { example: ex('h1', 'Peru'), turns: [call('price', { country: 'Peru' }), '42'] },
      { example: ex('h2', 'Chile'), turns: [call('price', { country: 'Chile' }), '17'] },
    ];
    const warnings: string[] = [];
    const opts = { steps: 1, batchSize: 1, learningRate: 1e-3, seed: 1, maxToolResponseTokens: 16, heldOut, onWarning: (m: string) => warnings.push(m) };
    const r = await coldStart(backend, env, train, opts);
    expect(r.heldOut).toMatchObject({ calls: 2, argumentAccuracy: 0.5, toolNameAccuracy: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /50\.0% of 2 held-out tool calls with the right arguments \(right tool: 100\.0%; want ≥ 80%\), e\.g\. h2: expected price\(\{"country":"Chile"\}\), got price\(\{"country":"Peru"\}\)/,
    );
    expect(warnings[0]).toMatch(/Misses: 0 length, 0 format, 0 tool, 1 arguments\. Most are arguments: the right tool with other arguments; train longer/);
    await coldStart(backend, env, train, { ...opts, minArgumentAccuracy: 0.5 });
    expect(warnings).toHaveLength(1);
    const plain = await coldStart(backend, env, train, { steps: 1, batchSize: 1, learningRate: 1e-3, seed: 1, maxToolResponseTokens: 16 });
    expect(plain.heldOut).toBeUndefined();
  });
});

// Hazard: demonstrated turns longer than the RL run's turn budget. The cold start then teaches a call that every rollout
// cuts before its end, so every sampled call is invalid, the reward is flat and RL moves nothing — while the
// held-out check, sampling with a roomier budget, reports the calls as right.
describe('coldStart({ maxTurnTokens })', () => {
  const longCall = call('price', { country: 'Peru', cups: 12 });
  const demos = (n: number): Demonstration[] =>
    Array.from({ length: n }, (_, i) => ({ example: ex(`t${i}`, 'Peru'), turns: i % 2 ? ['42'] : [longCall, '42'] }));

  it('refuses demonstrations whose assistant turn exceeds the budget, naming the count, the longest and the budget it needs; silent within it', async () => {
    const renderer = await localRenderer();
    const callTokens = renderer.encode(longCall).length + 1; // + the stop token the turn ends with
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
    for (const [budget, n] of [
      [callTokens - 1, 4],
      [callTokens - 7, 5],
      [Math.floor(callTokens / 2), 3],
    ] as const) {
      const e = await coldStart(backend, env, demos(n), {
        steps: 1,
        batchSize: 1,
        learningRate: 1e-3,
        seed: 1,
        maxToolResponseTokens: 16,
        maxTurnTokens: budget,
        onWarning: () => {},
      }).catch((x: unknown) => x);
      expect(DemonstrationFitError.isInstance(e)).toBe(true);
      expect((e as DemonstrationFitError).misfits).toBe(Math.ceil(n / 2));
      expect((e as Error).message).toContain(
        `${Math.ceil(n / 2)} of ${n} have an assistant turn longer than maxTurnTokens ${budget} (longest: 't0', ${callTokens} tokens`,
      );
      expect((e as Error).message).toContain(`raise budgets.maxTurnTokens to ≥ ${callTokens}`);
      expect((e as Error).message).toContain(`onOverflow: 'skip' to train on the ${n - Math.ceil(n / 2)} that fit`);
      // skipping is explicit, and loud
      const warnings: string[] = [];
      const r = await coldStart(backend, env, demos(n), {
        steps: 1,
        batchSize: 1,
        learningRate: 1e-3,
        seed: 1,
        maxToolResponseTokens: 16,
        maxTurnTokens: budget,
        onOverflow: 'skip',
        onWarning: (m) => warnings.push(m),
      });
      expect(r.longestTurnTokens).toBe(callTokens);
      expect([r.longTurns, r.skipped, r.datums]).toEqual([Math.ceil(n / 2), Math.ceil(n / 2), n - Math.ceil(n / 2)]);
      expect(r.fit).toMatchObject({
        total: n,
        fit: n - Math.ceil(n / 2),
        overTurnTokens: Math.ceil(n / 2),
        overContext: 0,
        longestTurn: { exampleId: 't0', tokens: callTokens },
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`WARNING — skipping ${Math.ceil(n / 2)} of ${n} demonstrations`));
    }
    const warnings: string[] = [];
    const ok = await coldStart(backend, env, demos(4), {
      steps: 1,
      batchSize: 1,
      learningRate: 1e-3,
      seed: 1,
      maxToolResponseTokens: 16,
      maxTurnTokens: callTokens,
      onWarning: (m) => warnings.push(m),
    });
    expect([ok.longTurns, ok.fit.fit, warnings]).toEqual([0, 4, []]);
    const unchecked = await coldStart(backend, env, demos(4), {
      steps: 1,
      batchSize: 1,
      learningRate: 1e-3,
      seed: 1,
      maxToolResponseTokens: 16,
      onWarning: (m) => warnings.push(m),
    });
    expect([unchecked.longTurns, warnings]).toEqual([0, []]);
  });

  it('the held-out check samples within the budget: a call cut by it does not count as right', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
    const heldOut = [{ example: ex('h1', 'Peru'), turns: [call('price', { country: 'Peru' }), '42'] }];
    const callTokens = renderer.encode(call('price', { country: 'Peru' })).length + 1;
    const base = { steps: 1, batchSize: 1, learningRate: 1e-3, seed: 1, maxToolResponseTokens: 16, heldOut, onWarning: () => {}, onOverflow: 'skip' as const };
    expect((await coldStart(backend, env, demos(2), { ...base, maxTurnTokens: callTokens })).heldOut).toMatchObject({ argumentAccuracy: 1 });
    const cut = await coldStart(backend, env, demos(2), { ...base, maxTurnTokens: callTokens - 3, onOverflow: 'skip' });
    expect(cut.heldOut).toMatchObject({ argumentAccuracy: 0, toolNameAccuracy: 0, failures: { length: 1, format: 0, tool: 0, arguments: 0 } });
  });
});

// Hazard (issue 39): with a small context, every tool-calling demonstration was silently left out (only
// `result.skipped` said so), the model learned to answer without the tool, and RL saw only degenerate groups.
describe('coldStart refuses demonstrations longer than the context unless told to skip them', () => {
  const demos = (n: number): Demonstration[] =>
    Array.from({ length: n }, (_, i) => ({
      example: ex(`q${i}`, 'Peru'),
      turns: i % 4 === 0 ? ['42'] : [{ call: { name: 'price', arguments: { country: 'Peru' } } }, { answer: '42' }],
    }));
  for (const [context, n] of [
    [80, 8],
    [70, 5],
    [90, 12],
  ] as const) {
    it(`context ${context}, ${n} demonstrations`, async () => {
      const renderer = await localRenderer();
      const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: context });
      const opts = { steps: 1, batchSize: 2, learningRate: 1e-3, seed: 1, budgets: { maxToolResponseTokens: 16 } };
      const e = await coldStart(backend, env, demos(n), opts).catch((x: unknown) => x);
      const long = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 !== 0).length;
      expect(DemonstrationFitError.isInstance(e)).toBe(true);
      expect((e as Error).message).toMatch(
        new RegExp(
          `${long} of ${n} are longer than the ${context}-token context \\(longest: 'q\\d+', (\\d+) tokens; it needs contextTokens / budgets.maxTrajectoryTokens ≥ \\1\\)`,
        ),
      );
      const warnings: string[] = [];
      const r = await coldStart(backend, env, demos(n), { ...opts, onOverflow: 'skip', onWarning: (m) => warnings.push(m) });
      expect([r.datums, r.skipped, r.fit.overContext]).toEqual([n - long, long, long]);
      expect(warnings[0]).toMatch(new RegExp(`WARNING — skipping ${long} of ${n} demonstrations`));
      expect(r.fit.longest.tokens).toBeGreaterThan(context);
    });
  }

  it('none fits: refused even with skip; misspelt or wrongly typed new options are a ConfigError naming the key', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 20 });
    const base = { steps: 1, batchSize: 2, learningRate: 1e-3, seed: 1 };
    expect(DemonstrationFitError.isInstance(await coldStart(backend, env, demos(3), { ...base, onOverflow: 'skip' }).catch((x: unknown) => x))).toBe(true);
    for (const [bad, path] of [
      [{ onOverflow: 'drop' }, 'onOverflow'],
      [{ budgets: { maxTurnToken: 4 } }, 'budgets.maxTurnToken'],
      [{ budgets: { maxTurnTokens: -1 } }, 'budgets.maxTurnTokens'],
    ] as const) {
      const e = await coldStart(backend, env, demos(3), { ...base, ...(bad as object) }).catch((x: unknown) => x);
      expect(ConfigError.isInstance(e)).toBe(true);
      expect((e as Error).message).toContain(path);
    }
  });
});

describe('tokenize (which words are single tokens)', () => {
  it('splits text into the ids encode() gives, each with its text; the pieces rejoin to the text', async () => {
    const { tokenize } = await import('agentrl');
    const renderer = await localRenderer();
    for (const text of ['Peru Lisbon 1234', 'What does tea cost in Kenya today?', 'meeting at 14:30 with Alice', 'naïve café ☕', '']) {
      const pieces = tokenize(renderer, text);
      expect(pieces.map((p) => p.id)).toEqual(renderer.encode(text));
      if (!/[^\p{ASCII}]/u.test(text)) expect(pieces.map((p) => p.text).join('')).toBe(text);
    }
    // The embedded tokenizer: entity names and 2-digit strings are one token each; common words are not.
    expect(tokenize(renderer, 'Peru Tokyo 12 price').map((p) => p.text)).toEqual(['Peru', ' ', 'Tokyo', ' ', '12', ' ', 'pr', 'ic', 'e']);
  });
});
