import type { SamplingClient } from '../../backend/types.js';
import type { Renderer } from '../../chat/types.js';
import type { Message } from '../../types/message.js';
import { untilAborted } from '../../rollout/abortable.js';

/** A judge model behind a {@link SamplingClient} (e.g. a frozen copy of the policy, or any backend's sampler). */
export interface SamplerJudge {
  /** Samples the judge's replies. */
  readonly sampler: SamplingClient;
  /** Renders the judge prompt and parses its reply (the judge model's chat template). */
  readonly renderer: Renderer;
  /** Stable name for the cache key. @default 'sampler' */
  readonly name?: string;
}

/** A judge model behind an OpenAI-compatible chat completions endpoint (`agentrl serve`'s `/v1`, vLLM, a hosted API). */
export interface EndpointJudge {
  /** Base URL ending in `/v1`, e.g. `'http://127.0.0.1:8000/v1'`. */
  readonly baseURL: string;
  /** Model name sent in each request. */
  readonly model: string;
  /** Bearer token sent as `Authorization`, when the endpoint needs one. */
  readonly apiKey?: string;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

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
 * One completion of `messages` from the judge: its text.
 * @throws Error when the endpoint answers a non-2xx status or a body without a message; the signal's reason on abort.
 */
export async function complete(judge: Judge, messages: readonly Message[], o: JudgeCallOptions): Promise<string> {
  if ('baseURL' in judge) {
    const res = await fetch(`${judge.baseURL.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(judge.apiKey ? { authorization: `Bearer ${judge.apiKey}` } : {}), ...(judge.headers ?? {}) },
      body: JSON.stringify({ model: judge.model, messages, max_tokens: o.maxTokens, temperature: o.temperature }),
      signal: o.signal,
    });
    const body = (await res.json().catch(() => undefined)) as { choices?: { message?: { content?: unknown } }[]; error?: { message?: string } } | undefined;
    if (!res.ok) throw new Error(`judge endpoint answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ''}`);
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('judge endpoint answered without a message');
    return content;
  }
  const { sampler, renderer } = judge;
  const prompt = renderer.renderPrompt(messages, { addGenerationPrompt: true });
  const [seq] = await untilAborted(sampler.sample(prompt, { numSamples: 1, maxTokens: o.maxTokens, temperature: o.temperature, stop: renderer.stopTokens, signal: o.signal }), o.signal);
  if (!seq) throw new Error('the judge sampler returned no sequence');
  const last = seq.tokens[seq.tokens.length - 1];
  return renderer.decode(last !== undefined && renderer.stopTokens.includes(last) ? seq.tokens.slice(0, -1) : seq.tokens);
}
