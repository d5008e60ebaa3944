import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../../apps/serve/tinker/index.js';
import { downloadCheckpoint, listCheckpoints, tinkerBackend, type TinkerBackend } from '../../../src/backend/tinker/index.js';
import { exportCheckpoint } from '../../../src/backend/local/export.js';
import { registerBuiltinCommands, runCli } from '../../../apps/cli/index.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { TINY } from '../helpers.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };

/** A safetensors file read by hand (8-byte LE header length, JSON header, raw data), not with our decoder. */
function readSafetensorsByHand(buf: Buffer): { header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>; dataBytes: number } {
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  delete header.__metadata__;
  return { header, dataBytes: buf.length - 8 - n };
}

describe('weights out: tinkerBackend → agentrl serve (protobuf by default) → list, download, export', () => {
  let serve: ServeApp;
  let base: string;
  let backend: TinkerBackend;
  let tmp: string;
  const seen: { path: string; contentType: string; accept: string }[] = [];
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'agentrl-weights-out-'));
    serve = createServeApp({
      port: 0,
      model: MODEL,
      apiKey: 'tml-out',
      pollTimeoutMs: 200,
      plugins: [
        (app) =>
          void app.addHook(
            'onRequest',
            async (req) =>
              void seen.push({ path: req.url, contentType: String(req.headers['content-type'] ?? ''), accept: String(req.headers['accept'] ?? '') }),
          ),
      ],
    });
    base = await serve.listen();
    backend = tinkerBackend({ baseUrl: base, apiKey: 'tml-out', baseModel: 'agentrl/local', renderer: LOCAL_MODEL_DIR, maxContextTokens: MODEL.contextTokens });
  });
  afterAll(async () => {
    await backend.close();
    await serve.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('trains over protobuf, saves, lists, downloads the archive, exports a folder a safetensors reader opens', async () => {
    const d = { modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [-2, -2, -2, -2], advantages: [1, -1, 1, 1], mask: [1, 1, 1, 1] };
    await backend.forwardBackward([d, d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
    await backend.optimStep({ learningRate: 1e-2 });
    const lp = await backend.computeLogprobs([1, 2, 3]);
    expect(lp).toHaveLength(3);
    await backend.saveState('tinker://run/step-1');
    const fbs = seen.filter((s) => s.path === '/api/v1/forward_backward');
    expect(fbs.length).toBe(2);
    for (const s of fbs) expect(s.contentType).toBe('application/x-protobuf');
    expect(seen.some((s) => s.path === '/api/v1/client/config')).toBe(true);

    const path = backend.lastCheckpoint!;
    const { modelId } = await backend.connect();
    expect(path).toBe(`tinker://${modelId}/weights/tinker_run_step-1`);
    const listed = await listCheckpoints({ baseUrl: base, apiKey: 'tml-out' }, modelId);
    expect(listed.map((c) => c.tinkerPath)).toEqual([path]);
    expect((await listCheckpoints({ baseUrl: base, apiKey: 'tml-out' })).map((c) => c.tinkerPath)).toEqual([path]);

    const dl = await downloadCheckpoint(path, join(tmp, 'dl'), { baseUrl: base, apiKey: 'tml-out' });
    expect(dl.files).toEqual(['checkpoint_complete', 'config.json', 'model.safetensors', 'optimizer.safetensors']);
    expect(dl.sha256).toMatch(/^[0-9a-f]{64}$/);
    await expect(downloadCheckpoint(path, join(tmp, 'small'), { baseUrl: base, apiKey: 'tml-out', maxBytes: 1000 })).rejects.toThrow(/maxBytes/);
    await expect(downloadCheckpoint(`tinker://${modelId}/weights/nope`, join(tmp, 'x'), { baseUrl: base, apiKey: 'tml-out' })).rejects.toMatchObject({
      status: 404,
    });

    const out = join(tmp, 'hf');
    const files = await exportCheckpoint(join(tmp, 'dl'), out, { format: 'safetensors' });
    expect(files).toEqual(expect.arrayContaining(['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']));
    expect((await readdir(out)).sort()).toEqual([...files].sort());
    const cfg = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(cfg).toMatchObject({
      hidden_size: MODEL.dModel,
      num_hidden_layers: MODEL.layers,
      num_attention_heads: MODEL.heads,
      max_position_embeddings: MODEL.contextTokens,
      torch_dtype: 'float32',
    });
    const st = readSafetensorsByHand(await readFile(join(out, 'model.safetensors')));
    let end = 0;
    for (const [name, t] of Object.entries(st.header)) {
      expect(t.dtype, name).toBe('F32');
      expect(t.data_offsets[1] - t.data_offsets[0]).toBe(t.shape.reduce((a, b) => a * b, 1) * 4);
      end = Math.max(end, t.data_offsets[1]);
    }
    expect(end).toBe(st.dataBytes);
    expect(Object.keys(st.header).length).toBeGreaterThan(3);
    await expect(exportCheckpoint(join(tmp, 'dl'), join(tmp, 'bad'), { format: 'gguf' as 'safetensors' })).rejects.toThrow(/not supported/);
    await expect(exportCheckpoint(join(tmp, 'nothing'), join(tmp, 'bad'), { format: 'safetensors' })).rejects.toThrow();
  });

  it('agentrl checkpoints list|download|export on the command line', async () => {
    registerBuiltinCommands();
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), signal: new AbortController().signal };
    const path = backend.lastCheckpoint!;
    expect(await runCli(['checkpoints', 'list', '--base-url', base, '--api-key', 'tml-out'], io)).toBe(0);
    expect(out.join('')).toContain(path);
    expect(await runCli(['checkpoints', 'download', path, join(tmp, 'cli'), '--base-url', base, '--api-key', 'tml-out'], io)).toBe(0);
    expect(await runCli(['checkpoints', 'export', join(tmp, 'cli'), join(tmp, 'cli-hf')], io)).toBe(0);
    expect((await readdir(join(tmp, 'cli-hf'))).sort()).toContain('model.safetensors');
    expect(await runCli(['checkpoints', 'list', '--base-url', base, '--api-key', 'wrong'], io)).toBe(1);
    expect(await runCli(['checkpoints', 'frobnicate'], io)).toBe(2);
    expect(await runCli(['checkpoints', 'export', 'a'], io)).toBe(2);
  });
});
