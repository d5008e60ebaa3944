#!/usr/bin/env node
// Type-checks every ```ts code block of README.md and docs/**/*.md against the sources (`agentrl` → src/index.ts),
// so the examples people copy cannot rot. A block whose info string says `ts no-check` is skipped (fragments only).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, 'temp', 'doc-snippets');
const mdFiles = ['README.md'];
const walk = (dir) => {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'api') walk(p);
    else if (e.name.endsWith('.md')) mdFiles.push(p);
  }
};
walk('docs');

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const files = [];
const origin = new Map();
for (const md of mdFiles) {
  const lines = readFileSync(join(root, md), 'utf8').split('\n');
  let block = null;
  lines.forEach((line, i) => {
    const open = /^```(ts|typescript)(\s.*)?$/.exec(line.trim());
    if (block === null && open) {
      block = { start: i + 1, skip: /no-check/.test(open[2] ?? ''), body: [] };
    } else if (block !== null && line.trim() === '```') {
      if (!block.skip) {
        const name = `${md.replace(/[^a-zA-Z0-9]+/g, '_')}_L${block.start}.ts`;
        writeFileSync(join(outDir, name), block.body.join('\n') + '\nexport {};\n');
        files.push(name);
        origin.set(name, `${md}:${block.start}`);
      }
      block = null;
    } else if (block !== null) block.body.push(line);
  });
}
writeFileSync(
  join(outDir, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: relative(outDir, join(root, 'tsconfig.json')),
      compilerOptions: { noEmit: true, noUnusedLocals: false, noUnusedParameters: false, baseUrl: relative(outDir, root) || '.' },
      include: files,
    },
    null,
    2,
  ),
);
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(outDir, 'tsconfig.json')], { encoding: 'utf8' });
let out = (tsc.stdout ?? '') + (tsc.stderr ?? '');
for (const [name, where] of origin) out = out.split(`temp/doc-snippets/${name}`).join(name).split(name).join(`${where} (block)`);
if (tsc.status !== 0) {
  process.stderr.write(out);
  process.stderr.write(`\ndoc snippets: type errors in ${files.length} checked block(s) of ${mdFiles.length} files\n`);
  process.exit(1);
}
console.log(`doc snippets: ${files.length} TypeScript blocks in ${mdFiles.length} Markdown files type-check`);
