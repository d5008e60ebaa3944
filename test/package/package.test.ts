import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

describe('the published package is whole', () => {
  it('every docs/*.md file named in the TSDoc of src/ exists and is shipped (package.json files)', () => {
    const refs = new Set<string>();
    for (const f of sources(join(root, 'src'))) {
      // References to other projects' docs (tinker-cookbook `docs/losses.mdx`, open-rl docs/configuration.md, SkyRL
      // .claude/docs/tinker.md: named after the project, or inside a longer path) are not ours.
      for (const m of readFileSync(f, 'utf8').matchAll(/(?<!(?:cookbook|open-rl|SkyRL|TuFT|tinker) `?)(?<![\w./-])(docs\/[\w./-]+\.md)\b(?!x)/g))
        refs.add(m[1]!);
    }
    expect(refs.size).toBeGreaterThan(0);
    const missing = [...refs].filter((r) => !existsSync(join(root, r)));
    expect(missing).toEqual([]);
    expect(pkg.files).toContain('docs');
  });
});
