import type { Datum } from '../../types/datum.js';
import type { Aggregation, LossConfig } from '../../types/loss-config.js';
import { BackendInputError } from '../../errors/index.js';
import { DEFAULT_AGGREGATION } from '../../loss/index.js';

/** Granularity of the half-context sequence bucket, tokens. */
export const SEQ_BUCKET = 64;

/**
 * Rows a batch is padded to: 1, 16, then multiples of 16. Every distinct `[rows, seqLen]` shape costs a jit
 * compile (seconds) and keeps its own workspace in the 4 GiB wasm heap (measured: ~1 GB per 16×448 shape, never
 * returned), so shapes are kept few; padded rows carry zero loss coefficients.
 */
export function batchBucket(n: number): number {
  if (n <= 1) return 1;
  if (n <= 16) return 16;
  return Math.ceil(n / 16) * 16;
}

/** Training micro-batches hold at most this many rows (one row bucket per sequence bucket). */
export const MAX_TRAIN_ROWS = 16;

/**
 * Sequence bucket for length `n`: half the context (rounded up to a multiple of {@link SEQ_BUCKET}) or the
 * full context — two shapes per row bucket, for the same reason as {@link batchBucket}.
 */
export function seqBucket(n: number, contextTokens: number): number {
  const half = Math.min(contextTokens, Math.max(SEQ_BUCKET, Math.ceil(contextTokens / 2 / SEQ_BUCKET) * SEQ_BUCKET));
  return n <= half ? half : contextTokens;
}

/** Throws `BackendInputError` unless every id is an integer in `[0, vocabSize)`. */
export function checkTokens(field: string, tokens: readonly number[], vocabSize: number): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!Number.isInteger(t) || t < 0 || t >= vocabSize) {
      throw new BackendInputError(`${field}[${i}]`, `token id ${t} is outside the vocabulary [0, ${vocabSize})`);
    }
  }
}

/**
 * Validates a `forwardBackward` batch: non-empty, equal-length arrays, lengths in `[1, contextTokens]`,
 * token ids in the vocabulary, finite numbers.
 * @throws BackendInputError naming the offending field, e.g. `datums[3].mask`.
 */
export function validateDatums(datums: readonly Datum[], vocabSize: number, contextTokens: number): void {
  if (datums.length === 0) throw new BackendInputError('datums', 'empty batch');
  datums.forEach((d, i) => {
    const T = d.modelInput.length;
    const f = `datums[${i}]`;
    if (T === 0) throw new BackendInputError(`${f}.modelInput`, 'empty sequence');
    if (T > contextTokens) throw new BackendInputError(`${f}.modelInput`, `length ${T} exceeds the context of ${contextTokens} tokens`);
    for (const key of ['targetTokens', 'logprobs', 'advantages', 'mask', 'weights'] as const) {
      const arr = d[key];
      if (arr === undefined) {
        if (key === 'weights') continue;
        throw new BackendInputError(`${f}.${key}`, 'missing');
      }
      if (arr.length !== T) throw new BackendInputError(`${f}.${key}`, `length ${arr.length} != modelInput length ${T}`);
      if (key !== 'targetTokens' && !arr.every(Number.isFinite)) throw new BackendInputError(`${f}.${key}`, 'non-finite value');
    }
    checkTokens(`${f}.modelInput`, d.modelInput, vocabSize);
    checkTokens(`${f}.targetTokens`, d.targetTokens, vocabSize);
  });
}

/**
 * Per-token coefficients `c_t` such that the aggregated loss is `Σ_d Σ_t c_t · ℓ_t` over the whole call,
 * matching `aggregateLoss` in `src/loss/aggregate.ts` (mask values multiply losses):
 * - `token-mean`: `m_t / Σ_{d,t} m`,
 * - `sequence-mean`: `m_t / (n_d · S)` with `n_d = Σ_t m` of datum d and `S` the datums with `n_d > 0`,
 * - `token-sum`: `m_t`.
 * For `cross_entropy` each coefficient is further multiplied by `w_t = weights ?? mask` (the per-token loss is
 * `−lp·w`). Datums without masked tokens get 0 everywhere.
 */
export function aggregationCoefficients(datums: readonly Datum[], loss: LossConfig): Float32Array[] {
  const agg: Aggregation = loss.aggregation ?? DEFAULT_AGGREGATION;
  const counts = datums.map((d) => d.mask.reduce((a, b) => a + b, 0));
  const total = counts.reduce((a, b) => a + b, 0);
  const seqs = counts.filter((n) => n > 0).length;
  return datums.map((d, i) => {
    const w = loss.kind === 'cross_entropy' ? (d.weights ?? d.mask) : undefined;
    const n = counts[i]!;
    let scale: number;
    if (agg === 'token-sum') scale = 1;
    else if (agg === 'token-mean') scale = total > 0 ? 1 / total : 0;
    else scale = n > 0 ? 1 / (n * seqs) : 0;
    return Float32Array.from(d.mask, (m, t) => (m === 0 ? 0 : m * scale * (w ? w[t]! : 1)));
  });
}

/** A group of datum indices trained together as one padded `[batch, seqLen]` micro-batch. */
export interface MicroBatch {
  readonly indices: number[];
  readonly batch: number;
  readonly seqLen: number;
}

/**
 * Most `batch × seqLen²` attention cells per micro-batch (16 × 512²): attention memory grows with T²,
 * so long sequences train in smaller batches to stay inside the 4 GB wasm heap.
 */
export const MAX_ATTENTION_CELLS = 16 * 512 * 512;

/**
 * Splits datums into padded micro-batches of at most `maxTokens` padded tokens and
 * {@link MAX_ATTENTION_CELLS} attention cells each (a single datum always fits), sorted by length so
 * similar lengths share a bucket.
 */
export function planMicroBatches(lengths: readonly number[], contextTokens: number, maxTokens: number): MicroBatch[] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!);
  const out: MicroBatch[] = [];
  let cur: number[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    const seqLen = seqBucket(Math.max(...cur.map((i) => lengths[i]!)), contextTokens);
    out.push({ indices: cur, batch: batchBucket(cur.length), seqLen });
    cur = [];
  };
  for (const i of order) {
    const next = [...cur, i];
    const seqLen = seqBucket(Math.max(...next.map((j) => lengths[j]!)), contextTokens);
    const rows = batchBucket(next.length);
    if (cur.length > 0 && (next.length > MAX_TRAIN_ROWS || rows * seqLen > maxTokens || rows * seqLen * seqLen > MAX_ATTENTION_CELLS)) flush();
    cur.push(i);
  }
  flush();
  return out;
}
