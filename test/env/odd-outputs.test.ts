import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  EnvironmentOutputError,
  defineTool,
  exactMatch,
  isAgentRLError,
  mixEnvironments,
  runGroup,
  toolEnvironment,
  DEFAULT_BUDGETS,
  type Environment,
  type Example,
  type Message,
  type ToolContext,
} from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { scaffold } from '../../apps/cli/init.js';
import { localRenderer } from '../helpers/local-renderer.js';

// Smaller hazards of one kind each: a tool or environment that returns the wrong shape, a mixed environment asked
// about an example it does not hold, and a name that String.replace would read as a replacement pattern.
const initialMessages = (e: Example): Message[] => [{ role: 'user', content: e.question }];
const ex: Example = { id: 'q', question: 'go', answer: '' };
const callText = (name: string) => `<tool_call>\n${JSON.stringify({ name, arguments: {} })}\n</tool_call>`;

/** One trajectory: the model calls `tool` once, then answers `done`. */
async function rollout(env: Environment, tool: string) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ prompt }) => (prompt.includes('<tool_response>') ? 'done' : callText(tool)) });
  const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
  return t!;
}

describe('a tool that returns a number, undefined, an object… : a named observation, never a TypeError', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a number', 42, /^42$/],
    ['zero', 0, /^0$/],
    ['a boolean', false, /^false$/],
    ['an object', { a: 1, b: [2] }, /^\{"a":1,"b":\[2\]\}$/],
    ['an array that is not messages', [1, 'x'], /^\[1,"x"\]$/],
    ['null', null, /^null$/],
    ['a bigint', 12n, /^12$/],
    ['undefined', undefined, /returned undefined; a tool returns a string, an array of messages, or a JSON value/],
    ['a function', () => 1, /returned a function/],
    [
      'a cyclic object',
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
      /returned an object/,
    ],
  ];
  it.each(cases)('%s', async (_, value, expected) => {
    const tool = defineTool({ name: 'odd', description: 'returns something odd', inputSchema: z.object({}), execute: (() => value) as never });
    const t = await rollout(toolEnvironment({ name: 'odd', tools: [tool], initialMessages }), 'odd');
    expect(t.stopReason, JSON.stringify(t.error)).toBe('answer');
    expect(t.turns[0]!.observation![0]!.content).toMatch(expected);
  });

  it('a custom environment whose observation is not messages ends that trajectory with EnvironmentOutputError naming it', async () => {
    for (const [observation, said] of [
      [42, /number 42/],
      ['text', /string text/],
      [undefined, /undefined/],
      [[{ role: 'tool' }], /array of 1/],
      [{ role: 'tool', content: 'x' }, /an object/],
    ] as const) {
      const env: Environment = {
        name: 'bad',
        tools: [{ type: 'function', function: { name: 'odd', description: 'd', parameters: { type: 'object' } } }],
        initialMessages,
        step: async () => ({ done: false, observation }) as never,
      };
      const t = await rollout(env, 'odd');
      expect(t.stopReason).toBe('error');
      expect(t.error).toMatchObject({ stage: 'env_step', code: 'ENV_OUTPUT' });
      expect(t.error!.message).toMatch(said);
      expect(t.error!.message).toMatch(/expected an array of messages/);
      expect(t.error!.cause).toBeInstanceOf(EnvironmentOutputError);
    }
    const odd = [{ type: 'function' as const, function: { name: 'odd', description: 'd', parameters: { type: 'object' } } }];
    for (const outcome of [undefined, null, 5, { observation: [] }]) {
      const none: Environment = { name: 'none', tools: odd, initialMessages, step: async () => outcome as never };
      expect((await rollout(none, 'odd')).error).toMatchObject({ stage: 'env_step', code: 'ENV_OUTPUT' });
    }
  });
});

describe('mixEnvironments: an example from no environment of the mix is a typed error', () => {
  const env = (name: string): Environment => ({ name, tools: [], initialMessages, step: async () => ({ done: true }) });
  const mixed = mixEnvironments([
    { env: env('a'), dataset: [ex], reward: exactMatch() },
    { env: env('b'), dataset: [ex], reward: exactMatch() },
  ]);
  const ctxOf = (example: Example) => ({ example }) as unknown as ToolContext;
  it.each([
    ['no tag', { id: 'x', question: 'q', answer: '' }],
    ['an unknown name', { id: 'x', question: 'q', answer: '', meta: { 'agentrl.env': 'zzz' } }],
    ['a non-string tag', { id: 'x', question: 'q', answer: '', meta: { 'agentrl.env': 7 } }],
  ] as Array<[string, Example]>)('%s', async (_, stranger) => {
    await expect(mixed.env.step({ kind: 'answer', content: '' } as never, ctxOf(stranger))).rejects.toBeInstanceOf(ConfigError);
    await expect(Promise.resolve().then(() => mixed.reward({} as never, stranger))).rejects.toSatisfy(isAgentRLError);
    expect(() => mixed.env.initialMessages(stranger)).toThrow(ConfigError);
    expect(() => mixed.env.envFor!(stranger)).toThrow(/is not from this mix/);
  });
});

describe('agentrl init --name: the name is written as given, never read as a replacement pattern', () => {
  it.each(["a$'b", 'a$&b', 'a$`b', 'a$$b', 'a$1b', 'a$<x>b'])('%s', async (name) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentrl-init-')), 'p');
    await scaffold({ dir, template: 'tool-env', agentrlSpec: '^0.1.0', name });
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain(name);
    expect(readme).not.toContain('__NAME__');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name).toBe(name);
  });
});
