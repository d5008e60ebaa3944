/**
 * Builds the templated lookup questions the sql-agent example trains on, over the shipped `countries.sqlite`:
 * `What is the <column words> of <country>?` → `SELECT <column> FROM country WHERE name = '<country>'`
 * (the column is the question's words joined by `_`, the country is copied), written to `lookup-train.jsonl` /
 * `lookup-test.jsonl` as flat `Example` rows `{ id, question, answer: <gold SQL>, column, country }`: 16 countries ×
 * 4 columns for training, the same 4 columns of 16 OTHER countries for testing (held out: no country, and so no
 * lookup, of the test set appears in training).
 * Only short country names (≤ 12 characters, no quotes) and non-NULL values, so a trajectory fits the embedded
 * model's 192-token context. Deterministic (seeded shuffle).
 * Run: `node --import tsx examples/sql-agent/data/build-lookups.ts`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { rng, shuffle, splitByCountry, writeExamples } from '../../shared/country-split.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Columns asked about (question words = column name with `_` → space). */
const COLUMNS = ['capital', 'continent', 'population', 'currency_code'] as const;
const MAX_NAME = 14;
/** Countries the questions are about. */
const COUNTRIES = 16;

const db = new Database(join(here, 'countries.sqlite'), { readonly: true });
const rows: { question: string; answer: string; column: string; country: string }[] = [];
for (const r of db.prepare('SELECT * FROM country ORDER BY name').all() as Record<string, unknown>[]) {
  const name = String(r['name']);
  if (name.length > MAX_NAME || /['"]/.test(name)) continue;
  for (const col of COLUMNS) {
    if (r[col] === null || r[col] === undefined || r[col] === '') continue;
    rows.push({
      question: `What is the ${col.replace(/_/g, ' ')} of ${name}?`,
      answer: `SELECT ${col} FROM country WHERE name = '${name}'`,
      column: col,
      country: name,
    });
  }
}
db.close();
// Questions cover a small, fixed set of countries (short SFT on one CPU core). Test questions ask about the next 16
// countries of the same shuffle: disjoint from training.
const { countries, train, test } = splitByCountry(rows, COLUMNS.length, COUNTRIES, 13);
writeExamples(join(here, 'lookup-train.jsonl'), 'lookup', 'train', shuffle(train, rng(14)));
writeExamples(join(here, 'lookup-test.jsonl'), 'lookup', 'test', test);
console.log(`lookup questions: ${countries} countries, train ${train.length}, test ${test.length} (held-out countries)`);
