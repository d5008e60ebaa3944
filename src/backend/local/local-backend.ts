import { z } from '../../util/zod.js';
import type { Datum } from '../../types/datum.js';
import type { LossConfig } from '../../types/loss-config.js';
import { BackendInputError, ConfigError } from '../../errors/index.js';
import { configIssuesFromZod, schemaKeysAt } from '../../errors/config-issues.js';
import type { Renderer } from '../../chat/types.js';
import { loadRenderer } from '../../chat/index.js';
import type { AdamParams, ForwardBackwardOptions, ForwardBackwardResult, OptimStepResult, SamplingClient, SamplingSupport, TrainingBackend } from '../types.js';
import { defaultModelDir, tokenizerVocabSize } from './assets.js';
import { readCheckpoint, readCheckpointConfig, writeCheckpoint } from './checkpoint.js';
import type { DecodeKernels } from './decode-kernels.js';
import { decodeKernelsFor } from './kernel-cache.js';
import { LocalEngine } from './engine.js';
import { forwardBackwardCustom, WEIGHTED_CROSS_ENTROPY } from '../custom-loss.js';
import { lossDefinition, parseLossConfig } from '../../loss/index.js';
import { ensureJax } from './jax.js';
import { parseModelConfig, type ModelConfig } from './model-config.js';
import { initHostParams, toDevice, zerosLike } from './params.js';
import { LocalSampler } from './local-sampler.js';
import { checkBackendDatums } from '../check-datums.js';

/** Options of {@link localBackend}. Every field is optional. */
export interface LocalBackendOptions {
  /** Transformer blocks. @default 2 */
  readonly layers?: number;
  /** Residual width (divisible by `heads`). @default 128 */
  readonly dModel?: number;
  /** Attention heads. @default 4 */
  readonly heads?: number;
  /** Context length in tokens (prompt + completion). @default 512 */
  readonly contextTokens?: number;
  /** Seed for weight init and for sampling calls without their own seed. @default 0 */
  readonly seed?: number;
  /** Start from a directory written by `saveState` (weights + optimizer state; its config wins). */
  readonly checkpoint?: string;
  /** Folder with `tokenizer.json` + `tokenizer_config.json`. @default the bundled `assets/local-model` */
  readonly modelDir?: string;
  /** Padded tokens per training micro-batch (`batch × seqLen`); bounds memory. @default 8192 */
  readonly maxBatchTokens?: number;
  /** Most sequences decoded together by one sampler (continuous batching). @default 64 */
  readonly maxDecodeRows?: number;
}

const optionsSchema = z.strictObject({
  layers: z.number().int().min(1).optional(),
  dModel: z.number().int().min(8).optional(),
  heads: z.number().int().min(1).optional(),
  contextTokens: z.number().int().min(8).optional(),
  seed: z.number().int().optional(),
  checkpoint: z.string().min(1).optional(),
  modelDir: z.string().min(1).optional(),
  maxBatchTokens: z.number().int().min(64).optional(),
  maxDecodeRows: z.number().int().min(1).max(1024).optional(),
});

/** Default model shape: about 0.8M parameters (0.35M of them the 2,698 × 128 embedding), ~1 s per 16×256 train step on one core. */
export const DEFAULT_LOCAL_MODEL = { layers: 2, dModel: 128, heads: 4, contextTokens: 512 } as const;

/**
 * The embedded CPU backend: a small pre-LN GPT trained from scratch with `@jax-js/jax` (wasm, jit,
 * autograd), with the bundled tokenizer (byte-level BPE, 2,698 tokens: digits paired and every 2-digit string
 * a token, words without glued spaces; see `assets/local-model/generate.ts`) and ChatML template. Returns immediately; the
 * engine starts on first use. Memory: the wasm heap is capped at 4 GB.
 * @example
 * const backend = localBackend({ layers: 2, dModel: 128, seed: 1 });
 * const sampler = await backend.saveWeightsForSampler();
 * @throws ConfigError for invalid options (dotted paths), or a checkpoint whose model shape conflicts with them.
 */
