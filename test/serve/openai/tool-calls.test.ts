import { describe, expect, it } from 'vitest';
import { extractToolCalls } from '../../../src/endpoint/openai/tool-calls.js';
import { parseAssistant } from '../../../src/chat/parse-assistant.js';
import { FAMILY_IDS, type FamilyId } from '../../../src/chat/families/types.js';
import { EMIT } from '../../chat/families/emit.js';

const block = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('extractToolCalls', () => {
  it('splits text and every <tool_call> block into content and OpenAI tool calls (arguments as a JSON string)', () => {
    const r = extractToolCalls(`I will run two.\n${block('a', { x: 1 })}\n${block('b', { code: 'print("}</tool_call>")' })}\n`);
    expect(r.content).toBe('I will run two.');
    expect(r.toolCalls).toEqual([
      { name: 'a', arguments: '{"x":1}' },
      { name: 'b', arguments: JSON.stringify({ code: 'print("}</tool_call>")' }) },
    ]);
  });

  it('content is null when the completion is only tool calls, and the text itself when there are none', () => {
    expect(extractToolCalls(block('a', {})).content).toBeNull();
    expect(extractToolCalls('just an answer')).toEqual({ content: 'just an answer', toolCalls: [] });
  });

  it('a malformed block leaves the whole completion as content, with no calls', () => {
    // Hazard: returning half-parsed calls (or dropping text) for a completion the model got wrong.
    for (const bad of [
      '<tool_call>\n{"name": "a", "arguments": {}\n',
      '<tool_call>\nnot json\n</tool_call>',
      `${block('a', {})} trailing text`,
      '<tool_call>\n{"arguments": {}}\n</tool_call>',
      '<tool_call>\n{"name": "a", "arguments": [1]}\n</tool_call>',
    ]) {
      expect(extractToolCalls(`x ${bad}`)).toEqual({ content: `x ${bad}`, toolCalls: [] });
    }
  });
});

describe('extractToolCalls with the served family parser', () => {
  const as = (family: FamilyId) => (t: string) => parseAssistant(t, { family, parallelToolCalls: true });
  it('returns every call of each family, in order, with the model-written ids where the family has them', () => {
    const calls = [
      { name: 'a', args: { x: 'one' } },
      { name: 'b', args: { q: 'y "z"' } },
    ]; // strings: XML without a schema keeps text
    for (const family of FAMILY_IDS.filter((f) => f !== 'gpt_oss')) {
      const r = extractToolCalls(EMIT[family](calls), as(family));
      expect(
        r.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]),
        family,
      ).toEqual(calls.map((c) => [c.name, c.args]));
      if (family === 'kimi_k2') expect(r.toolCalls.map((c) => c.id)).toEqual(['functions.a:0', 'functions.b:1']);
    }
  });
  it('harmony: a call is a tool call; an answer is its final channel, without the analysis', () => {
    expect(extractToolCalls(EMIT.gpt_oss([{ name: 'a', args: { x: 1 } }]), as('gpt_oss')).toolCalls).toEqual([{ name: 'a', arguments: '{"x":1}' }]);
    expect(extractToolCalls('<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Paris.', as('gpt_oss'))).toEqual({
      content: 'Paris.',
      toolCalls: [],
    });
  });
  it('a malformed call of any family leaves the whole text as content', () => {
    for (const [family, bad] of [
      ['llama3', '{"name": "a", "parameters": {'],
      ['deepseek_v3', '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n{}'],
      ['mistral', '[TOOL_CALLS]a{}'],
    ] as const) {
      expect(extractToolCalls(bad, as(family))).toEqual({ content: bad, toolCalls: [] });
    }
  });
});
