/**
 * Builds the sql-agent example data from `country-json` (MIT):
 * - `countries.sqlite`: `country` (one row per country) and `country_language` (country, language) tables;
 * - `train.jsonl` / `test.jsonl`: flat `Example` rows `{ id, question, answer: <gold SQL>, dbId, template }`
 *   (everything past `answer` is `Example.meta`).
 * Every gold query is run here and kept only if it returns at least one row without NULLs and, for
 * `ORDER BY … LIMIT k` questions, no tie at the cut. Deterministic (seeded shuffle).
 * Run: `node --import tsx examples/sql-agent/data/build-data.ts`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadCountries, rng, shuffle } from '../../search-agent/data/countries.js';

const here = dirname(fileURLToPath(import.meta.url));
const countries = loadCountries();

const db = new Database(':memory:');
db.exec(`
CREATE TABLE country (
  name TEXT PRIMARY KEY,          -- country name
  capital TEXT,
  continent TEXT,                 -- Africa, Antarctica, Asia, Europe, North America, Oceania, South America
  region TEXT,                    -- e.g. 'Western Europe'
  population INTEGER,
  surface_area REAL,              -- square kilometres
  independence_year INTEGER,
  government TEXT,
  life_expectancy REAL,           -- years at birth
  currency_code TEXT,             -- ISO 4217, e.g. 'EUR'
  landlocked INTEGER              -- 1 if landlocked, 0 if it has a coastline
);
CREATE TABLE country_language (
  country TEXT NOT NULL REFERENCES country(name),
  language TEXT NOT NULL,
  PRIMARY KEY (country, language)
);`);
const insC = db.prepare('INSERT INTO country VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
const insL = db.prepare('INSERT INTO country_language VALUES (?, ?)');
db.transaction(() => {
  for (const c of countries) {
    insC.run(
      c.name,
      c.capital ?? null,
      c.continent ?? null,
      c.region ?? null,
      c.population ?? null,
      c.surfaceArea ?? null,
      c.independenceYear ?? null,
      c.government ?? null,
      c.lifeExpectancy ?? null,
      c.currencyCode ?? null,
      c.landlocked === undefined ? null : c.landlocked ? 1 : 0,
    );
    for (const l of c.languages) insL.run(c.name, l);
  }
})();

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const all = (sql: string) => db.prepare(sql).raw(true).all() as unknown[][];
const distinct = (sql: string) => all(sql).map((r) => r[0] as string);

interface Row {
  question: string;
  answer: string;
  meta: { dbId: string; template: string };
}
const rows: Row[] = [];
/** Keeps a question when its gold SQL returns rows without NULLs (and no tie at `tieCheck`'s LIMIT cut). */
function add(template: string, question: string, sql: string, tieCheck?: { orderSql: string; k: number }): void {
  const res = all(sql);
  if (res.length === 0 || res.some((r) => r.some((v) => v === null))) return;
  if (tieCheck) {
    const ordered = all(tieCheck.orderSql).map((r) => JSON.stringify(r));
    if (ordered.length > tieCheck.k && ordered[tieCheck.k - 1] === ordered[tieCheck.k]) return;
  }
  rows.push({ question, answer: sql, meta: { dbId: 'countries', template } });
}

const continents = distinct("SELECT DISTINCT continent FROM country WHERE continent IS NOT NULL AND continent <> 'Antarctica' ORDER BY 1");
const regions = distinct('SELECT DISTINCT region FROM country WHERE region IS NOT NULL ORDER BY 1');
const languages = distinct('SELECT language FROM country_language GROUP BY language HAVING COUNT(*) >= 3 ORDER BY 1');
const currencies = distinct('SELECT currency_code FROM country WHERE currency_code IS NOT NULL GROUP BY currency_code HAVING COUNT(*) >= 2 ORDER BY 1');
const years = distinct('SELECT independence_year FROM country WHERE independence_year IS NOT NULL GROUP BY 1 HAVING COUNT(*) >= 2 ORDER BY 1');

