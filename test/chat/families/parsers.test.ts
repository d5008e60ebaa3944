import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseAssistant } from '../../../src/chat/parse-assistant.js';
import { FAMILY_IDS, type FamilyId } from '../../../src/chat/families/types.js';
import type { ToolDefinition } from '../../../src/types/message.js';
import { EMIT, expectedCalls, type EmitCall } from './emit.js';

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, k: { type: 'integer' } }, required: ['query'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'code_interpreter',
      description: 'Run code.',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
];
const one: EmitCall = { name: 'search', args: { query: 'capital of France', k: 3 } };
const two: EmitCall = { name: 'code_interpreter', args: { code: 'print("a\\nb")\nx = {"k": [1, 2]}' } };
const parse = (family: FamilyId, text: string, parallelToolCalls = false) => parseAssistant(text, { family, tools, parallelToolCalls });

describe.each(FAMILY_IDS)('family %s: the call forms it writes', (family) => {
  it('parses one call to its name and arguments', () => {
    const a = parse(family, EMIT[family]([one]));
    expect(a.kind).toBe('tool');
    if (a.kind === 'tool') {
      expect(a.calls).toEqual(expectedCalls(family, [one]));
      expect(a.call).toEqual(a.calls[0]);
    }
  });

  it('parses a call whose arguments hold quotes, newlines, braces and unicode', () => {
    const a = parse(family, EMIT[family]([two]));
    expect(a).toMatchObject({ kind: 'tool', call: { function: { name: 'code_interpreter', arguments: two.args } } });
  });

  it('reads text without any call as the answer (harmony: only on the final channel)', () => {
    const text = 'The capital is Paris, \\boxed{Paris}.';
    if (family === 'gpt_oss') {
      expect(parse(family, text)).toMatchObject({ kind: 'invalid', reason: 'bad_tool_syntax' });
      expect(parse(family, `<|channel|>final<|message|>${text}`)).toMatchObject({ kind: 'answer', content: text });
    } else {
      expect(parse(family, text)).toMatchObject({ kind: 'answer', content: text });
    }
  });

  if (family !== 'gpt_oss') {
    it('parses two calls in one turn only with parallelToolCalls, all in order, call = the first', () => {
      const text = EMIT[family]([one, two]);
      expect(parse(family, text)).toMatchObject({ kind: 'invalid', reason: 'multiple_tool_calls' });
      const a = parse(family, text, true);
      expect(a.kind).toBe('tool');
      if (a.kind === 'tool') {
        expect(a.calls).toEqual(expectedCalls(family, [one, two]));
        expect(a.call).toEqual(a.calls[0]);
      }
    });
    it('checks every parallel call against the offered tools', () => {
      expect(parse(family, EMIT[family]([one, { name: 'nope', args: {} }]), true)).toMatchObject({ kind: 'invalid', reason: 'unknown_tool' });
      expect(parse(family, EMIT[family]([one, { name: 'search', args: { k: 1 } }]), true)).toMatchObject({ kind: 'invalid', reason: 'bad_arguments' });
    });
  }

  it('rejects a call to a tool that is not offered and a call without a required argument', () => {
    expect(parse(family, EMIT[family]([{ name: 'nope', args: { query: 'x' } }]))).toMatchObject({ kind: 'invalid', reason: 'unknown_tool' });
    expect(parse(family, EMIT[family]([{ name: 'search', args: { k: 2 } }]))).toMatchObject({ kind: 'invalid', reason: 'bad_arguments' });
  });

  it('rejects text after the call', () => {
    expect(parse(family, `${EMIT[family]([one])}\nSo the answer is 3.`)).toMatchObject({
      kind: 'invalid',
      reason: family === 'gpt_oss' ? 'bad_tool_json' : 'text_after_tool_call',
    });
  });

  it('property: emit → parse gives back random names and JSON arguments (quotes, newlines, unicode, special strings)', () => {
    const special = [
      '<tool_call>',
      '</tool_call>',
      '<|im_end|>',
      '<|python_tag|>',
      '<｜tool▁call▁end｜>',
      '[TOOL_CALLS]',
      '<|tool_call_end|>',
      '"',
      '\n',
      '}',
      '{',
      '\\',
      'é漢🙂',
    ];
    const str = fc.array(fc.oneof(fc.string(), fc.constantFrom(...special)), { maxLength: 6 }).map((p) => p.join(''));
    const value = fc.oneof(
      str,
      fc.integer(),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
    );
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/);
    const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(name, fc.dictionary(key, value, { maxKeys: 3 }), (n, args) => {
        // Qwen3-Coder XML writes values raw and cannot quote `</parameter>`; non-string values are typed by the schema.
        if (family === 'qwen3_coder' && Object.values(args).some((v) => typeof v !== 'string' || v.includes('</parameter>'))) return true;
        const a = parseAssistant(EMIT[family]([{ name: n, args }]), { family });
        if (a.kind !== 'tool') throw new Error(`${family}: ${JSON.stringify(a)}`);
        expect(a.calls).toEqual(expectedCalls(family, [{ name: n, args }]));
        return true;
      }),
      { numRuns: 150 },
    );
  });
});

