import { readFileSync } from 'node:fs';
import { localBackend, type LocalBackendOptions } from '../../src/backend/index.js';
import type { Datum } from '../../src/types/datum.js';

/** A tiny model config so engine tests stay fast (jit compiles in well under a second). */
export const TINY: LocalBackendOptions = { layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 7 };

export const tinyBackend = (o: LocalBackendOptions = {}) => localBackend({ ...TINY, ...o });

const tokenizerJson = JSON.parse(readFileSync(new URL('../../assets/local-model/tokenizer.json', import.meta.url), 'utf8')) as {
  model: { vocab: Record<string, number> };
  added_tokens: unknown[];
};
/** Vocabulary size of the bundled local-model tokenizer (merged vocabulary + added tokens). */
export const LOCAL_VOCAB = Object.keys(tokenizerJson.model.vocab).length + tokenizerJson.added_tokens.length;

/** Deterministic PRNG for test data. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** A random datum of length T: prompt positions (first `promptLen`) masked out, the rest masked in. */
export function randomDatum(rnd: () => number, T: number, promptLen: number, vocab = LOCAL_VOCAB): Datum {
  const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * vocab));
  const mask = Array.from({ length: T }, (_, t) => (t >= promptLen ? 1 : 0));
  return {
    modelInput: toks.slice(0, T),
    targetTokens: toks.slice(1),
    logprobs: mask.map((m) => (m ? -Math.log(vocab) + (rnd() - 0.5) * 0.8 : 0)),
    advantages: mask.map((m) => (m ? (rnd() - 0.5) * 2 : 0)),
    mask,
  };
}
