import type { Message } from '../../types/message.js';
import { completeAtEndpoint, type EndpointJudge } from './judge-endpoint.js';
import { completeWithSampler, type SamplerJudge } from './judge-sampler.js';

export type { EndpointJudge } from './judge-endpoint.js';
export type { SamplerJudge } from './judge-sampler.js';

/** Where judgements come from: a sampler in this process, or an OpenAI-compatible endpoint. */
export type Judge = SamplerJudge | EndpointJudge;

/** Sampling settings of a judge call. */
export interface JudgeCallOptions {
  readonly maxTokens: number;
  readonly temperature: number;
  readonly signal: AbortSignal;
}

/** Identifies the judge in cache keys. */
export function judgeId(judge: Judge): string {
  return 'baseURL' in judge ? `${judge.baseURL}#${judge.model}` : `sampler:${judge.name ?? 'sampler'}`;
}

/**
 * One completion of `messages` from the judge: its raw text (reasoning included; the verdict rule strips it).
 * @throws see `completeAtEndpoint` (HTTP bounds) and `completeWithSampler` (control tokens); the signal's reason on abort.
 */
export function complete(judge: Judge, messages: readonly Message[], o: JudgeCallOptions): Promise<string> {
  return 'baseURL' in judge ? completeAtEndpoint(judge, messages, o) : completeWithSampler(judge, messages, o);
}