for (const c of continents) {
  const w = `continent = ${q(c)}`;
  add('largest_population', `Which country in ${c} has the largest population?`, `SELECT name FROM country WHERE ${w} ORDER BY population DESC LIMIT 1`, {
    orderSql: `SELECT population FROM country WHERE ${w} AND population IS NOT NULL ORDER BY population DESC`,
    k: 1,
  });
  add('count_continent', `How many countries are in ${c}?`, `SELECT COUNT(*) FROM country WHERE ${w}`);
  add('total_population', `What is the total population of ${c}?`, `SELECT SUM(population) FROM country WHERE ${w}`);
  add('avg_life', `What is the average life expectancy of the countries in ${c}?`, `SELECT AVG(life_expectancy) FROM country WHERE ${w}`);
  add('landlocked', `List the landlocked countries in ${c}.`, `SELECT name FROM country WHERE ${w} AND landlocked = 1`);
  for (const k of [3, 5]) {
    add(
      'top_area',
      `Name the ${k} largest countries of ${c} by surface area, largest first.`,
      `SELECT name FROM country WHERE ${w} ORDER BY surface_area DESC LIMIT ${k}`,
      { orderSql: `SELECT surface_area FROM country WHERE ${w} AND surface_area IS NOT NULL ORDER BY surface_area DESC`, k },
    );
  }
  add(
    'most_languages',
    `Which country in ${c} has the most languages listed?`,
    `SELECT country FROM country_language JOIN country ON country.name = country_language.country WHERE ${w} GROUP BY country ORDER BY COUNT(*) DESC LIMIT 1`,
    {
      orderSql: `SELECT COUNT(*) FROM country_language JOIN country ON country.name = country_language.country WHERE ${w} GROUP BY country ORDER BY 1 DESC`,
      k: 1,
    },
  );
}
for (const r of regions) {
  add(
    'region_list_pop',
    `Which countries in ${r} have more than 10 million inhabitants?`,
    `SELECT name FROM country WHERE region = ${q(r)} AND population > 10000000`,
  );
  add('region_capitals', `List the countries of ${r} with their capitals.`, `SELECT name, capital FROM country WHERE region = ${q(r)}`);
}
for (const l of languages) {
  add('count_language', `In how many countries is ${l} spoken?`, `SELECT COUNT(*) FROM country_language WHERE language = ${q(l)}`);
  add(
    'language_countries_pop',
    `Which countries where ${l} is spoken have a population above 5 million?`,
    `SELECT c.name FROM country AS c JOIN country_language AS l ON l.country = c.name WHERE l.language = ${q(l)} AND c.population > 5000000`,
  );
}
for (const cur of currencies) {
  add('currency_countries', `Which countries use the currency with code ${cur}?`, `SELECT name FROM country WHERE currency_code = ${q(cur)}`);
}
for (const y of years) {
  add('independence_year', `Which countries became independent in ${y}?`, `SELECT name FROM country WHERE independence_year = ${y}`);
}
for (const c of countries) {
  if (c.capital) add('capital', `What is the capital of ${c.name}?`, `SELECT capital FROM country WHERE name = ${q(c.name)}`);
  if (c.languages.length >= 2)
    add('languages_of', `Which languages are spoken in ${c.name}?`, `SELECT language FROM country_language WHERE country = ${q(c.name)}`);
}

const file = join(here, 'countries.sqlite');
writeFileSync(file, db.serialize());
const shuffled = shuffle(rows, rng(11));
const testSize = 80;
const toJsonl = (items: readonly object[]) => items.map((x) => JSON.stringify(x)).join('\n') + '\n';
// Flat rows `{ id, question, answer, ...meta }`: the shape `loadMathDataset` reads back as `Example.meta`.
const examples = (split: string, items: readonly Row[]) =>
  items.map((r, i) => ({ id: `sql-${split}-${String(i + 1).padStart(4, '0')}`, question: r.question, answer: r.answer, ...r.meta }));
writeFileSync(join(here, 'test.jsonl'), toJsonl(examples('test', shuffled.slice(0, testSize))));
writeFileSync(join(here, 'train.jsonl'), toJsonl(examples('train', shuffled.slice(testSize))));
console.log(`countries.sqlite: ${countries.length} countries; train ${shuffled.length - testSize}, test ${testSize} questions`);
