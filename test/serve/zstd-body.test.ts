import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { tinkerProto } from '../../src/backend/tinker/proto.js';
import { decodeZstdBody, zstdOutputBound } from '../../apps/serve/tinker/zstd-body.js';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { ServeRequestError } from '../../apps/serve/tinker/errors.js';
import { TINY } from '../backend/helpers.js';
import { call, result, submit } from './raw-client.js';
import * as fx from './sdk-fixtures.js';
import * as zx from './zstd-fixtures.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const MiB = 1024 * 1024;
const status = (f: () => unknown): number | 'ok' => {
  try {
    f();
    return 'ok';
  } catch (e) {
    if (e instanceof ServeRequestError) return e.status;
    throw e;
  }
};
const f32s = (b: Uint8Array) => Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
const i32s = (b: Uint8Array) => Array.from(new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
const i64s = (b: Uint8Array) => Array.from(new BigInt64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), Number);

describe('decodeZstdBody: frames from the reference zstd and by hand', () => {
  it('the CLI-compressed fixtures decode to the request, field by field', () => {
    const want = zx.fixtureRequest();
    const { plain } = zx.fixtureMessage();
    for (const z of [zx.ZSTD_L3, zx.ZSTD_L19, zx.ZSTD_STREAM]) {
      expect(z.length).toBeLessThan(want.length / 10); // really compressed
      const out = decodeZstdBody(z, 4 * MiB); // the piped one declares a 2 MiB window
      expect(Buffer.from(out).equals(Buffer.from(want))).toBe(true);
      const msg = tinkerProto.type('ForwardBackwardRequest').decode(out) as any;
      expect(msg.model_id).toBe('model_fixture');
      const d = msg.data[0];
      expect(i32s(d.model_input[0].encoded_text.tokens)).toEqual(plain.tokens);
      expect(i64s(d.loss_fn_inputs.target_tokens.dense)).toEqual(plain.targets);
      expect(f32s(d.loss_fn_inputs.logprobs.dense)).toEqual(plain.logprobs);
      expect(f32s(d.loss_fn_inputs.advantages.dense)).toEqual(plain.advantages);
    }
  });

  it('hand-written raw and RLE frames, several frames and skippable frames decode', () => {
    const body = zx.fixtureRequest();
    expect(Buffer.from(decodeZstdBody(zx.rawFrame(body), MiB)).equals(Buffer.from(body))).toBe(true);
    expect(Buffer.from(decodeZstdBody(zx.rawFrame(body, { blockBytes: 1000 }), MiB)).equals(Buffer.from(body))).toBe(true);
    expect(Buffer.from(decodeZstdBody(zx.rawFrame(body, { contentSize: false, blockBytes: 4096 }), MiB)).equals(Buffer.from(body))).toBe(true);
    const two = zx.concat(zx.skippableFrame([1, 2, 3]), zx.rawFrame(body.subarray(0, 100)), zx.ZSTD_L3.subarray(0, 0), zx.rawFrame(body.subarray(100)));
    expect(Buffer.from(decodeZstdBody(two, MiB)).equals(Buffer.from(body))).toBe(true);
    expect(Array.from(decodeZstdBody(zx.rleFrame(7, 5, 3), MiB))).toEqual(new Array(15).fill(7));
  });

  it('refuses bombs before decompressing them (413), whatever the frame declares', () => {
    const limit = 64 * 1024;
    // Content size declared past the limit (1 TiB, 8-byte field): refused from the header alone.
    expect(status(() => decodeZstdBody(Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0, 0]), limit))).toBe(413);
    // No content size and a 2 GiB window (the decoder would allocate the window).
    expect(status(() => decodeZstdBody(zx.rleFrame(0, 1, 1, [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8]), limit))).toBe(413);
    // RLE blocks: 70 bytes that expand to 2 MiB (128 KiB window, limit 1 MiB).
    expect(status(() => decodeZstdBody(zx.rleFrame(0, 128 * 1024, 16), MiB))).toBe(413);
    expect(zstdOutputBound(zx.rleFrame(0, 1000, 16), MiB)).toBe(16_000);
    // A window past the limit, though the frame is small.
    expect(status(() => decodeZstdBody(zx.rleFrame(0, 1000, 1), limit))).toBe(413);
    // Many small frames (4 KiB windows) whose sum passes the limit.
    const frames = zx.concat(...Array.from({ length: 20 }, () => zx.rleFrame(1, 4000, 1, [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x10])));
    expect(status(() => decodeZstdBody(frames, limit))).toBe(413);
    expect(decodeZstdBody(frames, 100_000).length).toBe(80_000);
    // The CLI fixtures themselves against a limit under their size.
    expect(status(() => decodeZstdBody(zx.ZSTD_L3, 10_000))).toBe(413);
    expect(status(() => decodeZstdBody(zx.ZSTD_STREAM, 1 * MiB))).toBe(413); // its 2 MiB window
  });

  it('refuses malformed bodies (400): truncated, not zstd, reserved bits or block type, dictionaries, corrupt data', () => {
    const z = zx.ZSTD_L3;
    const variants: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.from([1, 2, 3, 4, 5]),
      z.subarray(0, 3),
      z.subarray(0, 10),
      z.subarray(0, z.length - 5),
      Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x08, 0x30, 0x01, 0, 0]), // reserved bit
      Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x30, ...[0x07, 0, 0]]), // reserved block type 3
      Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x30, 0x2a, 0x01, 0, 0, 0]), // dictionary id 42
      zx.skippableFrame([1, 2]).subarray(0, 9), // skippable frame shorter than it says
      zx.concat(z, Uint8Array.from([0xde, 0xad])), // trailing garbage
    ];
    for (const v of variants)
      expect(
        status(() => decodeZstdBody(v, MiB)),
        Buffer.from(v).toString('hex').slice(0, 40),
      ).toBe(400);
    // Corrupt compressed payloads: a refusal (400), or bytes that are then not the request — never a crash.
    for (const at of [20, 60, 120, 200, 300, z.length - 6]) {
      const c = Uint8Array.from(z);
      c[at] = c[at]! ^ 0x5a;
      const r = status(() => decodeZstdBody(c, MiB));
      if (r === 'ok') expect(Buffer.from(decodeZstdBody(c, MiB)).equals(Buffer.from(zx.fixtureRequest()))).toBe(false);
      else expect(r).toBe(400);
    }
  });
});

