/**
 * Builds the small one-fact-per-passage data the search-agent example trains on (from `country-json`, MIT):
 * - `facts-corpus.jsonl`: one short passage per (country, fact), titled with the country, e.g. `Peru` / `capital: Lima`;
 * - `facts-train.jsonl`: `What is the <fact> of <country>?` for 16 countries × 3 facts, as flat `Example` rows
 *   `{ id, question, answer, aliases, fact, country }` (everything past `answer` is `Example.meta`);
 * - `facts-test.jsonl`: the same 3 facts of 16 OTHER countries (held out: no country, and so no (fact, country) pair,
 *   of the test set appears in training), asked the same way.
 * Short names and answers only (≤ 20 / 24 characters), so a trajectory fits the embedded model's 192-token
 * context. Deterministic (seeded shuffle). Run: `node --import tsx examples/search-agent/data/build-facts.ts`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng, shuffle, splitByCountry, toJsonl, writeExamples } from '../../shared/country-split.js';
import { loadCountries, type Country } from './countries.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The facts asked about: question wording and the country field holding the answer. */
const FACTS: readonly { readonly fact: string; readonly value: (c: Country) => string | undefined }[] = [
  { fact: 'capital', value: (c) => c.capital?.replace(/\s*[[(].*$/, '') },
  { fact: 'currency', value: (c) => c.currencyName },
  { fact: 'national dish', value: (c) => c.nationalDish },
];

const MAX_NAME = 20;
const MAX_ANSWER = 24;
/** Countries the questions are about. */
const COUNTRIES = 16;

const corpus: { id: string; title: string; contents: string }[] = [];
const rows: { question: string; answer: string; aliases: string[]; fact: string; country: string }[] = [];
for (const c of loadCountries()) {
  if (c.name.length > MAX_NAME || /['"]/.test(c.name)) continue;
  for (const f of FACTS) {
    const v = f.value(c)?.trim();
    if (!v || v.length > MAX_ANSWER) continue;
    corpus.push({ id: `${corpus.length}`, title: c.name, contents: `${f.fact}: ${v}` });
    rows.push({ question: `What is the ${f.fact} of ${c.name}?`, answer: v, aliases: [], fact: f.fact, country: c.name });
  }
}
// Questions cover a small, fixed set of countries (short SFT on one CPU core); the corpus keeps every country as
// distractors. Test questions ask about the next 16 countries of the same shuffle: disjoint from training.
const { countries, train, test } = splitByCountry(rows, FACTS.length, COUNTRIES, 11);
writeFileSync(join(here, 'facts-corpus.jsonl'), toJsonl(corpus));
writeExamples(join(here, 'facts-train.jsonl'), 'facts', 'train', shuffle(train, rng(12)));
writeExamples(join(here, 'facts-test.jsonl'), 'facts', 'test', test);
console.log(`facts corpus ${corpus.length} passages; ${countries} countries: train ${train.length}, test ${test.length} questions (held-out countries)`);
