/**
 * Builds the templated lookup questions the sql-agent example trains on, over the shipped `countries.sqlite`:
 * `What is the <column words> of <country>?` → `SELECT <column> FROM country WHERE name = '<country>'`
 * (the column is the question's words joined by `_`, the country is copied), written to `lookup-train.jsonl` /
 * `lookup-test.jsonl` as flat `Example` rows `{ id, question, answer: <gold SQL>, column, country }`.
 * Only short country names (≤ 14 characters, no quotes) and non-NULL values, so a trajectory fits the embedded
 * model's 384-token byte-level context. Deterministic (seeded shuffle).
 * Run: `node --import tsx examples/sql-agent/data/build-lookups.ts`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { rng, shuffle } from '../../search-agent/data/countries.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Columns asked about (question words = column name with `_` → space). */
const COLUMNS = ['capital', 'continent', 'population', 'currency_code'] as const;
const MAX_NAME = 14;
const TEST_SIZE = 64;

const db = new Database(join(here, 'countries.sqlite'), { readonly: true });
const rows: { question: string; answer: string; column: string; country: string }[] = [];
for (const r of db.prepare('SELECT * FROM country ORDER BY name').all() as Record<string, unknown>[]) {
  const name = String(r['name']);
  if (name.length > MAX_NAME || /['"]/.test(name)) continue;
  for (const col of COLUMNS) {
    if (r[col] === null || r[col] === undefined || r[col] === '') continue;
    rows.push({ question: `What is the ${col.replace(/_/g, ' ')} of ${name}?`, answer: `SELECT ${col} FROM country WHERE name = '${name}'`, column: col, country: name });
  }
}
db.close();
const shuffled = shuffle(rows, rng(13));
const toJsonl = (items: readonly object[]) => items.map((x) => JSON.stringify(x)).join('\n') + '\n';
const examples = (split: string, items: typeof rows) => items.map((r, i) => ({ id: `lookup-${split}-${String(i + 1).padStart(4, '0')}`, ...r }));
writeFileSync(join(here, 'lookup-test.jsonl'), toJsonl(examples('test', shuffled.slice(0, TEST_SIZE))));
writeFileSync(join(here, 'lookup-train.jsonl'), toJsonl(examples('train', shuffled.slice(TEST_SIZE))));
console.log(`lookup questions: train ${rows.length - TEST_SIZE}, test ${TEST_SIZE}`);
