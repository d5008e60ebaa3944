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
import { loadCountries, rng, shuffle, type Country } from './countries.js';

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
const eligible = new Map<string, typeof rows>();
for (const r of rows) eligible.set(r.country, [...(eligible.get(r.country) ?? []), r]);
const order = shuffle([...eligible].filter(([name, rs]) => rs.length === FACTS.length && name.length <= 12), rng(11));
const picked = order.slice(0, COUNTRIES);
const chosen = picked.flatMap(([, rs]) => rs);
const heldOut = order.slice(COUNTRIES, 2 * COUNTRIES).flatMap(([, rs]) => rs);
const toJsonl = (items: readonly object[]) => items.map((x) => JSON.stringify(x)).join('\n') + '\n';
const examples = (split: string, items: typeof rows) => items.map((r, i) => ({ id: `facts-${split}-${String(i + 1).padStart(4, '0')}`, ...r }));
writeFileSync(join(here, 'facts-corpus.jsonl'), toJsonl(corpus));
writeFileSync(join(here, 'facts-train.jsonl'), toJsonl(examples('train', shuffle(chosen, rng(12)))));
writeFileSync(join(here, 'facts-test.jsonl'), toJsonl(examples('test', heldOut)));
console.log(`facts corpus ${corpus.length} passages; ${picked.length} countries: train ${chosen.length}, test ${heldOut.length} questions (held-out countries)`);
