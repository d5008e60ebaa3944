import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool, toolEnvironment, runGroup, DEFAULT_BUDGETS } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

const convert = defineTool({
  name: 'convert_units',
  description: 'Convert a length between km and mi.',
  inputSchema: z.object({ value: z.number().nonnegative(), from: z.enum(['km', 'mi']), to: z.enum(['km', 'mi']) }),
  execute: ({ value, from, to }) => {
    expectTypeOf(value).toBeNumber();
    expectTypeOf(from).toEqualTypeOf<'km' | 'mi'>();
    const km = from === 'km' ? value : value * 1.609344;
    return (to === 'km' ? km : km / 1.609344).toFixed(3);
  },
});

/** Hazard: a newcomer's tool whose schema the model never sees, or whose bad arguments crash the rollout. */
describe('defineTool / toolEnvironment', () => {
  it('renders the zod schema as the tool JSON schema', () => {
    expect(convert.definition.function.name).toBe('convert_units');
    expect(convert.definition.function.parameters).toMatchObject({
      type: 'object',
      properties: { value: { type: 'number', minimum: 0 }, from: { enum: ['km', 'mi'] }, to: { enum: ['km', 'mi'] } },
      required: ['value', 'from', 'to'],
    });
    expect(convert.definition.function.parameters).not.toHaveProperty('$schema');
  });

  it('runs typed calls through the real rollout engine; schema violations and throws become observations', async () => {
    const renderer = await localRenderer();
    const boom = defineTool({
      name: 'boom',
      description: 'Always fails.',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const env = toolEnvironment({ name: 'units', tools: [convert, boom], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
    expect(env.tools.map((t) => t.function.name)).toEqual(['convert_units', 'boom']);
    const sampler = scriptedSampler({
      renderer,
      script: ({ call: n, sample }) => {
        if (n === 0)
          return [call('convert_units', { value: 10, from: 'mi', to: 'km' }), call('convert_units', { value: -1, from: 'km', to: 'mi' }), call('boom', {})][
            sample
          ]!;
        return 'done: \\boxed{16.093}';
      },
    });
    const group = await runGroup(
      { sampler, renderer, env, budgets: DEFAULT_BUDGETS },
      { example: { id: 'u1', question: '10 mi in km?', answer: '16.093' }, groupSize: 3 },
    );
    const observed = group.map((t) => t.messages.find((m) => m.role === 'tool')?.content);
    expect(observed[0]).toBe('16.093');
    expect(observed[1]).toMatch(/^Error: bad arguments for convert_units: value: /);
    expect(observed[2]).toBe('Error: disk on fire');
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'answer', 'answer']);
  });

  it('refuses bad tool names and duplicate names', () => {
    expect(() => defineTool({ name: 'bad name', description: '', inputSchema: z.object({}), execute: () => '' })).toThrow(/not a tool name/);
    expect(() => toolEnvironment({ name: 'x', tools: [convert, convert], initialMessages: () => [] })).toThrow(/share a name/);
  });
});
