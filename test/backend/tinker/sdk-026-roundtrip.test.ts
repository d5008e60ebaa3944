import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { encodeForwardBackwardRequest } from '../../../src/backend/tinker/proto.js';
import { tinkerBackend, type TinkerBackend } from '../../../src/backend/tinker/index.js';
import { listCheckpoints } from '../../../src/backend/tinker/checkpoints.js';
import { call, submit } from '../../serve/raw-client.js';
import { createServeApp, type ServeApp } from '../../../apps/serve/tinker/index.js';
import type { Datum } from '../../../src/types/datum.js';
import { TINY } from '../helpers.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { readFields, type Field } from '../../serve/sdk-fixtures-026.js';

const f64 = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
const utf8 = (b: Uint8Array) => new TextDecoder().decode(b);

/** `{key: number}` of the map entries numbered `field` (5: legacy `loss_fn_config`, 7: `loss_fn_config_v2`). */
function configMap(fields: readonly Field[], field: 5 | 7): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of fields.filter((x) => x.field === field)) {
    const entry = readFields(f.value as Uint8Array);
    const key = utf8(entry.find((e) => e.field === 1)!.value as Uint8Array);
    const value = entry.find((e) => e.field === 2)!;
    if (field === 5) out[key] = f64(value.value as Uint8Array);
    else {
      const arms = readFields(value.value as Uint8Array);
      expect(arms.map((a) => [a.field, a.wire])).toEqual([[1, 1]]); // LossConfigValue.number, a double
      out[key] = f64(arms[0]!.value as Uint8Array);
    }
  }
  return out;
}

describe('tinkerBackend writes the loss config as SDK ≥ 0.26 does', () => {
  it('loss_fn_config_v2 (field 7, LossConfigValue.number) and the same numbers mirrored into field 5', () => {
    const configs: Record<string, number>[] = [{ clip_low_threshold: 0.8, clip_high_threshold: 1.28 }, { clip_low_threshold: 0, clip_high_threshold: 4 }, {}];
    for (const config of configs) {
      const bytes = encodeForwardBackwardRequest({ modelId: 'm', seqId: 3, datums: [], lossFn: 'cispo', lossFnConfig: config, forwardOnly: false });
      const fields = readFields(bytes);
      expect(configMap(fields, 7)).toEqual(config);
      expect(configMap(fields, 5)).toEqual(config);
    }
  });
});

const datum = (T: number): Datum => ({
  modelInput: Array.from({ length: T }, (_, i) => 3 + i),
  targetTokens: Array.from({ length: T }, (_, i) => 4 + i),
  logprobs: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : -0.3)),
  advantages: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : -1)),
  mask: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : 1)),
});

/**
 * A loopback proxy in front of `agentrl serve` that removes the given top-level fields from protobuf
 * `forward_backward` bodies: with the legacy map (5) gone, the clip bounds can only arrive through v2 (7).
 */
