/**
 * The train / held-out split of the country-question data builders (search-agent `build-facts.ts`, sql-agent
 * `build-lookups.ts`), and their JSONL writing. Deterministic: the same rows and seed give the same files.
 */
import { writeFileSync } from 'node:fs';
import { mulberry32 } from 'agentrl/internal';

/** Deterministic PRNG (agentrl's seeded mulberry32) so the builders write the same files on every run. */
export const rng = mulberry32;

/** Fisher–Yates shuffle with a given PRNG (returns a new array). */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

/**
 * Questions grouped by country; the countries with a question for each of the `fields` and a name of at most 12
 * characters are shuffled with `seed`: the first `count` countries are training, the next `count` held out (no
 * country, and so no (field, country) pair, is in both). Rows keep their order within a country.
 */
export function splitByCountry<R extends { readonly country: string }>(
  rows: readonly R[],
  fields: number,
  count: number,
  seed: number,
): { countries: number; train: R[]; test: R[] } {
  const byCountry = new Map<string, R[]>();
  for (const r of rows) byCountry.set(r.country, [...(byCountry.get(r.country) ?? []), r]);
  const order = shuffle(
    [...byCountry].filter(([name, rs]) => rs.length === fields && name.length <= 12),
    rng(seed),
  );
  const picked = order.slice(0, count);
  return { countries: picked.length, train: picked.flatMap(([, rs]) => rs), test: order.slice(count, 2 * count).flatMap(([, rs]) => rs) };
}

/** One JSON object per line, with a final newline. */
export const toJsonl = (items: readonly object[]): string => items.map((x) => JSON.stringify(x)).join('\n') + '\n';

/** Writes `items` to `path` as JSONL `Example` rows, each with an id `<prefix>-<split>-0001`, `-0002`, … first. */
export function writeExamples(path: string, prefix: string, split: string, items: readonly object[]): void {
  writeFileSync(path, toJsonl(items.map((r, i) => ({ id: `${prefix}-${split}-${String(i + 1).padStart(4, '0')}`, ...r }))));
}
