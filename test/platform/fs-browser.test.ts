import * as nodeFs from 'node:fs';
import * as nodeFsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as memFs from '../../src/platform/fs.browser.js';
import { memoryStorage } from '../../src/platform/storage.js';

/** The same row of operations against the real file system (a temp folder) and the page's storage; results compared. */
async function script(fs: { [K in keyof typeof memFs]: any }, root: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string }) => e.code);
  await fs.mkdir(`${root}/run/logs`, { recursive: true });
  await fs.appendFile(`${root}/run/logs/metrics.jsonl`, '{"step":1}\n');
  await fs.appendFile(`${root}/run/logs/metrics.jsonl`, '{"step":2, "é": "😀"}\n');
  out.push(await fs.readFile(`${root}/run/logs/metrics.jsonl`, 'utf8'));
  await fs.writeFile(`${root}/run/a.bin`, new Uint8Array([1, 2, 255]));
  out.push([...(await fs.readFile(`${root}/run/a.bin`))]);
  out.push(await fs.readdir(`${root}/run`));
  out.push((await fs.readdir(`${root}/run`, { withFileTypes: true })).map((e: { name: string; isDirectory(): boolean; isFile(): boolean }) => [e.name, e.isDirectory(), e.isFile()]));
  await fs.mkdir(`${root}/run/tmp-step/backend`, { recursive: true });
  await fs.writeFile(`${root}/run/tmp-step/backend/w.json`, '{}');
  await fs.rename(`${root}/run/tmp-step`, `${root}/run/step-00001`);
  out.push(fs.existsSync(`${root}/run/tmp-step`), fs.existsSync(`${root}/run/step-00001/backend/w.json`));
  out.push(fs.readFileSync(`${root}/run/step-00001/backend/w.json`, 'utf8'));
  out.push(await code(fs.readFile(`${root}/missing.json`, 'utf8')));
  out.push(await code(fs.access(`${root}/missing.json`)));
  out.push(await code(fs.rename(`${root}/missing`, `${root}/x`)));
  out.push(await code(fs.rm(`${root}/missing`, { recursive: true })));
  out.push(await code(fs.rm(`${root}/missing`, { recursive: true, force: true })));
  out.push(await code(fs.readdir(`${root}/missing`)));
  await fs.rm(`${root}/run/step-00001`, { recursive: true, force: true });
  out.push(await fs.readdir(`${root}/run`));
  try {
    fs.readFileSync(`${root}/nope`, 'utf8');
  } catch (e) {
    out.push((e as { code: string }).code);
  }
  return out;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) nodeFs.rmSync(d, { recursive: true, force: true });
});

describe('the page storage behaves as the file system for what the library does with files', () => {
  it('gives the same results and error codes as node:fs for logs, checkpoints (write, rename, rm) and missing files', async () => {
    const real = nodeFs.mkdtempSync(join(tmpdir(), 'agentrl-fs-'));
    dirs.push(real);
    const want = await script({ ...nodeFsp, existsSync: nodeFs.existsSync, readFileSync: nodeFs.readFileSync } as never, real);
    memFs.useStorage(memoryStorage());
    const got = await script(memFs, '/work');
    expect(got).toEqual(want);
  });

  it('useStorage swaps where files go; the previous storage keeps its files', async () => {
    const a = memoryStorage({ '/m/tokenizer.json': '{"a":1}' });
    const before = memFs.useStorage(a);
    expect(await memFs.readFile('/m/tokenizer.json', 'utf8')).toBe('{"a":1}');
    memFs.useStorage(memoryStorage());
    expect(memFs.existsSync('/m/tokenizer.json')).toBe(false);
    expect(a.files().has('/m/tokenizer.json')).toBe(true);
    memFs.useStorage(before);
  });
});
