import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'tsup';

const repoRoot = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const outDir = mkdtempSync(path.join(repoRoot, 'node_modules', '.tmp-math-dist-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('MathCheckPool from a tsup build', () => {
  // Hazard: the worker must find its module in the bundled `dist/` layout (ESM and CJS), not only in `src/`.
  it('loads the worker next to the bundle in ESM and CJS builds', async () => {
    await build({
      entry: { index: path.join(repoRoot, 'src/reward/math/index.ts') },
      outDir,
      format: ['esm', 'cjs'],
      dts: false,
      sourcemap: false,
      clean: true,
      silent: true,
      target: 'node20',
      platform: 'node',
      shims: true,
      splitting: true,
      config: false,
    });
    const script = path.join(outDir, 'probe.mjs');
    writeFileSync(
      script,
      `
      import { createRequire } from 'node:module';
      const esm = await import('./index.js');
      const a = await esm.mathEquivalent('\\\\frac12', '0.5', { timeoutMs: 20000 });
      await esm.closeDefaultMathPool();
      const cjs = createRequire(import.meta.url)('./index.cjs');
      const pool = new cjs.MathCheckPool({ size: 1, timeoutMs: 20000 });
      const b = await pool.check('x^2', 'x\\\\cdot x');
      await pool.close();
      console.log(JSON.stringify([a, b]));
    `,
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim())).toEqual([
      { equal: true, status: 'ok' },
      { equal: true, status: 'ok' },
    ]);
  });
});
