// Regenerates python-runtime.ts from python/runtime.py: `node adapters/local/gen-runtime.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
const src = readFileSync(new URL('./python/runtime.py', import.meta.url), 'utf8');
writeFileSync(
  new URL('./python-runtime.ts', import.meta.url),
  '// Generated from python/runtime.py by gen-runtime.mjs; do not edit by hand.\n' +
    '/** Source of the Python zygote / one-shot runner (see python/runtime.py). */\n' +
    `export const PYTHON_RUNTIME_SOURCE: string = ${JSON.stringify(src)};\n`,
);
