import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseAssistant } from '../../src/chat/parse-assistant.js';
import type { ToolDefinition } from '../../src/types/message.js';

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'code_interpreter',
      description: 'Run Python code and return printed output.',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
];
const stopStrings = ['<|im_end|>'];
const call = (code: string, name = 'code_interpreter') => `<tool_call>\n${JSON.stringify({ name, arguments: { code } })}\n</tool_call>`;
const parse = (text: string) => parseAssistant(text, { tools, stopStrings });

describe('parseAssistant: the seed three paths', () => {
  it('returns tool with the text before the block as content and the parsed call', () => {
    const text = `<think>\nCompute it.\n</think>\n\nLet me run it.\n${call('print(2**100 % 7)')}<|im_end|>`;
    const a = parse(text);
    expect(a).toEqual({
      kind: 'tool',
      content: '<think>\nCompute it.\n</think>\n\nLet me run it.',
      call: { type: 'function', function: { name: 'code_interpreter', arguments: { code: 'print(2**100 % 7)' } } },
      calls: [{ type: 'function', function: { name: 'code_interpreter', arguments: { code: 'print(2**100 % 7)' } } }],
      raw: text,
      reasoning: 'Compute it.',
    });
  });

  it('returns answer when the completion has no tool tags', () => {
    const a = parse('The answer is \\boxed{2}.\n<|im_end|>');
    expect(a).toEqual({ kind: 'answer', content: 'The answer is \\boxed{2}.', raw: 'The answer is \\boxed{2}.\n<|im_end|>' });
  });

  it('returns invalid (not answer) when an opening tag is never closed', () => {
    // Hazard: the seed maps "<tool_call> without a match" to invalid; treating it as an answer would reward a broken call.
    expect(parse('Let me run\n<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(1)"}}')).toMatchObject({
      kind: 'invalid',
      reason: 'stray_tool_tag',
    });
  });

  it('accepts trailing whitespace and stop text after the block', () => {
    expect(parse(`${call('print(1)')}\n  \n<|im_end|>\n`).kind).toBe('tool');
    expect(parse(`${call('print(1)')}`).kind).toBe('tool');
  });
});

describe('parseAssistant: malformed completions are invalid values with a reason, never repaired', () => {
  const cases: [string, string, string][] = [
    ['two calls', `${call('print(1)')}\n${call('print(2)')}`, 'multiple_tool_calls'],
    ['call then text', `${call('print(1)')}\nSo the answer is 1.`, 'text_after_tool_call'],
    ['empty block', '<tool_call>\n\n</tool_call>', 'empty_tool_call'],
    ['stray closing tag only', 'done </tool_call>', 'stray_tool_tag'],
    ['closing tag before the block', `oops </tool_call> ${call('print(1)')}`, 'stray_tool_tag'],
    ['closing tag after the block', `${call('print(1)')}\n</tool_call>`, 'stray_tool_tag'],
    ['bad JSON', '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(1)"}\n</tool_call>', 'bad_tool_json'],
    ['JSON without name', '<tool_call>\n{"arguments": {"code": "print(1)"}}\n</tool_call>', 'bad_tool_json'],
    ['JSON array body', '<tool_call>\n[1, 2]\n</tool_call>', 'bad_tool_json'],
    ['arguments not an object', '<tool_call>\n{"name": "code_interpreter", "arguments": "print(1)"}\n</tool_call>', 'bad_arguments'],
    ['arguments missing', '<tool_call>\n{"name": "code_interpreter"}\n</tool_call>', 'bad_arguments'],
    ['code missing', '<tool_call>\n{"name": "code_interpreter", "arguments": {"src": "print(1)"}}\n</tool_call>', 'bad_arguments'],
    ['code not a string', '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": 12}}\n</tool_call>', 'bad_arguments'],
    ['unknown tool', call('print(1)', 'python'), 'unknown_tool'],
    ['plain code body in json mode', '<tool_call>\nprint(1)\n</tool_call>', 'bad_tool_json'],
    ['opening tag in the thinking', `<think>I could use <tool_call> here</think>\n${call('print(1)')}`, 'multiple_tool_calls'],
  ];
  it.each(cases)('%s', (_name, text, reason) => {
    const a = parse(text);
    expect(a).toMatchObject({ kind: 'invalid', reason, raw: text });
  });

  it('keeps the whole trimmed completion (without stop text) as content of an invalid action', () => {
    expect(parse(`${call('print(1)')}\ntrailing<|im_end|>`).content).toBe(`${call('print(1)')}\ntrailing`);
  });
});