describe('agentrl serve takes zstd forward_backward bodies (Content-Encoding: zstd)', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, zstdBodies: true, limits: { maxBodyBytes: 4 * MiB } });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  const post = async (body: Uint8Array, encoding?: string) => {
    const res = await request(`${base}/api/v1/forward_backward`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', ...(encoding ? { 'content-encoding': encoding } : {}) },
      body,
    });
    return { status: res.statusCode, body: JSON.parse(await res.body.text()) };
  };
  const model = async () => {
    const s = await call(base, 'create_session', fx.CREATE_SESSION('0.25.0'));
    return (await submit(base, 'create_model', fx.CREATE_MODEL(s.body.session_id))).model_id as string;
  };

  it('advertises proto_compress_fwdbwd and gives a zstd body the same result as the plain one', async () => {
    expect((await call(base, 'client/config', fx.CLIENT_CONFIG_REQUEST)).body.proto_compress_fwdbwd).toBe(true);
    const T = tinkerProto.type('ForwardBackwardRequest');
    const results: unknown[] = [];
    for (const wrap of [
      (b: Uint8Array) => ({ b, enc: undefined }),
      (b: Uint8Array) => ({ b: zx.rawFrame(b, { blockBytes: 64 }), enc: 'zstd' }),
      (b: Uint8Array) => ({ b: zx.rawFrame(b, { contentSize: false }), enc: 'ZSTD' }),
    ]) {
      const id = await model();
      const { b, enc } = wrap(T.encode(T.fromObject(fx.FB_PROTO(id, 1, false))).finish());
      const r = await post(b, enc);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      results.push(await result(base, r.body.request_id));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it('refuses other encodings (415), bombs past the body limit (413) and broken zstd (400); the seq_id is not stalled', async () => {
    const id = await model();
    const T = tinkerProto.type('ForwardBackwardRequest');
    const body = T.encode(T.fromObject(fx.FB_PROTO(id, 1, false))).finish();
    for (const enc of ['gzip', 'br', 'zstd, gzip']) expect((await post(body, enc)).status).toBe(415);
    const bomb = await post(zx.rleFrame(0, 128 * 1024, 40), 'zstd'); // 5 MiB from 166 bytes, limit 4 MiB
    expect(bomb.status).toBe(413);
    expect(bomb.body.error).toMatch(/body limit/);
    expect((await post(zx.ZSTD_L3.subarray(0, 30), 'zstd')).status).toBe(400);
    expect((await post(body, 'zstd')).status).toBe(400); // not zstd at all
    expect((await post(zx.rawFrame(Uint8Array.from([0xff, 0xff, 0xff])), 'zstd')).status).toBe(400); // zstd of garbage protobuf
    const ok = await post(zx.rawFrame(body), 'zstd');
    expect(ok.status).toBe(200);
    expect((await result(base, ok.body.request_id)).type).toBe('forward_backward');
  });
});
