/**
 * Builds the small one-fact-per-passage data the search-agent example trains on (from `country-json`, MIT):
 * - `facts-corpus.jsonl`: one short passage per (country, fact), titled with the country, e.g. `Peru` / `capital: Lima`;
 * - `facts-train.jsonl` / `facts-test.jsonl`: `What is the <fact> of <country>?` questions as flat `Example` rows
 *   `{ id, question, answer, aliases, fact, country }` (everything past `answer` is `Example.meta`).
 * Short names and answers only (≤ 20 / 24 characters), so a trajectory fits the embedded model's 384-token
 * byte-level context. Deterministic (seeded shuffle). Run: `node --import tsx examples/search-agent/data/build-facts.ts`.
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
const TEST_SIZE = 64;

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
const shuffled = shuffle(rows, rng(11));
const toJsonl = (items: readonly object[]) => items.map((x) => JSON.stringify(x)).join('\n') + '\n';
const examples = (split: string, items: typeof rows) => items.map((r, i) => ({ id: `facts-${split}-${String(i + 1).padStart(4, '0')}`, ...r }));
writeFileSync(join(here, 'facts-corpus.jsonl'), toJsonl(corpus));
writeFileSync(join(here, 'facts-test.jsonl'), toJsonl(examples('test', shuffled.slice(0, TEST_SIZE))));
writeFileSync(join(here, 'facts-train.jsonl'), toJsonl(examples('train', shuffled.slice(TEST_SIZE))));
console.log(`facts corpus ${corpus.length} passages; train ${rows.length - TEST_SIZE}, test ${TEST_SIZE} questions`);
