// Regenerates python-runtime.ts from python/{runtime,session,main}.py: `node adapters/local/gen-runtime.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
/** The shipped source: the three files in this order (tests check python-runtime.ts matches). */
export const RUNTIME_PARTS = ['runtime.py', 'session.py', 'main.py'];
const src = RUNTIME_PARTS.map((f) => readFileSync(new URL(`./python/${f}`, import.meta.url), 'utf8')).join('');
writeFileSync(
  new URL('./python-runtime.ts', import.meta.url),
  '// Generated from python/{runtime,session,main}.py by gen-runtime.mjs; do not edit by hand.\n' +
    '/** Source of the Python zygote / one-shot runner (see python/runtime.py). */\n' +
    `export const PYTHON_RUNTIME_SOURCE: string = ${JSON.stringify(src)};\n`,
);
