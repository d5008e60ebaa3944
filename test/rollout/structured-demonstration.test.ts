import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DemonstrationError, defineTool, demonstrationDatum, toolEnvironment, type Example, type Renderer } from 'agentrl';
import { renderDemonstration } from '../../src/rollout/demonstration.js';
import type { ChatRenderer } from '../../src/chat/renderer.js';
import type { FamilyId } from '../../src/chat/families/types.js';
import { CONFORMANCE_FAMILIES, realRenderer } from '../chat/families/real-renderers.js';
import { localRenderer } from '../helpers/local-renderer.js';

const COUNTRIES = ['Peru', 'Chile', 'Japan'] as const;
const price = defineTool({
  name: 'price',
  description: "Today's price of tea in a country, in cents.",
  inputSchema: z.object({ country: z.enum(COUNTRIES), cups: z.number().int().min(1).optional() }),
  execute: ({ country }) => String(country.length * 10),
});
const note = defineTool({
  name: 'note',
  description: 'Writes a note.',
  inputSchema: z.strictObject({ items: z.array(z.object({ sku: z.string() })) }),
  execute: () => 'ok',
});
const env = toolEnvironment({ name: 'tea', tools: [price, note], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
const parallelEnv = toolEnvironment({
  name: 'tea2',
  tools: [price],
  parallelToolCalls: true,
  initialMessages: (ex) => [{ role: 'user', content: ex.question }],
});
const example: Example = { id: 'day-3', question: 'What does tea cost in Peru?', answer: '40' };

/** Each family's call syntax, as a marker its rendered call text must contain. */
const MARKER: Record<FamilyId, string> = {
  qwen3: '<tool_call>',
  qwen3_coder: '<function=price>',
  llama3: '"parameters"',
  deepseek_v3: '<｜tool▁calls▁begin｜>',
  gpt_oss: 'to=functions.price',
  kimi_k2: '<|tool_calls_section_begin|>',
  mistral: '[TOOL_CALLS]',
};

describe('a demonstration written as data renders in each model family’s own call syntax', () => {
  const renderers = {} as Record<FamilyId, ChatRenderer>;
  beforeAll(async () => {
    for (const f of CONFORMANCE_FAMILIES) {
      renderers[f] = await realRenderer(f);
      await new Promise((r) => setTimeout(r, 0));
    }
  }, 120_000);

  for (const family of CONFORMANCE_FAMILIES) {
    it(`${family}: { call } then { answer } → the family's call markup, parsed back to the same call, the env's result, the answer`, async () => {
      const r = renderers[family];
      const demo = { example, turns: [{ call: { name: 'price', arguments: { country: 'Peru' } } }, { answer: 'It costs 40 cents.' }] };
      const out = await renderDemonstration(r, env, demo, { maxToolResponseTokens: 16 });
      expect(out.texts).toHaveLength(2);
      expect(out.texts[0]).toContain(MARKER[family]);
      const parsed = r.parseAssistant(out.texts[0]!, env.tools);
      expect(parsed.kind).toBe('tool');
      if (parsed.kind === 'tool') expect(parsed.call.function).toEqual({ name: 'price', arguments: { country: 'Peru' } });
      expect(r.parseAssistant(out.texts[1]!, env.tools)).toMatchObject({ kind: 'answer' });
      expect(out.texts[1]).toContain('It costs 40 cents.');
      // the environment's result (Peru → 40) is in the prompt of the answer turn, and is not trained on
      const answerStart = out.turnStarts[1]!;
      expect(r.decode(out.tokens.slice(out.turnStarts[0]! + out.turnTokens[0]!, answerStart))).toContain('40');
      expect(out.mask.slice(out.turnStarts[0]! + out.turnTokens[0]!, answerStart).every((m) => m === 0)).toBe(true);
      // and the assistant tokens are exactly the two turns with their stop tokens
      expect(out.mask.filter((m) => m === 1)).toHaveLength(out.turnTokens[0]! + out.turnTokens[1]!);
    });
  }

  it('several calls in one turn render as the family’s parallel calls when the environment allows them', async () => {
    for (const family of ['qwen3', 'mistral', 'kimi_k2'] as const) {
      const r = renderers[family];
      const out = await renderDemonstration(
        r,
        parallelEnv,
        {
          example,
          turns: [
            {
              calls: [
                { name: 'price', arguments: { country: 'Peru' } },
                { name: 'price', arguments: { country: 'Chile' } },
              ],
            },
            { answer: '40' },
          ],
        },
        { maxToolResponseTokens: 16 },
      );
      const parsed = r.parseAssistant(out.texts[0]!, parallelEnv.tools, { parallelToolCalls: true });
      expect(parsed.kind === 'tool' ? parsed.calls.map((c) => c.function.arguments['country']) : parsed).toEqual(['Peru', 'Chile']);
    }
  });
});

describe('the embedded model writes a data call in the compact form it is trained to copy', () => {
  // The embedded template once serialised arguments with tojson's default separators ({"country": "Peru"}): one more
  // token between the key and the value than the compact JSON the examples and the init template wrote before, and
  // the tool-env template's held-out argument accuracy after 1000 cold-start steps fell from 100% to 53.1%.
  it('{ call } renders to exactly the tokens of the compact raw text (arguments without spaces)', async () => {
    const renderer = await localRenderer();
    const args = { country: 'Peru', cups: 2 };
    const data = await renderDemonstration(
      renderer,
      env,
      { example, turns: [{ call: { name: 'price', arguments: args } }, { answer: '40' }] },
      { maxToolResponseTokens: 16 },
    );
    const raw = await renderDemonstration(
      renderer,
      env,
      { example, turns: [`<tool_call>\n{"name": "price", "arguments": ${JSON.stringify(args)}}\n</tool_call>`, '40'] },
      { maxToolResponseTokens: 16 },
    );
    expect(data.texts[0]).toBe('<tool_call>\n{"name": "price", "arguments": {"country":"Peru","cups":2}}\n</tool_call>');
    expect(data.tokens).toEqual(raw.tokens);
    expect(data.mask).toEqual(raw.mask);
  });
});

describe('a demonstration that does not fit the tools is a DemonstrationError naming the example, turn and field', () => {
  let renderer: Renderer;
  beforeAll(async () => {
    renderer = await localRenderer();
  });
  const fails = async (turns: unknown[], e = env) => {
    const err = await demonstrationDatum(renderer, e, { example, turns } as never, { maxToolResponseTokens: 16 }).catch((x: unknown) => x);
    expect(DemonstrationError.isInstance(err)).toBe(true);
    return err as DemonstrationError;
  };

  for (const [label, turns, field, message] of [
    [
      'a value outside the enum',
      [{ call: { name: 'price', arguments: { country: 'peru' } } }, { answer: '4' }],
      'call.arguments.country',
      /expected one of "Peru", "Chile", "Japan", got "peru"/,
    ],
    [
      'a wrong type',
      [{ call: { name: 'price', arguments: { country: 'Peru', cups: '2' } } }, { answer: '4' }],
      'call.arguments.cups',
      /expected integer, got string "2"/,
    ],
    [
      'a number below the minimum',
      [{ call: { name: 'price', arguments: { country: 'Peru', cups: 0 } } }, { answer: '4' }],
      'call.arguments.cups',
      /expected ≥ 1, got 0/,
    ],
    ['a missing required argument', [{ call: { name: 'price', arguments: {} } }, { answer: '4' }], 'call.arguments.country', /required, missing/],
    [
      'a nested field',
      [{ call: { name: 'note', arguments: { items: [{ sku: 'a' }, { sku: 3 }] } } }, { answer: '4' }],
      'call.arguments.items.1.sku',
      /expected string, got integer 3/,
    ],
    [
      'an unknown tool',
      [{ call: { name: 'cost', arguments: { country: 'Peru' } } }, { answer: '4' }],
      'call.name',
      /'cost' is not offered.*tools: price, note/,
    ],
    [
      'an unknown argument of a strict schema',
      [{ call: { name: 'note', arguments: { items: [], sku: 'a' } } }, { answer: '4' }],
      'call.arguments.sku',
      /unknown field \(the tool takes items\)/,
    ],
  ] as const) {
    it(label, async () => {
      const e = await fails([...turns]);
      expect(e.exampleId).toBe('day-3');
      expect(e.turn).toBe(0);
      expect(e.field).toBe(field);
      expect(e.message).toMatch(message);
      expect(e.message).not.toContain('"properties"'); // the field, not the whole JSON schema
    });
  }

  it('raw text with a wrong argument names the field too (not the schema)', async () => {
    const e = await fails(['<tool_call>\n{"name": "price", "arguments": {"country": "Lima"}}\n</tool_call>', '4']);
    expect(e.field).toBe('call.arguments.country');
    expect(e.message).toMatch(/got "Lima"/);
    expect(e.message).not.toContain('"properties"');
  });

  it('two calls in one turn where the environment allows one', async () => {
    const e = await fails([
      {
        calls: [
          { name: 'price', arguments: { country: 'Peru' } },
          { name: 'price', arguments: { country: 'Chile' } },
        ],
      },
      { answer: '4' },
    ]);
    expect(e.field).toBe('calls');
    expect(e.message).toMatch(/allows one call per turn/);
  });
});

describe('a wrongly shaped demonstration is a DemonstrationError, never a TypeError', () => {
  const cases: [string, unknown, RegExp, string | undefined][] = [
    ['null', null, /expected an object \{ example, turns \}, got null/, undefined],
    ['no turns', { example }, /expected 'turns' to be an array/, 'turns'],
    ['turns not an array', { example, turns: 'hi' }, /expected 'turns' to be an array of turns, got string/, 'turns'],
    ['no example', { turns: ['4'] }, /expected 'example' to be a dataset example/, 'example'],
    ['a number as a turn', { example, turns: [4] }, /expected a string or a turn object/, undefined],
    ['a misspelt key', { example, turns: [{ cal: { name: 'price' } }] }, /unknown key 'cal'/, 'cal'],
    [
      'arguments as a string',
      { example, turns: [{ call: { name: 'price', arguments: '{"country":"Peru"}' } }] },
      /expected an object of arguments, got string/,
      'call.arguments',
    ],
    ['a call without a name', { example, turns: [{ call: { arguments: {} } }] }, /expected the tool's name/, 'call.name'],
    ['text and call together', { example, turns: [{ text: 'x', call: { name: 'price', arguments: {} } }] }, /not 'text' and 'call' together/, 'call'],
    ['an empty turn', { example, turns: [{}] }, /an empty turn/, undefined],
    [
      'an observation that is not messages',
      { example, turns: [{ call: { name: 'price', arguments: { country: 'Peru' } }, observation: 'forty' }] },
      /expected an array of messages/,
      'observation',
    ],
    ['an empty list of turns', { example, turns: [] }, /'turns' is empty/, 'turns'],
    ['say as a number', { example, turns: [{ say: 4 }] }, /expected a string, got number/, 'say'],
  ];
  for (const [label, demo, message, field] of cases) {
    it(label, async () => {
      const renderer = await localRenderer();
      const err = await demonstrationDatum(renderer, env, demo as never, { maxToolResponseTokens: 16 }).catch((x: unknown) => x);
      expect(err).not.toBeInstanceOf(TypeError);
      expect(DemonstrationError.isInstance(err)).toBe(true);
      expect((err as Error).message).toMatch(message);
      expect((err as DemonstrationError).field).toBe(field);
    });
  }
});
