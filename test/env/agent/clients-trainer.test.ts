import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { Trainer, agentEnvironment, exactMatch, type AgentEnvironmentOptions, type SamplingClient } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call, openaiToolLoop, responsesToolLoop } from './helpers.js';

setTracingDisabled(true);
const AGENT_PY = fileURLToPath(new URL('../../fixtures/agents/add_agent.py', import.meta.url));

const add = tool({
  name: 'add',
  description: 'Adds two integers.',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: async ({ a, b }) => String(a + b),
});
const ADD: Anthropic.Tool = {
  name: 'add',
  description: 'Adds two integers.',
  input_schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
};

/** Each client kind, unchanged, as the agent of one rollout. */
const kinds: [string, AgentEnvironmentOptions][] = [
  ['openai chat.completions (stream)', { run: (a) => openaiToolLoop(a, { stream: true }) }],
  ['openai responses.create', { run: (a) => responsesToolLoop(a) }],
  ['openai responses.create (stream, previous_response_id)', { run: (a) => responsesToolLoop(a, { stream: true, chain: true }) }],
  [
    '@openai/agents Agent, default provider',
    {
      run: async ({ baseURL, apiKey, example, signal }) =>
        String(
          (
            await new Runner({ modelProvider: new OpenAIProvider({ baseURL, apiKey }) }).run(
              new Agent({ name: 'calc', instructions: 'Use the add tool.', tools: [add] }),
              example.question,
              { signal, maxTurns: 6 },
            )
          ).finalOutput ?? '',
        ),
    },
  ],
  [
    '@anthropic-ai/sdk messages.stream',
    {
      run: async ({ anthropicBaseURL, apiKey, model, example, signal }) => {
        const client = new Anthropic({ baseURL: anthropicBaseURL, apiKey, maxRetries: 0 });
        const messages: Anthropic.MessageParam[] = [{ role: 'user', content: example.question }];
        for (let i = 0; i < 6; i++) {
          const m = await client.messages.stream({ model, max_tokens: 128, tools: [ADD], messages }, { signal }).finalMessage();
          if (m.stop_reason !== 'tool_use') return m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
          messages.push({ role: 'assistant', content: m.content });
          messages.push({
            role: 'user',
            content: m.content.flatMap((b) =>
              b.type === 'tool_use'
                ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: String((b.input as { a: number }).a + (b.input as { b: number }).b) }]
                : [],
            ),
          });
        }
        return 'gave up';
      },
    },
  ],
  ['Python standard-library program (subprocess, chat)', { command: ['/usr/bin/python3', AGENT_PY, '--chat'] }],
  ['Python standard-library program (subprocess, responses)', { command: ['/usr/bin/python3', AGENT_PY, '--responses'] }],
  ['Python standard-library program (subprocess, anthropic)', { command: ['/usr/bin/python3', AGENT_PY, '--anthropic'] }],
];

/** Hazard: a client kind that rolls out but whose recorded tokens are not the tokens sampled, or that never reaches the update. */
describe('every client kind trains one step; its datums are the sampled tokens, token for token', () => {
  for (const [label, opts] of kinds) {
    it(label, async () => {
      const renderer = await localRenderer();
      let finals = 0;
      const inner = scriptedSampler({
        renderer,
        script: ({ prompt }) => {
          const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
          return seen.length === 0 ? call('add', { a: 2, b: 40 }) : finals++ % 2 === 0 ? `${seen[0]}` : `not ${seen[0]}`; // half the group right
        },
      });
      const sampled: { prompt: readonly number[]; tokens: readonly number[] }[] = [];
      const sampler: SamplingClient = {
        ...inner,
        sample: async (p, params) => {
          const seqs = await inner.sample(p, params);
          for (const s of seqs) sampled.push({ prompt: p, tokens: s.tokens });
          return seqs;
        },
      };
      const backend = mockBackend({ renderer, sampler });
      const env = agentEnvironment(opts);
      try {
        const trainer = new Trainer({
          backend,
          env,
          reward: exactMatch(),
          loss: { kind: 'importance_sampling' },
          dataset: [{ id: 'q1', question: 'What is 2 + 40?', answer: '42' }],
          groupSize: 2,
          questionsPerBatch: 1,
          maxSteps: 1,
          progress: false,
        });
        const steps: Record<string, number>[] = [];
        trainer.on('step', (e) => steps.push(e.metrics));
        await trainer.train();
        expect(steps).toHaveLength(1);
        expect(steps[0]!['rollout/error_rate'] ?? 0).toBe(0);
        expect(steps[0]!['reward/correct']).toBeCloseTo(0.5);
        const datums = backend.forwardBackwardCalls.flatMap((c) => c.datums);
        expect(datums).toHaveLength(2);
        expect(sampled).toHaveLength(4);
        for (const d of datums) {
          const full = [...d.modelInput, d.targetTokens.at(-1)!];
          const second = sampled.find((s) => JSON.stringify([...s.prompt, ...s.tokens]) === JSON.stringify(full));
          expect(second, "the datum is the last call's prompt + completion exactly").toBeDefined();
          const first = sampled.find(
            (s) => s !== second && JSON.stringify([...s.prompt, ...s.tokens]) === JSON.stringify(second!.prompt.slice(0, s.prompt.length + s.tokens.length)),
          );
          expect(first, 'the last prompt extends the first call exactly').toBeDefined();
          expect(d.targetTokens.filter((_, i) => d.mask[i] === 1)).toEqual([...first!.tokens, ...second!.tokens]);
        }
      } finally {
        await env.close();
      }
    });
  }
});
