/**
 * zstd bodies as the Tinker SDK sends them with `proto_compress_fwdbwd` (`Content-Encoding: zstd` around a protobuf
 * `ForwardBackwardRequest`). The compressed fixtures were made once with the reference `zstd` CLI (v1.5.4) from
 * {@link fixtureRequest}'s bytes: `zstd -3` (one frame, content size, checksum), `zstd -19 --no-check`, and `zstd -3`
 * reading a pipe (no content size, 2 MiB window) — so they hold real Huffman/FSE-coded blocks, not just raw ones.
 * The raw and RLE frames below are written by hand from RFC 8878.
 */
import { tinkerProto } from '../../src/backend/tinker/proto.js';
import { f32, i32, i64 } from './sdk-fixtures.js';

export const ZSTD_L3 = Buffer.from('KLUv/WSSLrUNALZWQzpAU9MckAJeAMU7ngR0aAoLVx/DhZUYsbuQ2SMk2zOGXTJH4HP86v1U+hsbLeq/HTVaK/b1k/ePRo2kLwAhADgAAZzzCi85g4f88gDf8M0hvMER3MAF/Dtxb4Z7NFwHFyIUTBUaoZn4gJiwypOJuLgKjvmAV47hEu7gmX/c3fIMn3DNF5zAO67hFP7gIgd5gQMjFo9S1HgiD1kIZGWYh3s4XgcMTSVjkTYnvXgikypEpk1aZYUo7eKkGM/CI3zkCX7gHqf8wqWTPDmdGydkcGgRguKyPheII9l0bKhY8eHBsktUhS5tKpFhE+iDfXhuZJOBQJaSTmVRmglFwkM593JQMhvnTfOGefvo5NF2caiBS0FBWTUKzQHgAolERCIfEoA+0hSU//8/hTZDOJMQvnT7Yjl58i9ax4aPvpjuZUSoPRlCq5rib2oKl8TkdnWjz4hftBXJiTyifEg25AvlhPQgLygHsgHZf9qP3Ifn03vMenyexiO+4+3kOjIdPyfL0ePYcPqNdoNv02zkNbyaTiOj8c9kM7qMTSaP0WLMYRqM/sL3MnhxFzumxBIiIRJWPYnKVZ/LYeQ=', 'base64');
export const ZSTD_L19 = Buffer.from('KLUv/WCSLpUMALavWDEwtTYDrMfHZLIw4d5KkxKPtRQY+ShUs5YQkaBVcDD0wgJpH62xjT2N9pOo/J5hZGspUABBACsAKe7w1AleOsg1XnHVE97d9JBvfPWHey/46SLnuMUhrnCDA9z1jl884gtHPeAjbx3jEmf4wQXe++m8oM4T6kx2IEipmA3mNrOi8qLFUr4WVBcKf4M/wN/17/hf/CP+C3/UP+A/8m/9Mf4Sf4b/wV+AletYPN6LS4zlu71uMZkNdkN1LB/vHs/4xBuO8IGT/nHWAX+Kv8M/9Sf4l/4gf41/xV/1T/h3f9M/5L/xX/0f/t6/4H/6i/w5/hZ/iH9dJEU0QCU6CzUz2cpMoaNokRDd4CSk0L7ZS8w2u71kPtqrtkJD8bqJ1lermS5IYjLYzQUWkwLrOu+IpMq5zq3Opc4d9zMuNy5nnM2Q93Ly2WqyjzbQeUbeqWdVUv1NPf4Z/4l/wx/hP/An/T/+rA0AQxkR6oqvudtC8rv/HnEq6Av8vxe4YnsylHdM8WFeEpOrBzSdPMuVWPpPCg==', 'base64');
export const ZSTD_STREAM = Buffer.from('KLUv/QRYnQ4AdlpHOyBx1BwMAL/44EqIAl//kACBkF6FAFjaY7oYeui/YjmncQGBgrECNFCZOc3/L58Jcr+PAgEVqf++tC0FNQAkADEADR7yjw/4xjmfcJIrOMgxB/AM39zBF9zACZzj34l7L9yD4TasCKFkrFKIjMTIg+eyQBgIjAsXeMcpr/DqI0fwzAO8cguHcAbX3OPull94hFNP8HcBvxzDJTzPxAErkULY1eEejXcxoSoay///////z1FtrmLxTCXWByzzZFao9MkwrmrxUviDi/zAOZ0ZJVxoUAFiQhQaiT7cyKYjQ9M0TUPhAbowkckqiTLPCOzykEZXh+dENhiJZCHpWKFPVvIRAfo492q8iwlF0WycN+ot8/bTyaftU4pPJ2IEPyAwAiMSgUjkB4MbgXDVF2wt+etnx5TdF6kFezK4z6Y48QWZlMSkdujBjeThghm5e1HHVuTkRO5G1LEPOdkQdxdybEKdPMjdghw7UCcDcvcfju3HyX26m49j73Gynu7O49h4OPmOu+107DpOpuPuOR1bjpPjcDccx37TyW7c3cax2XTyGner4dhpnIymu884thknl+luMo49hpPFuDtMxwbj5C/uZhFDtUDtRGI53o6xKwWfy2Hk', 'base64');

