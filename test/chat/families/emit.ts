import type { ToolCall } from '../../../src/types/message.js';
import type { FamilyId } from '../../../src/chat/families/types.js';
import { pyJson } from '../qwen3-fixture.js';

/** A call a test emits: name and JSON arguments. */
export interface EmitCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/**
 * The text a model of each family writes for `calls` after `content`, in the family's published form (the same
 * form its chat template renders history in). Stop tokens are not included.
 */
export const EMIT: Readonly<Record<FamilyId, (calls: readonly EmitCall[], content?: string) => string>> = {
  qwen3: (calls, content = '') =>
    `${content}${content ? '\n' : ''}${calls.map((c) => `<tool_call>\n${pyJson({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n')}`,
  qwen3_coder: (calls, content = '') =>
    `${content}${content ? '\n' : ''}${calls
      .map(
        (c) =>
          `<tool_call>\n<function=${c.name}>\n${Object.entries(c.args)
            .map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>\n`)
            .join('')}</function>\n</tool_call>`,
      )
      .join('\n')}`,
  llama3: (calls) => calls.map((c) => `{"name": "${c.name}", "parameters": ${pyJson(c.args)}}`).join('; '),
  deepseek_v3: (calls, content = '') =>
    `${content}<｜tool▁calls▁begin｜>${calls
      .map((c) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${c.name}\n\`\`\`json\n${pyJson(c.args)}\n\`\`\`<｜tool▁call▁end｜>`)
      .join('\n')}<｜tool▁calls▁end｜>`,
  gpt_oss: (calls, content = '') =>
    `<|channel|>analysis<|message|>${content || 'Need a tool.'}<|end|>` +
    calls.map((c) => `<|start|>assistant<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${JSON.stringify(c.args)}`).join(''),
  kimi_k2: (calls, content = '') =>
    `${content}<|tool_calls_section_begin|>${calls
      .map((c, i) => `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${JSON.stringify(c.args)}<|tool_call_end|>`)
      .join('')}<|tool_calls_section_end|>`,
  mistral: (calls, content = '') => `${content}${calls.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${JSON.stringify(c.args)}`).join('')}`,
};

/** The parsed form of emitted calls (Kimi keeps its `functions.NAME:IDX` ids). */
export function expectedCalls(family: FamilyId, calls: readonly EmitCall[]): ToolCall[] {
  return calls.map((c, i) => ({
    ...(family === 'kimi_k2' ? { id: `functions.${c.name}:${i}` } : {}),
    type: 'function' as const,
    function: { name: c.name, arguments: c.args },
  }));
}