async function strippingProxy(target: string, strip: readonly number[]): Promise<{ url: string; server: Server; seen: Field[][] }> {
  const seen: Field[][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: Uint8Array = Buffer.concat(chunks);
        const proto = String(req.headers['content-type'] ?? '').startsWith('application/x-protobuf');
        if (req.url === '/api/v1/forward_backward' && proto) {
          const fields = readFields(body);
          seen.push(fields);
          body = rebuild(body, fields, strip);
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
        const up = await request(`${target}${req.url}`, { method: req.method as 'GET' | 'POST', headers, ...(req.method === 'GET' ? {} : { body }) });
        const out = Buffer.from(await up.body.arrayBuffer());
        res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
        res.end(out);
      })().catch((e: unknown) => {
        res.writeHead(502);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return { url: `http://127.0.0.1:${addr.port}`, server, seen };
}

/** The message without the fields numbered in `strip` (each field re-read from the original bytes). */
function rebuild(bytes: Uint8Array, fields: readonly Field[], strip: readonly number[]): Uint8Array {
  if (strip.length === 0) return bytes;
  const out: number[] = [];
  let i = 0;
  for (const f of fields) {
    // Re-walk to find each field's byte span: key varint, then its payload.
    const start = i;
    let key = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++]!;
      key |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    const wire = key & 7;
    if (wire === 0) while (bytes[i++]! & 0x80);
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else {
      let n = 0;
      let s = 0;
      for (;;) {
        const b = bytes[i++]!;
        n |= (b & 0x7f) << s;
        if ((b & 0x80) === 0) break;
        s += 7;
      }
      i += n;
    }
    if (!strip.includes(f.field)) out.push(...bytes.subarray(start, i));
  }
  return new Uint8Array(out);
}

describe('tinkerBackend → agentrl serve: the clip bounds travel in loss_fn_config_v2', () => {
  let serve: ServeApp;
  let base: string;
  const backends: TinkerBackend[] = [];
  const proxies: Server[] = [];
  beforeAll(async () => {
    serve = createServeApp({
      port: 0,
      model: { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! },
    });
    base = await serve.listen();
  });
  afterAll(async () => {
    for (const b of backends) await b.close();
    for (const p of proxies) await new Promise((r) => p.close(r));
    await serve.close();
  });

  async function ppoLoss(url: string): Promise<number> {
    const b = tinkerBackend({
      baseUrl: url,
      baseModel: 'agentrl/local',
      renderer: LOCAL_MODEL_DIR,
      maxContextTokens: TINY.contextTokens!,
      wireFormat: 'protobuf',
      retry: { tryAgainDelayMs: 0 },
    });
    backends.push(b);
    await b.connect();
    // Negative advantages with learner logprobs far below the sampler's −0.3: every ratio is clipped up to clipLow.
    const out = await b.forwardBackward([datum(6), datum(5)], { kind: 'ppo', clipLow: 0.5, clipHigh: 1.5, aggregation: 'token-sum' });
    return out.metrics['loss']!;
  }

  it('with the legacy map stripped the update is the direct one; with both stripped it is not', async () => {
    const direct = await ppoLoss(base);
    const v2Only = await strippingProxy(base, [5]);
    const neither = await strippingProxy(base, [5, 7]);
    proxies.push(v2Only.server, neither.server);
    const viaV2 = await ppoLoss(v2Only.url);
    expect(v2Only.seen.length).toBeGreaterThan(0);
    expect(configMap(v2Only.seen[0]!, 7)).toEqual({ clip_low_threshold: 0.5, clip_high_threshold: 1.5 });
    expect(viaV2).toBeCloseTo(direct, 6);
    // Without either map serve falls back to Tinker's default bounds: a different loss, so the bounds did matter.
    const defaults = await ppoLoss(neither.url);
    expect(Math.abs(defaults - direct)).toBeGreaterThan(1e-3);
  });

  it('listCheckpoints reads Checkpoint.user_metadata and base_model back from agentrl serve', async () => {
    const sess = await call(base, 'create_session', { tags: [], sdk_version: '0.39.0', type: 'create_session' });
    const m = await submit(base, 'create_model', {
      session_id: sess.body.session_id,
      model_seq_id: 0,
      base_model: 'agentrl/local',
      lora_config: { rank: 8 },
      type: 'create_model',
    });
    const a = await submit(base, 'save_weights', {
      model_id: m.model_id,
      seq_id: 1,
      path: 'with-meta',
      user_metadata: { step: '7', run: 'r' },
      type: 'save_weights',
    });
    const b = await submit(base, 'save_weights_for_sampler', { model_id: m.model_id, seq_id: 2, path: 'bare', type: 'save_weights_for_sampler' });
    const listed = await listCheckpoints({ baseUrl: base, retry: { tryAgainDelayMs: 0 } }, m.model_id);
    const byPath = Object.fromEntries(listed.map((c) => [c.tinkerPath, c]));
    expect(byPath[a.path]).toMatchObject({ type: 'training', baseModel: 'agentrl/local', userMetadata: { step: '7', run: 'r' } });
    expect(byPath[b.path]).toMatchObject({ type: 'sampler', baseModel: 'agentrl/local' });
    expect(byPath[b.path]!.userMetadata).toBeUndefined();
  });
});
