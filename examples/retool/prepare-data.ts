/**
 * prepare-data: DAPO-Math style rows (JSONL or Parquet: `prompt[0].content`, `reward_model.ground_truth`)
 * → `train.jsonl` / `dev.jsonl` of `{ id, question, answer, ...meta }` with the DAPO answer template stripped
 * (ReTool seed `prepare_data.py`). Without `--input`, generates the arithmetic word problems the embedded
 * model trains on.
 *
 *   node --import tsx examples/retool/prepare-data.ts [--input rows.parquet|rows.jsonl] [--out DIR] [--dev 64] [--count 4000] [--seed 1]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dapoRowToExample, readJsonl, readParquet, type Example } from 'agentrl';
import { generateDapoRows } from './problems.js';

/** Converts rows and splits off the last `devCount` as the dev set. Rows without question/answer are skipped and counted. */
export function prepareRows(rows: readonly unknown[], devCount: number): { train: Example[]; dev: Example[]; skipped: number } {
  const all = rows.map((r, i) => dapoRowToExample(r, i));
  const ok = all.filter((e): e is Example => e !== null);
  const dev = ok.slice(Math.max(0, ok.length - devCount));
  return { train: ok.slice(0, ok.length - dev.length), dev, skipped: all.length - ok.length };
}

export async function prepareData(opts: { input?: string; out: string; dev: number; count: number; seed: number }) {
  const rows = opts.input
    ? opts.input.endsWith('.parquet')
      ? await readParquet(opts.input)
      : await readJsonl(opts.input)
    : generateDapoRows(opts.count, opts.seed);
  const { train, dev, skipped } = prepareRows(rows, opts.dev);
  await mkdir(opts.out, { recursive: true });
  const write = (name: string, xs: Example[]) => writeFile(join(opts.out, name), xs.map((x) => JSON.stringify({ id: x.id, question: x.question, answer: x.answer, ...x.meta })).join('\n') + '\n');
  await write('train.jsonl', train);
  await write('dev.jsonl', dev);
  return { train: train.length, dev: dev.length, skipped };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      input: { type: 'string' },
      out: { type: 'string', default: 'examples/retool/data' },
      dev: { type: 'string', default: '64' },
      count: { type: 'string', default: '4000' },
      seed: { type: 'string', default: '1' },
    },
  });
  const r = await prepareData({
    ...(values.input ? { input: values.input } : {}),
    out: values.out!,
    dev: Number(values.dev),
    count: Number(values.count),
    seed: Number(values.seed),
  });
  console.log(`prepare-data: ${r.train} train, ${r.dev} dev, ${r.skipped} skipped → ${values.out}`);
}
