import { BackendInputError, BackendRequestError, ConfigError } from '../../errors/index.js';
import type { EngineProfile } from './engines/profiles.js';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import type { SamplingClient } from '../types.js';
import { awaitFuture, requestIdOf } from './future-polling.js';
import type { TinkerHttp } from './http.js';
import type { ResolvedTinkerOptions } from './options.js';
import { decodeSampleProto } from './proto.js';
import { modelInputJson, parseSampleJson, type SampleOutput } from './json-wire.js';
import { tinkerPath } from './protocol/routes.js';

/**
 * Refuses sampling settings whose logprobs the protocol's losses cannot match: the server computes learner logprobs
 * at temperature 1 over the full vocabulary, so `temperature` other than 1 (or 0, greedy), `topP < 1` or `topK > 0`
 * would make every importance ratio off-policy. Allowed with `allowTemperedSampling: true` (evaluation samplers).
 * @throws ConfigError naming each such parameter.
 */
export function checkSamplingParams(params: SamplingParams, allowTempered: boolean): void {
  if (allowTempered) return;
  const issues: { path: string; message: string }[] = [];
  const why = 'the remote learner computes logprobs at temperature 1 without truncation; set allowTemperedSampling: true for samplers not used for training';
  const t = params.temperature ?? 1;
  if (t !== 1 && t !== 0) issues.push({ path: 'temperature', message: `${params.temperature} (only 1, or 0 for greedy): ${why}` });
  if ((params.topP ?? 1) !== 1) issues.push({ path: 'topP', message: `${params.topP} < 1: ${why}` });
  if ((params.topK ?? 0) > 0) issues.push({ path: 'topK', message: `${params.topK} > 0: ${why}` });
  if (issues.length > 0) throw new ConfigError('tinkerBackend sampling params', issues);
}

/**
 * Refuses `forwardBackward(…, { sampling })` settings the protocol's learner cannot reproduce (temperature other than
 * 1 or 0, top-p < 1, top-k > 0): the datums' logprobs would come from another distribution than the learner's.
 * @throws BackendInputError naming the setting, e.g. `sampling.temperature`.
 */
export function checkLearnerSampling(s: { temperature?: number; topP?: number; topK?: number } | undefined): void {
  if (s === undefined) return;
  const why = 'the Tinker protocol scores targets at temperature 1 over the whole vocabulary';
  if (s.temperature !== undefined && s.temperature !== 1 && s.temperature !== 0)
    throw new BackendInputError('sampling.temperature', `${s.temperature}: ${why}`);
  if (s.topP !== undefined && s.topP !== 1) throw new BackendInputError('sampling.topP', `${s.topP}: ${why}`);
  if (s.topK !== undefined && s.topK > 0) throw new BackendInputError('sampling.topK', `${s.topK}: ${why}`);
}

/**
 * A sampler over `POST /api/v1/asample` for one sampling session (the weights saved by
 * `save_weights_for_sampler`). Its `seq_id` counter starts at 0, as the Python SDK's.
 */
export class TinkerSamplingClient implements SamplingClient {
  readonly #http: TinkerHttp;
  readonly #opts: ResolvedTinkerOptions;
  readonly #seq = { next: 0 };
  readonly #limit: <T>(run: () => Promise<T>) => Promise<T>;
  readonly #engine: Pick<EngineProfile, 'name' | 'promptLogprobs' | 'samplerLogprobs'> | undefined;
  readonly #current: (() => boolean) | undefined;
  /** The server's id of this sampling session. */
  readonly samplingSessionId: string;

  /**
   * @param limit runs each sampling request (submit and poll); the backend passes one limiter, sized by the server's
   *   `sample_max_concurrent_requests`, shared by all of its samplers. @default no limit
   */
  constructor(
    http: TinkerHttp,
    opts: ResolvedTinkerOptions,
    samplingSessionId: string,
    limit?: <T>(run: () => Promise<T>) => Promise<T>,
    /** The engine's profile (prompt-logprob alignment, sampler-logprob rule); absent: Tinker's. */
    engine?: Pick<EngineProfile, 'name' | 'promptLogprobs' | 'samplerLogprobs'>,
    /** When set: whether the training weights are still the ones this sampler was saved from (else it refuses). */
    current?: () => boolean,
  ) {
    this.#http = http;
    this.#opts = opts;
    this.#engine = engine;
    this.#current = current;
    this.samplingSessionId = samplingSessionId;
    this.#limit = limit ?? ((run) => run());
  }