describe('parseAssistant: JSON bodies whose code contains awkward characters', () => {
  it('parses code with quotes, newlines, braces and a literal </tool_call> inside the JSON string', () => {
    // Hazard: a naive regex up to the first </tool_call> would cut the code and reject a valid call.
    const code = 's = "a \\"quoted\\" }"\nprint(\'</tool_call>\', s, {1: 2})\nprint("<tool_call>")';
    const a = parse(`Check:\n${call(code)}<|im_end|>`);
    expect(a.kind).toBe('tool');
    if (a.kind === 'tool') {
      expect(a.call.function.arguments).toEqual({ code });
      expect(a.content).toBe('Check:');
    }
  });

  it('round-trips any code string written as a JSON tool call', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
        (code) => {
          const a = parse(call(code));
          return a.kind === 'tool' && a.call.function.arguments.code === code;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts any tool name when no tool list is given', () => {
    expect(parseAssistant(call('print(1)', 'anything')).kind).toBe('tool');
  });
});

describe("parseAssistant: 'code' format (seed style, the body is the code)", () => {
  const parseCode = (text: string) => parseAssistant(text, { tools, stopStrings, format: 'code' });
  it('sends the trimmed body to code_interpreter', () => {
    const a = parseCode('Run it.\n<tool_call>\nx = 1 < 2\nprint("yes" if x else "no")\n</tool_call><|im_end|>');
    expect(a).toMatchObject({
      kind: 'tool',
      content: 'Run it.',
      call: { type: 'function', function: { name: 'code_interpreter', arguments: { code: 'x = 1 < 2\nprint("yes" if x else "no")' } } },
    });
  });
  it('uses codeToolName for the call', () => {
    const a = parseAssistant('<tool_call>print(1)</tool_call>', { format: 'code', codeToolName: 'python' });
    expect(a.kind === 'tool' && a.call.function.name).toBe('python');
  });
  it.each([
    ['empty code', '<tool_call>\n  \n</tool_call>', 'empty_tool_call'],
    ['two calls', '<tool_call>a</tool_call><tool_call>b</tool_call>', 'multiple_tool_calls'],
    ['code containing the closing tag (seed: first closing tag ends the block)', '<tool_call>print("</tool_call>")</tool_call>', 'stray_tool_tag'],
    ['text after', '<tool_call>print(1)</tool_call> and more', 'text_after_tool_call'],
    ['unclosed', '<tool_call>print(1)', 'stray_tool_tag'],
  ])('%s → invalid', (_n, text, reason) => {
    expect(parseCode(text)).toMatchObject({ kind: 'invalid', reason });
  });
});

// Hazard: a generic parser that knows one tool's argument rules (here the code interpreter's "non-blank code")
// misjudges every other environment's calls. The rule lives in the environment (`checkToolCall`).
describe('parseAssistant is generic; tool-specific rules live in the environment', () => {
  it('parses a call with a blank `code` argument as a tool call (the code interpreter refuses it, not the parser)', () => {
    expect(parseAssistant(call('   '), { tools: [] as ToolDefinition[] }).kind).toBe('invalid'); // not offered
    const tools: ToolDefinition[] = [
      {
        type: 'function',
        function: { name: 'code_interpreter', description: '', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } },
      },
    ];
    expect(parseAssistant(call('   '), { tools }).kind).toBe('tool');
  });
});