export function localBackend(options: LocalBackendOptions = {}): TrainingBackend {
  const parsed = optionsSchema.safeParse(options);
  // Every problem in one pass: schema issues plus the cross-field rule of the model shape.
  const issues = parsed.success ? [] : configIssuesFromZod(parsed.error.issues, options, (path) => schemaKeysAt(optionsSchema, path));
  const { dModel, heads } = options as { dModel?: unknown; heads?: unknown };
  const d = typeof dModel === 'number' ? dModel : DEFAULT_LOCAL_MODEL.dModel;
  const h = typeof heads === 'number' ? heads : DEFAULT_LOCAL_MODEL.heads;
  if (Number.isInteger(d) && Number.isInteger(h) && h >= 1 && d % h !== 0 && options.checkpoint === undefined) {
    issues.push({ path: 'dModel', message: `must be divisible by heads (${h}), got ${d}` });
  }
  if (!parsed.success || issues.length > 0) throw new ConfigError('localBackend options', issues);
  const o = parsed.data;
  const modelDir = o.modelDir ?? defaultModelDir();
  const vocabSize = tokenizerVocabSize(modelDir);
  let cfg: ModelConfig;
  if (o.checkpoint !== undefined) {
    cfg = readCheckpointConfig(o.checkpoint).model;
    const conflicts = (['layers', 'dModel', 'heads', 'contextTokens'] as const).filter((k) => o[k] !== undefined && o[k] !== cfg[k]);
    if (conflicts.length > 0 || cfg.vocabSize !== vocabSize) {
      throw new ConfigError('localBackend options', [
        ...conflicts.map((k) => ({ path: k, message: `${o[k]} conflicts with checkpoint value ${cfg[k]}` })),
        ...(cfg.vocabSize !== vocabSize ? [{ path: 'modelDir', message: `tokenizer vocab ${vocabSize} != checkpoint vocab ${cfg.vocabSize}` }] : []),
      ]);
    }
  } else {
    cfg = parseModelConfig({ ...DEFAULT_LOCAL_MODEL, ...pick(o), vocabSize }, 'localBackend options');
  }
  return new LocalBackend(cfg, {
    seed: o.seed ?? 0,
    checkpoint: o.checkpoint,
    modelDir,
    maxBatchTokens: o.maxBatchTokens ?? 8192,
    maxDecodeRows: o.maxDecodeRows ?? 64,
  });
}

