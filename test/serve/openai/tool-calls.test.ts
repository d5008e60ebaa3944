import { describe, expect, it } from 'vitest';
import { extractToolCalls } from '../../../src/serve/openai/tool-calls.js';

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
    for (const bad of ['<tool_call>\n{"name": "a", "arguments": {}\n', '<tool_call>\nnot json\n</tool_call>', `${block('a', {})} trailing text`, '<tool_call>\n{"arguments": {}}\n</tool_call>', '<tool_call>\n{"name": "a", "arguments": [1]}\n</tool_call>']) {
      expect(extractToolCalls(`x ${bad}`)).toEqual({ content: `x ${bad}`, toolCalls: [] });
    }
  });
});
