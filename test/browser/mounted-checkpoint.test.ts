import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { localBackend } from '../../src/backend/local/local-backend.js';
// @ts-expect-error -- a plain .mjs module without types
import { browserPlatform } from '../../scripts/browser-platform.mjs';

const CKPT = 'examples/retool/checkpoints/sft';
const PROMPT = [1, 5, 9, 200, 31, 7, 42, 3];

/**
 * The "model files as data" seam: the browser build (bundled for platform browser, run here in Node) loads the shipped
 * checkpoint from bytes in its in-memory storage and samples exactly what Node's localBackend samples from the folder;
 * saving writes into the storage, not the disk. Fails if any seam (fs, path, hash, yield) behaves differently.
 */
describe('the browser build loads a checkpoint handed over as bytes', () => {
  it('samples the same tokens and logprobs as Node from the folder, and saves into its storage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-browser-build-'));
    try {
      await build({
        entryPoints: ['test/fixtures/browser/mounted-checkpoint.ts'],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        outfile: join(dir, 'bundle.mjs'),
        plugins: [browserPlatform()],
        logLevel: 'warning',
      });
      const { sampleFromMounted } = (await import(pathToFileURL(join(dir, 'bundle.mjs')).href)) as typeof import('../fixtures/browser/mounted-checkpoint.js');
      const files = Object.fromEntries(readdirSync(CKPT).map((f) => [f, new Uint8Array(readFileSync(join(CKPT, f)))]));
      const page = await sampleFromMounted(files, PROMPT);

      const node = localBackend({ layers: 2, dModel: 128, heads: 4, contextTokens: 192, checkpoint: CKPT });
      const want = await (await node.saveWeightsForSampler()).sample(PROMPT, { numSamples: 2, maxTokens: 12, seed: 7 });
      expect(page.seqs.map((s) => s.tokens)).toEqual(want.map((s) => [...s.tokens]));
      page.seqs.forEach((s, i) => {
        s.logprobs.forEach((lp, j) => {
          expect(lp).toBeCloseTo(want[i]!.logprobs![j]!, 5);
        });
      });
      expect(page.written).toEqual(expect.arrayContaining(['/runs/out/config.json', '/runs/out/model.safetensors']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