  async #sample(prompt: readonly number[], body: Record<string, unknown>): Promise<SampleOutput> {
    if (this.#current && !this.#current()) {
      throw new BackendRequestError(
        'sample',
        'user',
        `${this.#engine?.name ?? 'this engine'} loads a sampler's checkpoint into the training adapter slot when it is sampled (SkyRL jax.py load_sampler_weights), and the training weights have changed since this sampler was saved: sampling it would roll them back; use a sampler saved after the last optimStep`,
      );
    }
    const request = { ...body, prompt: modelInputJson(prompt), sampling_session_id: this.samplingSessionId, seq_id: this.#seq.next++, type: 'sample' };
    const submit = async () => requestIdOf('asample', await this.#http.call('asample', tinkerPath('asample'), { json: request }));
    return this.#limit(async () =>
      awaitFuture(this.#http, this.#opts, await submit(), {
        op: 'sample',
        submit,
        json: (b) => parseSampleJson('sample', b),
        ...(this.#opts.wireFormat !== 'json' ? { proto: decodeSampleProto } : {}),
      }),
    );
  }

  /**
   * Samples `params.numSamples` continuations. `stop` token ids are sent as `stop` (the protocol's int list);
   * `topK` 0/undefined is sent as `-1` (off).
   * @throws ConfigError for tempered or truncated sampling (see {@link checkSamplingParams}); BackendInputError for
   *   an empty prompt or a bad `maxTokens`, or when the server reports a user error.
   */
  async sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    checkSamplingParams(params, this.#opts.allowTemperedSampling);
    if (promptTokens.length === 0) throw new BackendInputError('promptTokens', 'empty prompt');
    if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1)
      throw new BackendInputError('maxTokens', `must be an integer ≥ 1, got ${params.maxTokens}`);
    const n = params.numSamples ?? 1;
    if (!Number.isInteger(n) || n < 1) throw new BackendInputError('numSamples', `must be an integer ≥ 1, got ${n}`);
    const sp: Record<string, unknown> = {
      max_tokens: params.maxTokens,
      temperature: params.temperature ?? 1,
      top_p: params.topP ?? 1,
      top_k: params.topK !== undefined && params.topK > 0 ? params.topK : -1,
    };
    if (params.seed !== undefined) sp['seed'] = params.seed;
    if (params.stop !== undefined && params.stop.length > 0) sp['stop'] = Array.from(params.stop);
    const out = await this.#sample(promptTokens, { num_samples: n, sampling_params: sp, prompt_logprobs: false, topk_prompt_logprobs: 0 });
    if (this.#engine?.samplerLogprobs === 'zeros-if-missing') {
      // SkyRL-Train fills zeros (with only a log line) when the inference engine returned no logprobs: every importance
      // ratio would then be the learner's probability. A sampled token has logprob exactly 0 only under certainty.
      const i = out.sequences.findIndex((s) => s.tokens.length > 1 && s.logprobs.every((x) => x === 0));
      if (i >= 0)
        throw new BackendRequestError(
          'sample',
          'server',
          `${this.#engine.name} returned all-zero logprobs for sample ${i} (${out.sequences[i]!.tokens.length} tokens): its inference engine gave none; the importance ratios would be wrong`,
        );
    }
    return out.sequences;
  }

  /** Logprob of every token given its prefix (entry 0 `null`): `asample` with `max_tokens: 1, prompt_logprobs: true`. */
  async computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    if (tokens.length === 0) return [];
    const out = await this.#sample(tokens, {
      num_samples: 1,
      sampling_params: { max_tokens: 1, temperature: 1, top_p: 1, top_k: -1 },
      prompt_logprobs: true,
      topk_prompt_logprobs: 0,
    });
    return alignPromptLogprobs(out.promptLogprobs, tokens.length, this.#engine?.promptLogprobs ?? 'N');
  }
}

/**
 * Prompt logprobs of an N-token prompt as agentrl's `computeLogprobs` returns them (N entries, entry 0 `null`): an
 * engine's N entries get entry 0 set to `null`; SkyRL-JAX's N−1 (no entry for token 0; `tx/utils/generator.py` ~l.438)
 * get a leading `null`.
 * @throws BackendInputError for any other count.
 */
export function alignPromptLogprobs(lp: readonly (number | null)[] | undefined, n: number, alignment: 'N' | 'N-1' | 'none'): (number | null)[] {
  if (lp !== undefined && lp.length === n) return [null, ...lp.slice(1)];
  if (lp !== undefined && alignment === 'N-1' && lp.length === n - 1) return [null, ...lp];
  throw new BackendInputError(
    'tokens',
    `server returned ${lp?.length ?? 'no'} prompt logprobs for ${n} tokens${alignment === 'N-1' ? ` (expected ${n} or ${n - 1})` : ''}`,
  );
}
