/**
 * prepare-data: DAPO-Math style rows (JSONL or Parquet: `prompt[0].content`, `reward_model.ground_truth`)
 * → `train.jsonl` / `dev.jsonl` of `{ id, question, answer, ...meta }` with the DAPO answer template stripped
 * (ReTool seed `prepare_data.py`). Without `--input`, generates the arithmetic word problems the embedded
 * model trains on.
 * The dev split is disjoint from the training split by canonical form (`examples/shared/overlap.ts`: the same
 * question reformatted, or the same numbers in any order): candidates that overlap a training problem (or an
 * earlier dev problem) are skipped and counted. Generated data draws `8 × dev` extra candidates for that, and the
 * training split stays the first `count − dev` problems (what the shipped SFT checkpoint was trained on).
 *
 *   node --import tsx examples/retool/prepare-data.ts [--input rows.parquet|rows.jsonl] [--out DIR] [--dev 64] [--count 4000] [--seed 1]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from '../shared/cli.js';
import { dapoRowToExample, readJsonl, readParquet, type Example } from 'agentrl';
import { generateDapoRows } from './problems.js';
import { canonicalKeys } from '../shared/overlap.js';
import { optional, str } from '../shared/flags.js';

/**
 * Converts rows: the first `trainCount` usable rows are the training split (default: all but the last `devCount`);
 * the dev split is up to `devCount` of the rows after them that share no canonical key with a training problem or an
 * earlier dev problem. Rows without question/answer are skipped and counted (`skipped`); dev candidates dropped for
 * overlapping are counted (`overlapping`).
 */
export function prepareRows(
  rows: readonly unknown[],
  devCount: number,
  opts: { trainCount?: number } = {},
): { train: Example[]; dev: Example[]; skipped: number; overlapping: number } {
  const all = rows.map((r, i) => dapoRowToExample(r, i));
  const ok = all.filter((e): e is Example => e !== null);
  const trainCount = Math.min(ok.length, opts.trainCount ?? Math.max(0, ok.length - devCount));
  const train = ok.slice(0, trainCount);
  const seen = new Set(train.flatMap((e) => canonicalKeys(e.question)));
  const dev: Example[] = [];
  let overlapping = 0;
  for (const e of ok.slice(trainCount)) {
    if (dev.length >= devCount) break;
    const keys = canonicalKeys(e.question);
    if (keys.some((k) => seen.has(k))) {
      overlapping++;
      continue;
    }
    for (const k of keys) seen.add(k);
    dev.push(e);
  }
  return { train, dev, skipped: all.length - ok.length, overlapping };
}

export async function prepareData(opts: { input?: string; out: string; dev: number; count: number; seed: number }) {
  const rows = opts.input
    ? opts.input.endsWith('.parquet')
      ? await readParquet(opts.input)
      : await readJsonl(opts.input)
    : generateDapoRows(opts.count + 8 * opts.dev, opts.seed);
  const { train, dev, skipped, overlapping } = prepareRows(rows, opts.dev, opts.input ? {} : { trainCount: opts.count - opts.dev });
  await mkdir(opts.out, { recursive: true });
  const write = (name: string, xs: Example[]) =>
    writeFile(join(opts.out, name), xs.map((x) => JSON.stringify({ id: x.id, question: x.question, answer: x.answer, ...x.meta })).join('\n') + '\n');
  await write('train.jsonl', train);
  await write('dev.jsonl', dev);
  return { train: train.length, dev: dev.length, skipped, overlapping };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      input: optional(),
      out: str('examples/retool/data'),
      dev: str('64'),
      count: str('4000'),
      seed: str('1'),
    },
  });
  const r = await prepareData({
    ...(values.input ? { input: values.input } : {}),
    out: values.out!,
    dev: Number(values.dev),
    count: Number(values.count),
    seed: Number(values.seed),
  });
  console.log(`prepare-data: ${r.train} train, ${r.dev} dev (${r.overlapping} candidates overlapping training skipped), ${r.skipped} skipped → ${values.out}`);
}