/** The request the fixtures compress: one 600-token PPO datum for `model_fixture`, seq_id 1. */
export const FIXTURE_N = 600;
export function fixtureMessage() {
  const N = FIXTURE_N;
  const tokens = Array.from({ length: N }, (_, i) => (i * 7) % 50);
  const targets = [...tokens.slice(1), 3];
  const logprobs = Array.from({ length: N }, (_, i) => -1 - (i % 8) / 4);
  const advantages = Array.from({ length: N }, (_, i) => (i < 100 ? 0 : 0.5));
  return {
    plain: { tokens, targets, logprobs, advantages },
    message: {
      model_id: 'model_fixture',
      seq_id: 1,
      loss_fn: 'ppo',
      loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      forward_only: false,
      data: [
        {
          model_input: [{ encoded_text: { tokens: i32(tokens) } }],
          loss_fn_inputs: {
            target_tokens: { dense: i64(targets), dtype: 2, shape: [N] },
            logprobs: { dense: f32(logprobs), dtype: 1, shape: [N] },
            advantages: { dense: f32(advantages), dtype: 1, shape: [N] },
          },
        },
      ],
    },
  };
}
export const fixtureRequest = (): Uint8Array => {
  const T = tinkerProto.type('ForwardBackwardRequest');
  return T.encode(T.fromObject(fixtureMessage().message)).finish();
};

const le = (n: number, bytes: number) => Array.from({ length: bytes }, (_, i) => Math.floor(n / 2 ** (8 * i)) % 256);
const blockHeader = (last: boolean, type: 0 | 1 | 2 | 3, size: number) => le((last ? 1 : 0) | (type << 1) | (size << 3), 3);

/**
 * A zstd frame by hand: magic, a frame header (single segment with a 4-byte content size, or a window descriptor
 * and no content size), then `content` in raw blocks of at most `blockBytes`.
 */
export function rawFrame(content: Uint8Array, o: { blockBytes?: number; contentSize?: boolean } = {}): Uint8Array {
  const max = o.blockBytes ?? 128 * 1024;
  const head = o.contentSize === false ? [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x30] /* window 64 KiB */ : [0x28, 0xb5, 0x2f, 0xfd, 0xa0, ...le(content.length, 4)];
  const out = [...head];
  if (content.length === 0) out.push(...blockHeader(true, 0, 0));
  for (let at = 0; at < content.length; at += max) {
    const part = content.subarray(at, at + max);
    out.push(...blockHeader(at + max >= content.length, 0, part.length), ...part);
  }
  return Uint8Array.from(out);
}

/** A frame of `blocks` RLE blocks (no content size), each byte `byte` repeated `size` times (a few bytes that expand a lot). */
/** `header` defaults to no content size and a 128 KiB window. */
export function rleFrame(byte: number, size: number, blocks: number, header: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]): Uint8Array {
  const out = [...header];
  for (let i = 0; i < blocks; i++) out.push(...blockHeader(i === blocks - 1, 1, size), byte);
  return Uint8Array.from(out);
}

/** A skippable frame (ignored by decoders). */
export const skippableFrame = (payload: number[]) => Uint8Array.from([0x50, 0x2a, 0x4d, 0x18, ...le(payload.length, 4), ...payload]);

export const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