function pick(o: z.infer<typeof optionsSchema>): Partial<ModelConfig> {
  const out: Record<string, number> = {};
  for (const k of ['layers', 'dModel', 'heads', 'contextTokens'] as const) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

interface Settings {
  readonly seed: number;
  readonly checkpoint: string | undefined;
  readonly modelDir: string;
  readonly maxBatchTokens: number;
  readonly maxDecodeRows: number;
}

class LocalBackend implements TrainingBackend {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'local';
  /** The sampler reports `log softmax(logits / T)` over the full vocabulary (before top-k/top-p); so does the learner. */
  readonly samplingSupport: SamplingSupport = { temperature: true, truncation: 'full-vocabulary' };
  readonly maxContextTokens: number;
  readonly #cfg: ModelConfig;
  readonly #s: Settings;
  #engine: Promise<{ engine: LocalEngine; kernels: DecodeKernels }> | undefined;
  #renderer: Promise<Renderer> | undefined;
  #samplerSeed: number;
  #closed = false;

  constructor(cfg: ModelConfig, s: Settings) {
    this.#cfg = cfg;
    this.#s = s;
    this.maxContextTokens = cfg.contextTokens;
    this.#samplerSeed = s.seed;
  }

  /** Model shape in use. */
  get config(): ModelConfig {
    return this.#cfg;
  }

  #start(): Promise<{ engine: LocalEngine; kernels: DecodeKernels }> {
    if (this.#closed) return Promise.reject(new BackendInputError('backend', 'this local backend was closed'));
    this.#engine ??= (async () => {
      await ensureJax();
      const cfg = this.#cfg;
      const kernels = decodeKernelsFor(cfg);
      if (this.#s.checkpoint !== undefined) {
        const st = await readCheckpoint(this.#s.checkpoint, cfg, true).catch(() => readCheckpoint(this.#s.checkpoint!, cfg, false));
        const adam = st.m && st.v ? { m: toDevice(cfg, st.m), v: toDevice(cfg, st.v), step: st.step } : undefined;
        return { engine: new LocalEngine(cfg, toDevice(cfg, st.params), { maxBatchTokens: this.#s.maxBatchTokens, ...(adam ? { adam } : {}) }), kernels };
      }
      return { engine: new LocalEngine(cfg, toDevice(cfg, initHostParams(cfg, this.#s.seed)), { maxBatchTokens: this.#s.maxBatchTokens }), kernels };
    })();
    return this.#engine;
  }

  /** The engine has the logits: it reports the full-vocabulary `entropy` and honours `entropyCoef` on native loss kinds. */
  readonly learnerEntropy = true;

  /**
   * See {@link TrainingBackend.forwardBackward}. Metrics include `entropy` (mean full-vocabulary entropy over masked
   * tokens). `entropyCoef > 0` adds the entropy bonus in the engine's kernel.
   * @throws BackendInputError as the interface says, and for `entropyCoef > 0` with a loss that runs as a custom loss
   *   (its backward is a weighted cross-entropy on the sampled tokens, which cannot carry the entropy's gradient).
   */
  async forwardBackward(datums: readonly Datum[], loss: LossConfig, opts?: ForwardBackwardOptions): Promise<ForwardBackwardResult> {
    checkBackendDatums(datums, { contextTokens: this.maxContextTokens });
    const { engine } = await this.#start();
    const temperature = opts?.sampling?.temperature ?? 1;
    const entropyCoef = opts?.entropyCoef ?? 0;
    const config = parseLossConfig(loss);
    if (lossDefinition(config).native === undefined) {
      if (entropyCoef !== 0)
        throw new BackendInputError(
          'entropyCoef',
          `the entropy bonus runs in the engine's native loss kernels; '${config.kind}' runs as a custom loss (a weighted cross-entropy backward on the sampled tokens cannot carry the entropy's gradient)`,
        );
      let entropy = 0;
      const steps = {
        forward: async (d: readonly Datum[]) => {
          const r = engine.forwardWithEntropy(d, temperature);
          entropy = r.entropy;
          return r.logprobs;
        },
        weightedBackward: async (d: readonly Datum[]) => engine.forwardBackward(d, WEIGHTED_CROSS_ENTROPY, 1, temperature),
      };
      const r = await forwardBackwardCustom(steps, datums, config, opts?.weight ?? 1);
      return { logprobs: r.logprobs, metrics: { ...r.metrics, entropy } };
    }
    return engine.forwardBackward(datums, config, opts?.weight ?? 1, temperature, entropyCoef);
  }

  async optimStep(params: AdamParams): Promise<OptimStepResult> {
    const { engine } = await this.#start();
    return engine.optimStep(params);
  }

  async saveWeightsForSampler(): Promise<SamplingClient> {
    const { engine, kernels } = await this.#start();
    this.#samplerSeed = (Math.imul(this.#samplerSeed ^ 0x9e3779b9, 2654435761) + 1) >>> 0;
    return new LocalSampler(engine, kernels, engine.refParams(), { maxRows: this.#s.maxDecodeRows, seed: this.#samplerSeed });
  }

  async saveState(path: string): Promise<void> {
    const { engine } = await this.#start();
    await writeCheckpoint(path, this.#cfg, engine.snapshot());
  }

  /** Loads a `saveState` dir; with `optimizer: false` only weights are loaded and Adam restarts from zero. Drops accumulated gradients. */
  async loadState(path: string, opts?: { optimizer?: boolean }): Promise<void> {
    const { engine } = await this.#start();
    const withOpt = opts?.optimizer ?? true;
    const st = await readCheckpoint(path, this.#cfg, withOpt);
    const cfg = this.#cfg;
    // Without the optimizer, Adam restarts (zero moments, step 0) rather than keeping moments of other weights.
    const adam = st.m && st.v ? { m: toDevice(cfg, st.m), v: toDevice(cfg, st.v), step: st.step } : { m: zerosLike(cfg), v: zerosLike(cfg), step: 0 };
    engine.replace(toDevice(cfg, st.params), adam);
  }

  async computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    const { engine } = await this.#start();
    return engine.computeLogprobs(tokens);
  }

  renderer(): Promise<Renderer> {
    this.#renderer ??= loadRenderer({ dir: this.#s.modelDir });
    return this.#renderer;
  }

  /** Frees the weights and optimizer state; later calls reject with `BackendInputError`. Samplers stay usable. */
  async close(): Promise<void> {
    this.#closed = true;
    if (!this.#engine) return;
    const { engine } = await this.#engine;
    engine.dispose();
    this.#engine = undefined;
  }
}
