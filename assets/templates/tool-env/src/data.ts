/** Dataset generator and cold-start demonstrations for the task in `env.ts`. */
import type { Demonstration } from 'agentrl';
import { COUNTRIES, type Country, type TeaExample } from './env.js';

/** A small seeded generator (mulberry32): the same seed gives the same dataset. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` days: each has a price (10..99 cents) per country and asks for one country's. Different seeds, different days. */
export function makeDataset(n: number, seed: number): TeaExample[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const prices = Object.fromEntries(COUNTRIES.map((c) => [c, 10 + Math.floor(r() * 90)])) as Record<Country, number>;
    const country = COUNTRIES[Math.floor(r() * COUNTRIES.length)]!;
    return { id: `day-${seed}-${i}`, question: `What does tea cost in ${country} today?`, answer: String(prices[country]), meta: { country, prices } };
  });
}

/**
 * Demonstrations, imperfect on purpose so RL has something to fix: a share `toolShare` call the tool and copy its
 * reply; the rest guess a price at once (almost always wrong). Turns are data: the model's chat template writes the
 * call in its own syntax, and the tool's reply is computed by the environment when the demonstration is rendered.
 */
export function demonstrations(examples: readonly TeaExample[], seed: number, toolShare = 2 / 3): Demonstration<TeaExample>[] {
  const r = rng(seed);
  return examples.map((example) => ({
    example,
    turns:
      r() < toolShare
        ? [{ call: { name: 'price', arguments: { country: example.meta.country } } }, { answer: example.answer }]
        : [{ answer: String(10 + Math.floor(r() * 90)) }],
  }));
}
