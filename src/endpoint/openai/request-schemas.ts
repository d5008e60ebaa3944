import { z } from '../../util/zod.js';
import { OpenAIApiError } from './api-error.js';

const tokenIds = z.array(z.number().int().min(0));

/** Sampling fields shared by `/v1/completions` and `/v1/chat/completions` (OpenAI's, plus vLLM's extensions). */
const samplingShape = {
  model: z.string().min(1),
  n: z.number().int().min(1).max(128).optional(),
  temperature: z.number().min(0).max(100).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  /** vLLM: `-1` or `0` disables. */
  top_k: z.number().int().min(-1).optional(),
  seed: z.number().int().optional(),
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  stop_token_ids: tokenIds.nullable().optional(),
  ignore_eos: z.boolean().optional(),
  min_p: z.number().min(0).max(1).nullable().optional(),
  repetition_penalty: z.number().gt(0).nullable().optional(),
  presence_penalty: z.number().nullable().optional(),
  frequency_penalty: z.number().nullable().optional(),
  skip_special_tokens: z.boolean().optional(),
  return_token_ids: z.boolean().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
};

/** Body of `POST /v1/completions` (unknown fields are ignored, as OpenAI-compatible servers do). */
export const completionSchema = z.looseObject({
  ...samplingShape,
  prompt: z.union([z.string(), z.array(z.string()).min(1), tokenIds.min(1), z.array(tokenIds.min(1)).min(1)]),
  max_tokens: z.number().int().min(0).nullable().optional(),
  logprobs: z.number().int().min(0).nullable().optional(),
  echo: z.boolean().nullable().optional(),
  prompt_logprobs: z.number().int().min(-1).nullable().optional(),
  return_tokens_as_token_ids: z.boolean().optional(),
});
export type CompletionBody = z.infer<typeof completionSchema>;

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const content = z
  .union([z.string(), z.array(textPart)])
  .nullable()
  .optional();
const toolCall = z.looseObject({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

/** One message of a chat request. */
export const chatMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content }),
  z.looseObject({ role: z.literal('developer'), content }),
  z.looseObject({ role: z.literal('user'), content }),
  z.looseObject({ role: z.literal('assistant'), content, tool_calls: z.array(toolCall).nullable().optional() }),
  z.looseObject({ role: z.literal('tool'), content, tool_call_id: z.string().optional(), name: z.string().optional() }),
]);
export type ChatMessageBody = z.infer<typeof chatMessageSchema>;

/** Body of `POST /v1/chat/completions`. */
export const chatSchema = z.looseObject({
  ...samplingShape,
  messages: z.array(chatMessageSchema).min(1),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).nullable().optional(),
  // OpenAI's rule for function names (no `<`, `|` or newline: a name cannot carry a control token or a tag); the other
  // texts of a definition are defused where they enter the chat template.
  tools: z
    .array(
      z.looseObject({
        type: z.literal('function'),
        function: z.looseObject({
          name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a function name of 1 to 64 letters, digits, _ or -'),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .refine((ts) => new Set(ts.map((t) => t.function.name)).size === ts.length, 'two tools share a name')
    .nullable()
    .optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.literal('function') })])
    .nullable()
    .optional(),
  /** vLLM: extra chat-template variables, e.g. `{ enable_thinking: false }`. */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullable().optional(),
  add_generation_prompt: z.boolean().optional(),
});
export type ChatBody = z.infer<typeof chatSchema>;

/**
 * Parses a request body (or the part of one at `at`, e.g. `input.3`, which prefixes the field named).
 * @throws OpenAIApiError 400 naming the first offending field (`param`).
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown, at?: string): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const param = [...(at ? [at] : []), ...issue.path.map(String)].join('.');
  throw new OpenAIApiError(400, `${param || 'body'}: ${issue.message}`, { param: param || null, errorCode: 'invalid_value' });
}
