// agentEnvironment's recording endpoint: completions/s of the same chat request sampled directly (render the messages,
// sampler.sample) vs through the per-rollout endpoint on each of its three wires with the official clients — chat
// completions and responses (`openai`), messages (`@anthropic-ai/sdk`) — (HTTP on loopback, request parsing,
// admission, rendering, recording, the JSON answer), side by side in one run, interleaved in rounds.
// Two samplers: a scripted one (no model: the endpoint's own cost per completion) and the embedded engine
// (localBackend, untrained weights: what the cost is next to real sampling on the CPU).
// Both rates per side: wall-clock and per CPU-second of this process; ratios paired within each round (see compare).
// Run: npm run bench:agent-endpoint   (ROUNDS=3, N=200 scripted / 24 engine completions per round and side)
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { AgentRunArgs } from '../src/index.js';
import { DEFAULT_BUDGETS, agentEnvironment, localBackend, runGroup, type Renderer, type SamplingClient } from '../src/index.js';
import { scriptedSampler } from '../src/testing/index.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 1);
const TOKENS = 32;
const SYSTEM = 'You are a careful assistant.';
const USER = 'Name three prime numbers and explain briefly why each is prime.';
const messages = [
  { role: 'system' as const, content: SYSTEM },
  { role: 'user' as const, content: USER },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall-clock and CPU (this process, all threads: user + system) rates of one measurement, completions per second. */
interface Rate {
  readonly wall: number;
  readonly cpu: number;
}

/** Starts a measurement of `n` completions; the returned function ends it. */
function meter(n: number): () => Rate {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { wall: n / ((performance.now() - t0) / 1000), cpu: n / ((c.user + c.system) / 1e6) };
  };
}

/** n completions of `messages`, `CONCURRENCY` at a time, straight from the sampler. */
async function direct(sampler: SamplingClient, renderer: Renderer, n: number): Promise<Rate> {
  const end = meter(n);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = 0; i < n / CONCURRENCY; i++) {
        const prompt = renderer.renderPrompt(messages, { addGenerationPrompt: true });
        await sampler.sample(prompt, { numSamples: 1, maxTokens: TOKENS, temperature: 1, stop: renderer.stopTokens });
      }
    }),
  );
  return end();
}

type Wire = 'chat' | 'responses' | 'messages';

/** One agent that makes `count` completions of `messages` on `wire` with its official client. */
function wireAgent(wire: Wire, count: number) {
  return async ({ baseURL, anthropicBaseURL, apiKey, model, signal }: AgentRunArgs): Promise<string> => {
    const openai = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: anthropicBaseURL, apiKey, maxRetries: 0 });
    for (let i = 0; i < count; i++) {
      if (wire === 'chat') await openai.chat.completions.create({ model, messages, max_tokens: TOKENS }, { signal });
      else if (wire === 'responses') await openai.responses.create({ model, instructions: SYSTEM, input: USER, max_output_tokens: TOKENS }, { signal });
      else await anthropic.messages.create({ model, system: SYSTEM, messages: [{ role: 'user', content: USER }], max_tokens: TOKENS }, { signal });
    }
    return 'done';
  };
}

/** The same n completions requested by `CONCURRENCY` agent rollouts through the recording endpoint on `wire`. */
async function throughEndpoint(sampler: SamplingClient, renderer: Renderer, n: number, wire: Wire): Promise<Rate> {
  const env = agentEnvironment({ run: wireAgent(wire, n / CONCURRENCY) });
  try {
    await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 1e6 } },
      { example: { id: 'warm', question: '', answer: '' }, groupSize: 1 },
    ); // server start, JIT
    const end = meter(n);
    const group = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 1e6 } },
      { example: { id: 'b', question: '', answer: '' }, groupSize: CONCURRENCY },
    );
    const rate = end();
    const recorded = group.reduce((k, t) => k + t.turns.length, 0);
    if (recorded !== n) throw new Error(`recorded ${recorded} completions, expected ${n}`);
    return rate;
  } finally {
    await env.close();
  }
}

const WIRES: Wire[] = ['chat', 'responses', 'messages'];

/**
 * Each round measures direct, then every wire, then direct again; a wire's ratio in that round is its rate over the
 * mean of the two direct rates around it (paired, so a change of load between rounds cancels), and the figure is the
 * median over rounds. Wall: completions per second of wall time; CPU: completions per CPU-second of this process
 * (the in-process agent's client included), which other processes' load on a shared machine barely moves.
 */
async function compare(label: string, sampler: SamplingClient, renderer: Renderer, n: number): Promise<void> {
  const d: Rate[] = [];
  const e = new Map<Wire, Rate[]>(WIRES.map((w) => [w, []]));
  const ratios = new Map<Wire, Rate[]>(WIRES.map((w) => [w, []]));
  await direct(sampler, renderer, Math.min(n, 8)); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const before = await direct(sampler, renderer, n);
    const got = new Map<Wire, Rate>();
    for (const w of WIRES) got.set(w, await throughEndpoint(sampler, renderer, n, w));
    const after = await direct(sampler, renderer, n);
    d.push(before, after);
    const base = { wall: (before.wall + after.wall) / 2, cpu: (before.cpu + after.cpu) / 2 };
    for (const w of WIRES) {
      const x = got.get(w)!;
      e.get(w)!.push(x);
      ratios.get(w)!.push({ wall: x.wall / base.wall, cpu: x.cpu / base.cpu });
    }
  }
  const med = (xs: Rate[], k: keyof Rate) => median(xs.map((x) => x[k]));
  const fmt = (x: number) => x.toFixed(1).padStart(8);
  console.log(`${label.padEnd(34)} direct   ${fmt(med(d, 'wall'))} compl/s | ${fmt(med(d, 'cpu'))} compl/CPU-s`);
  for (const w of WIRES) {
    const name = w === 'chat' ? '/v1/chat/completions' : w === 'responses' ? '/v1/responses' : '/v1/messages';
    const rw = med(ratios.get(w)!, 'wall');
    const rc = med(ratios.get(w)!, 'cpu');
    const cpuMs = (1 / med(e.get(w)!, 'cpu') - 1 / med(d, 'cpu')) * 1000;
    console.log(
      `${`  ${name}`.padEnd(34)} endpoint ${fmt(med(e.get(w)!, 'wall'))} compl/s | ${fmt(med(e.get(w)!, 'cpu'))} compl/CPU-s | ratio wall ${rw.toFixed(3)}, CPU ${rc.toFixed(3)} | ${cpuMs >= 0 ? '+' : ''}${cpuMs.toFixed(2)} CPU-ms/completion`,
    );
  }
}

const backend = localBackend();
const renderer = await backend.renderer();
console.log(`== ${ROUNDS} rounds (medians), ${TOKENS}-token completions, concurrency ${CONCURRENCY}`);
const text = 'Two, three and five: each has no divisor but one and itself.'; // scripted, cut at TOKENS
await compare('scripted sampler (no model)', scriptedSampler({ renderer, script: () => text }), renderer, Number(process.env.N ?? 200));
await compare('embedded engine (localBackend)', await backend.saveWeightsForSampler(), renderer, Number(process.env.N_ENGINE ?? 24));
