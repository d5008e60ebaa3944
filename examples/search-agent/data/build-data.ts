/**
 * Builds the search-agent example data from `country-json` (MIT):
 * - `corpus.jsonl`: one encyclopedia-style passage per country, `{ id, title, contents }`;
 * - `train.jsonl` / `test.jsonl`: questions as flat `Example` rows `{ id, question, answer, aliases, template, hops }`
 *   (everything past `answer` is `Example.meta`; `aliases` are extra gold answers for `exactMatch`).
 * One-hop questions name the country (find its passage, read a fact); two-hop ones name a fact and ask for another
 * (find the country first). Deterministic (seeded shuffle). Run: `node --import tsx examples/search-agent/data/build-data.ts`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCountries, rng, shuffle, type Country } from './countries.js';

const here = dirname(fileURLToPath(import.meta.url));
const countries = loadCountries();

function passage(c: Country): string {
  const s: string[] = [];
  const where = c.region ?? c.continent;
  s.push(`${c.name} is a country${where ? ` in ${where}` : ''}${c.continent && c.region ? ` (${c.continent})` : ''}.`);
  if (c.capital) s.push(`Its capital city is ${c.capital}.`);
  if (c.population) s.push(`It has a population of about ${c.population.toLocaleString('en-US')} people`);
  if (c.surfaceArea) s.push(`${c.population ? 'and' : 'It has'} a surface area of ${c.surfaceArea.toLocaleString('en-US')} square kilometres.`);
  else if (c.population) s[s.length - 1] += '.';
  if (c.government) s.push(`Its form of government is: ${c.government}.`);
  if (c.independenceYear) s.push(`It became independent in ${c.independenceYear}.`);
  if (c.currencyName) s.push(`The currency is the ${c.currencyName}${c.currencyCode ? ` (code ${c.currencyCode})` : ''}.`);
  if (c.languages.length) s.push(`Languages spoken include ${c.languages.join(', ')}.`);
  if (c.religion) s.push(`The main religion is ${c.religion}.`);
  if (c.nationalDish) s.push(`The national dish is ${c.nationalDish}.`);
  if (c.lifeExpectancy) s.push(`Life expectancy at birth is ${c.lifeExpectancy} years.`);
  if (c.callingCode) s.push(`Its international calling code is +${c.callingCode}${c.tld ? ` and its internet domain is ${c.tld}` : ''}.`);
  if (c.landlocked !== undefined) s.push(c.landlocked ? 'It is landlocked.' : 'It has a coastline.');
  return s.join(' ');
}

interface Row {
  question: string;
  answer: string;
  meta: { aliases: string[]; template: string; hops: number };
}

/** Values that identify exactly one country (so a reverse question has one answer). */
function uniqueBy(key: (c: Country) => string | undefined): Map<string, Country> {
  const counts = new Map<string, Country[]>();
  for (const c of countries) {
    const k = key(c);
    if (k) counts.set(k.toLowerCase(), [...(counts.get(k.toLowerCase()) ?? []), c]);
  }
  return new Map([...counts].filter(([, cs]) => cs.length === 1).map(([k, cs]) => [k, cs[0] as Country]));
}

/** `Helsinki [Helsingfors]` → answer `Helsinki`, aliases `Helsingfors` and the full string. */
function named(value: string): { answer: string; aliases: string[] } {
  const m = /^(.+?)\s*[[(]([^\])]+)[\])]$/.exec(value);
  return m ? { answer: (m[1] ?? value).trim(), aliases: [(m[2] ?? '').trim(), value] } : { answer: value, aliases: [] };
}

const rows: Row[] = [];
const uniqueCapital = uniqueBy((c) => c.capital);
const uniqueDish = uniqueBy((c) => c.nationalDish);
for (const c of countries) {
  if (c.capital) {
    const { answer, aliases } = named(c.capital);
    rows.push({ question: `What is the capital of ${c.name}?`, answer, meta: { aliases, template: 'capital', hops: 1 } });
  }
  if (c.currencyName) {
    rows.push({
      question: `What is the currency of ${c.name}?`,
      answer: c.currencyName,
      meta: { aliases: c.currencyCode ? [c.currencyCode] : [], template: 'currency', hops: 1 },
    });
  }
  if (c.nationalDish)
    rows.push({ question: `What is the national dish of ${c.name}?`, answer: c.nationalDish, meta: { aliases: [], template: 'dish', hops: 1 } });
  if (c.independenceYear) {
    rows.push({
      question: `In which year did ${c.name} become independent?`,
      answer: String(c.independenceYear),
      meta: { aliases: [], template: 'independence', hops: 1 },
    });
  }
  if (c.capital && uniqueCapital.get(c.capital.toLowerCase()) === c && c.capital.toLowerCase() !== c.name.toLowerCase()) {
    rows.push({ question: `Which country has ${c.capital} as its capital?`, answer: c.name, meta: { aliases: [], template: 'country_of_capital', hops: 1 } });
    if (c.currencyName) {
      rows.push({
        question: `What is the currency of the country whose capital is ${c.capital}?`,
        answer: c.currencyName,
        meta: { aliases: c.currencyCode ? [c.currencyCode] : [], template: 'currency_of_capital', hops: 2 },
      });
    }
  }
  if (c.nationalDish && c.capital && uniqueDish.get(c.nationalDish.toLowerCase()) === c) {
    const { answer, aliases } = named(c.capital);
    rows.push({
      question: `What is the capital of the country whose national dish is ${c.nationalDish}?`,
      answer,
      meta: { aliases, template: 'capital_of_dish', hops: 2 },
    });
  }
}

const shuffled = shuffle(rows, rng(7));
const testSize = 100;
const toJsonl = (items: readonly object[]) => items.map((x) => JSON.stringify(x)).join('\n') + '\n';
// Flat rows `{ id, question, answer, ...meta }`: the shape `loadMathDataset` / `readJsonl` + `toExample` read back as `Example.meta`.
const examples = (split: string, items: readonly Row[]) =>
  items.map((r, i) => ({ id: `search-${split}-${String(i + 1).padStart(4, '0')}`, question: r.question, answer: r.answer, ...r.meta }));

const corpus = countries.map((c, i) => ({ id: String(i), title: c.name, contents: passage(c) }));
writeFileSync(join(here, 'corpus.jsonl'), toJsonl(corpus));
writeFileSync(join(here, 'test.jsonl'), toJsonl(examples('test', shuffled.slice(0, testSize))));
writeFileSync(join(here, 'train.jsonl'), toJsonl(examples('train', shuffled.slice(testSize))));
console.log(`corpus ${corpus.length} passages; train ${shuffled.length - testSize}, test ${testSize} questions`);
