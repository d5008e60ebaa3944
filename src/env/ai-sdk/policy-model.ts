import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultPart,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { checkOptions, optionKeys } from '../../util/check-options.js';
import { SamplerHttpError, SamplerResponseError } from '../../errors/sampler-errors.js';

const POLICY_MODEL_OPTIONS = optionKeys<PolicyLanguageModelOptions>({ baseURL: true, apiKey: true, model: true });

/**
 * The AI SDK language model {@link policyLanguageModel} returns (an `@ai-sdk/provider` `LanguageModelV4`), typed here
 * by its shape so that agentrl's declarations never import the optional peer `@ai-sdk/provider`: a project without
 * it type-checks with `skipLibCheck: false`, and one with it passes the model as `generateText({ model })`.
 */
export interface PolicyLanguageModel {
  /** The AI SDK provider specification this model implements. */
  readonly specificationVersion: 'v4';
  /** Provider id, `'agentrl.policy'`. */
  readonly provider: string;
  /** The model id sent to the endpoint (`opts.model`). */
  readonly modelId: string;
  /** URL patterns the model downloads itself: none. */
  readonly supportedUrls: Record<string, RegExp[]>;
  /** `LanguageModelV4.doGenerate` (called by the AI SDK). */
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's call options and results, which agentrl does not import (an optional peer)
  doGenerate(options: any): PromiseLike<any>;
  /** `LanguageModelV4.doStream` (called by the AI SDK). */
  // biome-ignore lint/suspicious/noExplicitAny: as doGenerate
  doStream(options: any): PromiseLike<any>;
}

/** Options of {@link policyLanguageModel}: the `run()` arguments of an agentEnvironment rollout. */
export interface PolicyLanguageModelOptions {
  /** The rollout's endpoint (`AgentRunArgs.baseURL`). */
  readonly baseURL: string;
  /** The rollout's key (`AgentRunArgs.apiKey`). */
  readonly apiKey: string;
  /** @default 'policy' */
  readonly model?: string;
}

type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

