/**
 * Country facts merged from the MIT-licensed `country-json` package (samayo/country-json 2.3.0), one record per
 * country. Shared by the search-agent and sql-agent data builders. Values are as the package has them (some are
 * dated or unusual spellings); the questions are built from the same records, so gold answers are consistent.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface Country {
  name: string;
  capital?: string;
  continent?: string;
  region?: string;
  population?: number;
  surfaceArea?: number;
  independenceYear?: number;
  government?: string;
  lifeExpectancy?: number;
  currencyCode?: string;
  currencyName?: string;
  nationalDish?: string;
  religion?: string;
  callingCode?: number;
  tld?: string;
  landlocked?: boolean;
  languages: string[];
}

const require = createRequire(import.meta.url);
const dir = join(dirname(require.resolve('country-json/package.json')), 'src');
const read = (file: string) => JSON.parse(readFileSync(join(dir, `country-by-${file}.json`), 'utf8')) as Record<string, unknown>[];

const clean = (v: unknown): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const s = v.replace(/\s+/g, ' ').trim();
  return s === '' ? undefined : s;
};
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
};

/** Every country with its facts, sorted by name. */
export function loadCountries(): Country[] {
  const byName = new Map<string, Country>();
  for (const r of read('name')) {
    const name = clean(r['country']);
    if (name) byName.set(name, { name, languages: [] });
  }
  const merge = (file: string, set: (c: Country, r: Record<string, unknown>) => void) => {
    for (const r of read(file)) {
      const c = byName.get(clean(r['country']) ?? '');
      if (c) set(c, r);
    }
  };
  merge('capital-city', (c, r) => (c.capital = clean(r['city'])));
  merge('continent', (c, r) => (c.continent = clean(r['continent'])));
  merge('region-in-world', (c, r) => (c.region = clean(r['location'])));
  merge('population', (c, r) => (c.population = num(r['population'])));
  merge('surface-area', (c, r) => (c.surfaceArea = num(r['area'])));
  merge('independence-date', (c, r) => (c.independenceYear = num(r['independence'])));
  merge('government-type', (c, r) => (c.government = clean(r['government'])));
  merge('life-expectancy', (c, r) => (c.lifeExpectancy = num(r['expectancy'])));
  merge('currency-code', (c, r) => (c.currencyCode = clean(r['currency_code'])));
  merge('currency-name', (c, r) => (c.currencyName = clean(r['currency_name'])));
  merge('national-dish', (c, r) => (c.nationalDish = clean(r['dish'])));
  merge('religion', (c, r) => (c.religion = clean(r['religion'])));
  merge('calling-code', (c, r) => (c.callingCode = num(r['calling_code'])));
  merge('domain-tld', (c, r) => (c.tld = clean(r['tld'])));
  merge('landlocked', (c, r) => (c.landlocked = r['landlocked'] === '1' || r['landlocked'] === 1));
  merge('languages', (c, r) => {
    const langs = Array.isArray(r['languages']) ? r['languages'].map(clean).filter((l): l is string => !!l) : [];
    c.languages = [...new Set(langs)].sort();
  });
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export { rng, shuffle } from '../../shared/country-split.js';
