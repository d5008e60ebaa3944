import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, DEFAULT_BUDGETS, Trainer, defineTool, exactMatch, mixEnvironments, runGroup, toolEnvironment, type Example } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const data = (prefix: string, n: number, answer = 'ok'): Example[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, question: `${prefix} question ${i}`, answer }));
const echo = defineTool({ name: 'echo', description: 'Echoes text.', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text });
const shout = defineTool({
  name: 'shout',
  description: 'Upper-cases text.',
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});
const envA = toolEnvironment({
  name: 'echoes',
  tools: [echo],
  initialMessages: (e) => [
    { role: 'system', content: 'ENV-A' },
    { role: 'user', content: e.question },
  ],
});
const envB = toolEnvironment({
  name: 'shouts',
  tools: [shout],
  initialMessages: (e) => [
    { role: 'system', content: 'ENV-B' },
    { role: 'user', content: e.question },
  ],
});
const envOf = (e: Example) => e.meta?.['agentrl.env'];

/** Hazard: a mix that ignores its weights, runs an example in the wrong environment, or restarts an environment's data after a resume. */
describe('mixEnvironments', () => {
  it('draws groups by weight, each environment through its whole data before repeating, with unique ids; deterministic per seed', () => {
    const a = data('a', 30);
    const b = data('b', 10);
    const m = mixEnvironments(
      [
        { env: envA, dataset: a, reward: exactMatch(), weight: 3 },
        { env: envB, dataset: b, reward: exactMatch(), weight: 1 },
      ],
      { seed: 7 },
    );
    const shareA = m.dataset.filter((e) => envOf(e) === 'echoes').length / m.dataset.length;
    expect(shareA).toBeGreaterThan(0.6);
    expect(shareA).toBeLessThan(0.9);
    expect(new Set(m.dataset.map((e) => e.id)).size).toBe(m.dataset.length);
    const firstA = m.dataset
      .filter((e) => envOf(e) === 'echoes')
      .slice(0, 30)
      .map((e) => e.id)
      .sort();
    expect(firstA).toEqual(a.map((e) => `echoes/${e.id}`).sort()); // a whole pass over a before any repeat
    expect(
      mixEnvironments(
        [
          { env: envA, dataset: a, reward: exactMatch(), weight: 3 },
          { env: envB, dataset: b, reward: exactMatch(), weight: 1 },
        ],
        { seed: 7 },
      ).dataset.map((e) => e.id),
    ).toEqual(m.dataset.map((e) => e.id));
    // weights 1:1 over equal data: about half each, and a different seed gives another order
    const even = mixEnvironments(
      [
        { env: envA, dataset: data('a', 200), reward: exactMatch() },
        { env: envB, dataset: data('b', 200), reward: exactMatch() },
      ],
      { seed: 1 },
    );
    expect(Math.abs(even.dataset.filter((e) => envOf(e) === 'echoes').length / even.dataset.length - 0.5)).toBeLessThan(0.08);
  });

  it("runs each example's group in its own environment (tools, prompt) and scores it with its own reward", async () => {
    const renderer = await localRenderer();
    const prompts: string[] = [];
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt }) => {
        prompts.push(prompt);
        if (prompt.includes('<tool_response>')) return 'done';
        return prompt.includes('ENV-A')
          ? '<tool_call>\n{"name": "echo", "arguments": {"text": "hi"}}\n</tool_call>'
          : '<tool_call>\n{"name": "shout", "arguments": {"text": "hi"}}\n</tool_call>';
      },
    });
    const m = mixEnvironments([
      { env: envA, dataset: data('a', 2), reward: () => ({ reward: 1, correct: true, validFormat: true }) },
      { env: envB, dataset: data('b', 2), reward: () => ({ reward: -1, correct: false, validFormat: true }), name: 'loud' },
    ]);
    expect(m.env.tools.map((t) => t.function.name)).toEqual(['echo', 'shout']);
    const exA = m.dataset.find((e) => envOf(e) === 'echoes')!;
    const exB = m.dataset.find((e) => envOf(e) === 'loud')!;
    const [ta] = await runGroup({ sampler, renderer, env: m.env, budgets: DEFAULT_BUDGETS }, { example: exA, groupSize: 1 });
    const [tb] = await runGroup({ sampler, renderer, env: m.env, budgets: DEFAULT_BUDGETS }, { example: exB, groupSize: 1 });
    expect(ta!.messages.find((x) => x.role === 'tool')!.content).toBe('hi');
    expect(tb!.messages.find((x) => x.role === 'tool')!.content).toBe('HI');
    expect(prompts[0]).toContain('echo(');
    expect(prompts[0]).not.toContain('shout(');
    expect(await m.reward(ta!, exA)).toMatchObject({ reward: 1 });
    expect(await m.reward(tb!, exB)).toMatchObject({ reward: -1 });
  });

  it('reports metrics per environment and resumes each environment where it was', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: ({ prompt, sample }) => (sample % 2 === 0 ? 'ok' : prompt.includes('ENV-A') ? 'no' : 'nope') });
    const mix = () =>
      mixEnvironments(
        [
          { env: envA, dataset: data('a', 6), reward: exactMatch(), weight: 2 },
          { env: envB, dataset: data('b', 4), reward: exactMatch(), weight: 1, name: 'loud' },
        ],
        { seed: 3 },
      );
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-mix-'));
    const run = async (opts: { maxSteps: number; resume?: string; logDir?: string }) => {
      const m = mix();
      const seen: string[][] = [];
      const metrics: Record<string, number>[] = [];
      const trainer = new Trainer({
        ...m,
        backend: mockBackend({ renderer, sampler }),
        loss: { kind: 'importance_sampling' },
        groupSize: 2,
        questionsPerBatch: 3,
        progress: false,
        rollout: { streaming: false },
        ...opts,
      });
      trainer.on('rollout:start', () => seen.push([]));
      trainer.on('group', (g) => seen[seen.length - 1]!.push(g.exampleId));
      trainer.on('step', (s) => metrics.push(s.metrics));
      await trainer.train();
      return { seen, metrics };
    };
    try {
      const straight = await run({ maxSteps: 3 });
      const m0 = straight.metrics[0]!;
      expect(m0['env/echoes/reward/mean']).toBeDefined();
      expect((m0['env/echoes/groups'] ?? 0) + (m0['env/loud/groups'] ?? 0)).toBe(3);
      expect(m0['reward/mean']).toBeDefined();
      await run({ maxSteps: 1, logDir: dir, checkpointEvery: 1 } as never);
      const resumed = await run({ maxSteps: 3, logDir: dir, resume: 'latest', checkpointEvery: 1 } as never);
      expect(resumed.seen.map((s) => [...s].sort())).toEqual(straight.seen.slice(1).map((s) => [...s].sort()));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects an empty mix, bad weights and clashing names', () => {
    expect(() => mixEnvironments([])).toThrow(ConfigError);
    expect(() => mixEnvironments([{ env: envA, dataset: data('a', 1), reward: exactMatch(), weight: 0 }])).toThrow(/weight/);
    expect(() =>
      mixEnvironments([
        { env: envA, dataset: data('a', 1), reward: exactMatch() },
        { env: envA, dataset: data('b', 1), reward: exactMatch() },
      ]),
    ).toThrow(/named 'echoes'/);
  });
});
