import { readFile } from 'node:fs/promises';
import { DatasetError } from '../../errors/index.js';
import type { CorpusDoc } from './types.js';

/**
 * Splits Search-R1's `contents` convention (`"Title"\ntext`) into title and text.
 * Text without a quoted first line has an empty title.
 */
export function splitTitledContents(contents: string): { title: string; text: string } {
  const nl = contents.indexOf('\n');
  const first = nl === -1 ? contents : contents.slice(0, nl);
  const m = /^"(.*)"$/.exec(first.trim());
  if (!m) return { title: '', text: contents };
  return { title: m[1] ?? '', text: nl === -1 ? '' : contents.slice(nl + 1) };
}

/**
 * Parses a JSONL corpus: one `{ id, title, contents }` object per non-blank line. Rows without `title`
 * (Search-R1's `{ id, contents: '"Title"\ntext' }`) get the title split off `contents`; numeric ids become strings.
 * @param source - file name used in error messages.
 * @throws DatasetError on invalid JSON, a missing `id`/`contents`, or a duplicate id (message names the line).
 */
export function parseCorpus(jsonl: string, source = 'corpus'): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  const seen = new Set<string>();
  const lines = jsonl.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new DatasetError(`${source}:${i + 1}: invalid JSON`, { cause: err });
    }
    const r = row as Record<string, unknown>;
    const id = typeof r['id'] === 'number' ? String(r['id']) : r['id'];
    if (typeof id !== 'string' || typeof r['contents'] !== 'string') {
      throw new DatasetError(`${source}:${i + 1}: expected {"id": string, "contents": string, "title"?: string}`);
    }
    if (seen.has(id)) throw new DatasetError(`${source}:${i + 1}: duplicate id ${JSON.stringify(id)}`);
    seen.add(id);
    if (typeof r['title'] === 'string') docs.push({ id, title: r['title'], contents: r['contents'] });
    else {
      const { title, text } = splitTitledContents(r['contents']);
      docs.push({ id, title, contents: text });
    }
  }
  return docs;
}

/**
 * Reads a JSONL corpus file (see {@link parseCorpus}).
 * @throws DatasetError when the file cannot be read or a row is malformed.
 */
export async function loadCorpus(path: string): Promise<CorpusDoc[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(`cannot read corpus ${path}`, { cause: err });
  }
  return parseCorpus(text, path);
}
