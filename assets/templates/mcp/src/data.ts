/** Dataset generator and cold-start demonstrations for the task in `env.ts`. */
import type { Demonstration, Example } from 'agentrl';

/** Countries the task asks about. Each is ONE token of the embedded model's tokenizer, so copying it is a one-token copy. */
export const COUNTRIES = ['Peru', 'Chile', 'Japan', 'Kenya', 'Spain', 'Egypt', 'India', 'Brazil'] as const;
export type Country = (typeof COUNTRIES)[number];

/** One question; `meta` (typed) says which country and day it asks about. */
export type TeaExample = Example<{ country: Country; day: number }>;

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

/** Days of the task: each has its own tea price per country. Held-out examples ask about days never trained on. */
export const TRAIN_DAYS = { first: 30, last: 99 } as const;
export const HELD_OUT_DAYS = { first: 10, last: 29 } as const;

/** The price (10..99 cents) of tea in `country` on `day`: a fixed hash, so the server and the dataset agree. */
export function priceOn(country: Country, day: number): number {
  const r = rng(COUNTRIES.indexOf(country) * 1009 + day * 7919);
  r();
  return 10 + Math.floor(r() * 90);
}

/** The knowledge-graph entity that holds a price: named `Peru 17` (country, space, day: three tokens to copy). */
export const entityName = (country: Country, day: number): string => `${country} ${day}`;

/** `n` questions about days in `days` (seeded: the same seed gives the same dataset). */
export function makeDataset(n: number, seed: number, days: { first: number; last: number }): TeaExample[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const country = COUNTRIES[Math.floor(r() * COUNTRIES.length)]!;
    const day = days.first + Math.floor(r() * (days.last - days.first + 1));
    return { id: `q-${seed}-${i}`, question: `What did tea cost in ${country} on day ${day}?`, answer: String(priceOn(country, day)), meta: { country, day } };
  });
}

/**
 * Demonstrations, imperfect on purpose so RL has something to fix: a share `toolShare` call the tool and copy its
 * reply; the rest guess a price at once (almost always wrong). The tool's reply comes from the MCP server (seeded by
 * `reset`) when the demonstration is rendered.
 */
export function demonstrations(examples: readonly TeaExample[], seed: number, toolShare = 2 / 3): Demonstration<TeaExample>[] {
  const r = rng(seed);
  return examples.map((example) => ({
    example,
    turns:
      r() < toolShare
        ? [{ call: { name: 'open_nodes', arguments: { names: [entityName(example.meta.country, example.meta.day)] } } }, { answer: example.answer }]
        : [{ answer: String(10 + Math.floor(r() * 90)) }],
  }));
}
