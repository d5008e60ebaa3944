// Regenerates sources.ts from the Python files of this folder: `node adapters/local/python/gen-sources.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

/** Each shipped runner: its export name, what it is, and its files in order (tests check sources.ts matches). */
export const RUNNERS = [
  {
    name: 'PYTHON_RUNTIME_SOURCE',
    doc: "the local sandbox's zygote server / one-shot runner",
    parts: ['common.py', 'zygote.py', 'session.py', 'zygote_main.py'],
  },
  { name: 'CONTAINER_RUNNER_SOURCE', doc: "the Docker sandbox's in-container runner", parts: ['common.py', 'container.py'] },
];

/** The source of one runner: its files concatenated. */
export function runnerSource(parts) {
  return parts.map((f) => readFileSync(new URL(`./${f}`, import.meta.url), 'utf8')).join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  let out = '// Generated from the .py files of this folder by gen-sources.mjs; do not edit by hand.\n';
  for (const r of RUNNERS) {
    out += `\n/** Source of ${r.doc}: ${r.parts.join(' + ')} (see common.py). Run with \`python3 -I -c\`. */\n`;
    out += `export const ${r.name}: string = ${JSON.stringify(runnerSource(r.parts))};\n`;
  }
  writeFileSync(new URL('./sources.ts', import.meta.url), out);
}
