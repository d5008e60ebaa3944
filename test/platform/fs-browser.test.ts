import * as nodeFs from 'node:fs';
import * as nodeFsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as memFs from '../../src/platform/fs.browser.js';
import { memoryStorage } from '../../src/platform/storage.js';
import { fsContract as script } from '../fixtures/browser/fs-contract.js';

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