function toolOutputText(part: LanguageModelV4ToolResultPart): string {
  const o = part.output as { type: string; value?: unknown; reason?: string };
  if (o.type === 'text' || o.type === 'error-text') return String(o.value ?? '');
  if (o.type === 'execution-denied') return `Execution denied${o.reason ? `: ${o.reason}` : ''}`;
  if (o.type === 'content' && Array.isArray(o.value))
    return (o.value as { type: string; text?: string }[]).map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`)).join('\n');
  return JSON.stringify(o.value ?? null);
}

/** The AI SDK's prompt as OpenAI chat messages (text parts joined; files and reasoning left out). */
export function toOpenAIMessages(prompt: readonly unknown[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (const m of prompt as LanguageModelV4Prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user') out.push({ role: 'user', content: m.content.map((p) => (p.type === 'text' ? p.text : '')).join('') });
    else if (m.role === 'assistant') {
      const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      const calls = m.content.flatMap((p) =>
        p.type === 'tool-call'
          ? [
              {
                id: p.toolCallId,
                type: 'function' as const,
                function: { name: p.toolName, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input ?? {}) },
              },
            ]
          : [],
      );
      out.push({ role: 'assistant', content: text === '' && calls.length ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
      for (const p of m.content) if (p.type === 'tool-result') out.push({ role: 'tool', tool_call_id: p.toolCallId, content: toolOutputText(p) });
    } else {
      for (const p of m.content) if (p.type === 'tool-result') out.push({ role: 'tool', tool_call_id: p.toolCallId, content: toolOutputText(p) });
    }
  }
  return out;
}

function finishReason(raw: string | undefined): LanguageModelV4FinishReason {
  const unified = raw === 'stop' ? 'stop' : raw === 'length' ? 'length' : raw === 'tool_calls' ? 'tool-calls' : 'other';
  return { unified, raw };
}

/** Settings the policy ignores (the trainer's sampling settings apply), reported as AI SDK warnings. */
function warningsOf(o: LanguageModelV4CallOptions): SharedV4Warning[] {
  const ignored = (['temperature', 'topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'seed', 'stopSequences'] as const).filter((k) => o[k] !== undefined);
  return ignored.map((feature) => ({ type: 'unsupported', feature, details: 'the policy samples with the trainer’s settings' }) as SharedV4Warning);
}

/**
 * An AI SDK language model (provider interface `@ai-sdk/provider`, specification v4) backed by the policy being
 * trained: give it an agentEnvironment rollout's `baseURL` and `apiKey` and `generateText` / `streamText` loops with
 * tools run on the policy, every call recorded token for token as any other client's. Tool calls come back as AI SDK
 * tool calls (the AI SDK runs the tools); `maxOutputTokens` is honoured within the rollout's budgets; sampling
 * settings (temperature, top-p, …) are ignored with a warning (the trainer's apply). Streaming answers with the
 * whole completion once sampled (a text part, then the tool calls, then `finish`).
 * @example
 * const env = agentEnvironment({ run: async ({ baseURL, apiKey, example, signal }) =>
 *   (await generateText({ model: policyLanguageModel({ baseURL, apiKey }), tools, stopWhen: stepCountIs(5), prompt: example.question, abortSignal: signal })).text });
 */
export function policyLanguageModel(opts: PolicyLanguageModelOptions): PolicyLanguageModel {
  checkOptions('policyLanguageModel options', POLICY_MODEL_OPTIONS, opts, { signature: 'policyLanguageModel({ baseURL, apiKey?, model? })' });
  const modelId = opts.model ?? 'policy';
  const url = `${opts.baseURL.replace(/\/$/, '')}/chat/completions`;

  async function generate(o: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const tools = (o.tools ?? []).flatMap((t) =>
      t.type === 'function' ? [{ type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema } }] : [],
    );
    const body = {
      model: modelId,
      messages: toOpenAIMessages(o.prompt),
      ...(tools.length && o.toolChoice?.type !== 'none' ? { tools } : {}),
      ...(o.maxOutputTokens !== undefined ? { max_tokens: o.maxOutputTokens } : {}),
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.apiKey}` },
      body: JSON.stringify(body),
      ...(o.abortSignal ? { signal: o.abortSignal } : {}),
    });
    const json = (await res.json().catch(() => undefined)) as
      | {
          id?: string;
          choices?: {
            message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
            finish_reason?: string;
          }[];
          usage?: { prompt_tokens: number; completion_tokens: number };
          error?: { message?: string };
        }
      | undefined;
    if (!res.ok) throw new SamplerHttpError(res.status, json?.error?.message ?? 'no choice', url);
    if (!json?.choices?.[0]) throw new SamplerResponseError('choices[0]', null, `the policy endpoint answered ${res.status} without a choice`);
    const choice = json.choices[0];
    const content: LanguageModelV4Content[] = [];
    if (choice.message.content) content.push({ type: 'text', text: choice.message.content });
    for (const c of choice.message.tool_calls ?? [])
      content.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: c.function.arguments });
    return {
      content,
      finishReason: finishReason(choice.finish_reason),
      usage: {
        inputTokens: { total: json.usage?.prompt_tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: json.usage?.completion_tokens, text: json.usage?.completion_tokens, reasoning: undefined },
      },
      request: { body },
      response: { ...(json.id ? { id: json.id } : {}), modelId },
      warnings: warningsOf(o),
    };
  }

  const model = {
    specificationVersion: 'v4',
    provider: 'agentrl.policy',
    modelId,
    supportedUrls: {} as Record<string, RegExp[]>,
    doGenerate: generate,
    async doStream(o) {
      const r = await generate(o);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: r.warnings }];
      r.content.forEach((c, i) => {
        if (c.type === 'text')
          parts.push({ type: 'text-start', id: `t${i}` }, { type: 'text-delta', id: `t${i}`, delta: c.text }, { type: 'text-end', id: `t${i}` });
        else parts.push(c as LanguageModelV4StreamPart);
      });
      parts.push({ type: 'finish', usage: r.usage, finishReason: r.finishReason });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
        ...(r.request ? { request: r.request } : {}),
      };
    },
  } satisfies LanguageModelV4;
  return model;
}