describe('malformed forms are invalid with a named reason, per family', () => {
  const cases: [FamilyId, string, string][] = [
    ['qwen3', '<tool_call>\n{"name": "search", "arguments": {"query": "x"}\n</tool_call>', 'bad_tool_json'],
    ['qwen3', '<tool_call>\n{"name": "search", "arguments": {"query": "x"}}', 'stray_tool_tag'],
    ['qwen3', `${EMIT.qwen3([one])}\ntext\n${EMIT.qwen3([one])}`, 'multiple_tool_calls'],
    ['qwen3_coder', '<tool_call>\n<function=search>\n<parameter=query>\nx\n</function>\n</tool_call>', 'bad_tool_syntax'],
    ['qwen3_coder', '<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>', 'bad_tool_syntax'],
    [
      'qwen3_coder',
      '<tool_call>\n<function=search>\n<parameter=query>\nx\n</parameter>\n<parameter=k>\nthree\n</parameter>\n</function>\n</tool_call>',
      'bad_arguments',
    ],
    ['llama3', '{"name": "search", "parameters": {"query": "x"}', 'bad_tool_json'],
    ['llama3', '{"name": "search", "parameters": "x"}', 'bad_arguments'],
    ['llama3', '{"name": "search", "parameters": {"query": "x"}} and then', 'text_after_tool_call'],
    ['llama3', 'Let me call <|python_tag|>print(1)', 'stray_tool_tag'],
    ['llama3', '<|python_tag|>', 'empty_tool_call'],
    [
      'deepseek_v3',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n{"query": "x"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      'bad_tool_syntax',
    ],
    ['deepseek_v3', '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{"query": "x"\n```<｜tool▁call▁end｜>', 'bad_arguments'],
    ['deepseek_v3', 'text <｜tool▁call▁end｜>', 'stray_tool_tag'],
    ['deepseek_v3', '<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>', 'empty_tool_call'],
    [
      'gpt_oss',
      '<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"query": 1',
      'bad_tool_json',
    ],
    ['gpt_oss', '<|channel|>commentary to=functions.search<|message|>["x"]', 'bad_arguments'],
    ['gpt_oss', '<|channel|>commentary to=browser.open<|message|>{}', 'unknown_tool'],
    ['gpt_oss', '<|channel|>analysis hmm', 'bad_tool_syntax'],
    ['gpt_oss', '<|channel|>weird<|message|>hi', 'bad_tool_syntax'],
    [
      'gpt_oss',
      '<|channel|>commentary to=functions.search<|message|>{"query":"x"}<|end|><|start|>assistant<|channel|>final<|message|>done',
      'text_after_tool_call',
    ],
    [
      'kimi_k2',
      '<|tool_calls_section_begin|><|tool_call_begin|>search<|tool_call_argument_begin|>{"query": "x"}<|tool_call_end|><|tool_calls_section_end|>',
      'bad_tool_syntax',
    ],
    [
      'kimi_k2',
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{"query": <|tool_call_end|><|tool_calls_section_end|>',
      'bad_arguments',
    ],
    ['kimi_k2', 'text <|tool_call_end|>', 'stray_tool_tag'],
    ['mistral', '[TOOL_CALLS][{"name": "search", "arguments": {"query": "x"}]', 'bad_tool_json'],
    ['mistral', '[TOOL_CALLS]search{"query": "x"}', 'bad_tool_syntax'],
    ['mistral', '[TOOL_CALLS]search[ARGS]{"query": "x"} trailing', 'text_after_tool_call'],
    ['mistral', '[TOOL_CALLS][]', 'empty_tool_call'],
  ];
  it.each(cases)('%s: %j', (family, text, reason) => {
    expect(parse(family, text)).toMatchObject({ kind: 'invalid', reason, raw: text });
  });
});

describe('reasoning is kept out of the answer and out of the arguments', () => {
  it('harmony: analysis is reasoning; final is the answer; a call carries only its JSON', () => {
    const ans = parse('gpt_oss', '<|channel|>analysis<|message|>2+2 is 4, maybe \\boxed{5}?<|end|><|start|>assistant<|channel|>final<|message|>\\boxed{4}');
    expect(ans).toMatchObject({ kind: 'answer', content: '\\boxed{4}', reasoning: '2+2 is 4, maybe \\boxed{5}?' });
    const call = parse(
      'gpt_oss',
      '<|channel|>analysis<|message|>use search {"query": "wrong"}<|end|><|start|>assistant to=functions.search<|channel|>commentary json<|message|>{"query": "x"}',
    );
    expect(call).toMatchObject({ kind: 'tool', call: { function: { name: 'search', arguments: { query: 'x' } } }, reasoning: 'use search {"query": "wrong"}' });
  });
  it('harmony: the python recipient is the code tool', () => {
    expect(
      parse('gpt_oss', '<|channel|>analysis<|message|>compute<|end|><|start|>assistant<|channel|>analysis to=python code<|message|>print(1)'),
    ).toMatchObject({
      kind: 'tool',
      call: { function: { name: 'code_interpreter', arguments: { code: 'print(1)' } } },
    });
  });
  it('DeepSeek R1 / Kimi K2 Thinking: markers inside the reasoning are ignored; Mistral [THINK] too', () => {
    const r1 = `I might write <｜tool▁calls▁begin｜> here.</think>\n\n${EMIT.deepseek_v3([one])}`;
    expect(parse('deepseek_v3', r1)).toMatchObject({ kind: 'tool', reasoning: 'I might write <｜tool▁calls▁begin｜> here.' });
    const k2 = `<think>maybe <|tool_call_begin|></think>${EMIT.kimi_k2([one])}`;
    expect(parse('kimi_k2', k2)).toMatchObject({ kind: 'tool', reasoning: 'maybe <|tool_call_begin|>' });
    expect(parse('mistral', `[THINK]hmm [TOOL_CALLS][/THINK]${EMIT.mistral([one])}`)).toMatchObject({ kind: 'tool', reasoning: 'hmm [TOOL_CALLS]' });
  });
  it('Qwen3 keeps its strict rule: a tag inside <think> still counts (unchanged ReTool behaviour)', () => {
    expect(parse('qwen3', `<think>use <tool_call> maybe</think>\n${EMIT.qwen3([one])}`)).toMatchObject({ kind: 'invalid', reason: 'multiple_tool_calls' });
  });
  it('Llama 3.1: <|python_tag|> followed by code is a call of the code tool; Mistral pre-v11 JSON list form parses', () => {
    expect(parse('llama3', '<|python_tag|>print(2 ** 10)')).toMatchObject({
      kind: 'tool',
      call: { function: { name: 'code_interpreter', arguments: { code: 'print(2 ** 10)' } } },
    });
    expect(parse('llama3', '<|python_tag|>{"name": "search", "arguments": {"query": "x"}}')).toMatchObject({
      kind: 'tool',
      call: { function: { name: 'search' } },
    });
    expect(
      parse('mistral', '[TOOL_CALLS] [{"name": "search", "arguments": {"query": "x"}}, {"name": "search", "arguments": {"query": "y"}}]', true),
    ).toMatchObject({ kind: 'tool', calls: [{}, {}] });
    expect(parse('mistral', '[TOOL_CALLS]search[CALL_ID]a1b2c3d4e[ARGS]{"query": "x"}')).toMatchObject({
      kind: 'tool',
      call: { id: 'a1b2c3d4e', function: { name: 'search' } },
    });
  });
});
