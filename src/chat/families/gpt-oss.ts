import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { functionCall, isPlainObject } from './json-call.js';
import { harmonyCodeTemplate } from './gpt-oss-template.js';

/** Harmony's control tokens. */
export const HARMONY = {
  start: '<|start|>',
  channel: '<|channel|>',
  message: '<|message|>',
  end: '<|end|>',
  call: '<|call|>',
  ret: '<|return|>',
  constrain: '<|constrain|>',
} as const;

const H = HARMONY;

/** One assistant message of a completion: its header fields and content. */
interface HarmonyMessage {
  readonly channel?: string;
  readonly recipient?: string;
  readonly content: string;
  /** The message was closed by `<|end|>` (more may follow). */
  readonly ended: boolean;
}

/** Header text between the role (or the start of the completion) and `<|message|>`: channel, recipient, constraint. */
function readHeader(header: string): { channel?: string; recipient?: string } | null {
  let channel: string | undefined;
  let recipient: string | undefined;
  // ` to=functions.x`, `<|channel|>commentary`, ` <|constrain|>json` (or ` json`), in either order.
  const parts = header.split(H.channel);
  if (parts.length > 2) return null;
  const words = (s: string): string[] =>
    s
      .replace(H.constrain, ' ')
      .split(/\s+/)
      .filter((w) => w !== '');
  const before = words(parts[0] ?? '');
  const after = parts.length === 2 ? words(parts[1] ?? '') : [];
  if (parts.length === 2) {
    channel = after.shift();
    if (channel === undefined) return null;
  }
  for (const w of [...before, ...after]) {
    if (w.startsWith('to=')) {
      if (recipient !== undefined || w.length === 3) return null;
      recipient = w.slice(3);
    } else if (w !== 'json' && w !== 'code') {
      return null;
    }
  }
  return { ...(channel !== undefined ? { channel } : {}), ...(recipient !== undefined ? { recipient } : {}) };
}

/** Splits a completion into harmony messages; `null` when the structure is broken (no `<|message|>`, a bad header). */
function readMessages(text: string): HarmonyMessage[] | null {
  const out: HarmonyMessage[] = [];
  let i = 0;
  for (;;) {
    if (out.length > 0) {
      if (!text.startsWith(H.start, i)) return null;
      i += H.start.length;
      if (!text.startsWith('assistant', i)) return null;
      i += 'assistant'.length;
    }
    const m = text.indexOf(H.message, i);
    if (m < 0) return null;
    const header = readHeader(text.slice(i, m));
    if (!header) return null;
    const e = text.indexOf(H.end, m);
    const content = text.slice(m + H.message.length, e < 0 ? text.length : e);
    if ([H.start, H.channel, H.message, H.call, H.ret].some((t) => content.includes(t))) return null;
    out.push({ ...header, content, ended: e >= 0 });
    if (e < 0) return out;
    i = e + H.end.length;
    if (text.slice(i).trim() === '') return out;
  }
}

/**
 * GPT-OSS harmony (the `openai` parser of vLLM): the completion is one or more assistant messages, the first one's
 * `<|start|>assistant` being in the prompt: `<|channel|>analysis<|message|>…<|end|>`,
 * `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}` (then `<|call|>`, a stop
 * token) or `…<|channel|>final<|message|>answer` (then `<|return|>`). `analysis` is the reasoning (never the answer,
 * never arguments); a `commentary` message without recipient is a preamble (the content). A call is the last message
 * with recipient `functions.NAME` and a JSON-object body, or recipient `python` (harmony's built-in code tool, sent to
 * `codeToolName` as `{ code }`). A turn stops at its call, so harmony has one call per turn. Broken structure is
 * `bad_tool_syntax`; a call followed by more messages is `text_after_tool_call`; a final answer followed by more is
 * `text_after_tool_call` too. A completion that ends in `analysis` is an answer with empty content (reasoning only).
 */
export function parseHarmony(text: string, opts: FamilyParseOptions): FamilyParse {
  if (text.trim() === '') return { kind: 'answer', content: '' };
  const messages = readMessages(text);
  if (!messages) return { kind: 'invalid', reason: 'bad_tool_syntax' };
  const reasoning = messages
    .filter((m) => m.channel === 'analysis' && m.recipient === undefined)
    .map((m) => m.content)
    .join('\n');
  const withReasoning = reasoning !== '' ? { reasoning } : {};
  const preamble: string[] = [];
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k]!;
    const last = k === messages.length - 1;
    if (m.channel !== undefined && !['analysis', 'commentary', 'final'].includes(m.channel)) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    if (m.recipient !== undefined) {
      if (!last) return { kind: 'invalid', reason: 'text_after_tool_call' };
      if (m.recipient === 'python') {
        const code = m.content.trim();
        if (code === '') return { kind: 'invalid', reason: 'empty_tool_call' };
        return { kind: 'calls', content: preamble.join('\n'), calls: [functionCall(opts.codeToolName, { code })], ...withReasoning };
      }
      if (!m.recipient.startsWith('functions.') || m.recipient.length === 'functions.'.length) return { kind: 'invalid', reason: 'unknown_tool' };
      if (m.content.trim() === '') return { kind: 'invalid', reason: 'empty_tool_call' };
      let args: unknown;
      try {
        args = JSON.parse(m.content);
      } catch {
        return { kind: 'invalid', reason: 'bad_tool_json' };
      }
      if (!isPlainObject(args)) return { kind: 'invalid', reason: 'bad_arguments' };
      return { kind: 'calls', content: preamble.join('\n'), calls: [functionCall(m.recipient.slice('functions.'.length), args)], ...withReasoning };
    }
    if (m.channel === 'final') {
      if (!last) return { kind: 'invalid', reason: 'text_after_tool_call' };
      return { kind: 'answer', content: m.content.trim(), ...withReasoning };
    }
    if (m.channel === 'commentary' || m.channel === undefined) preamble.push(m.content.trim());
  }
  // No final message and no call: reasoning (or preamble) only.
  return { kind: 'answer', content: preamble.join('\n'), ...withReasoning };
}

/** GPT-OSS (20b / 120b): `model_type` `gpt_oss`, or the harmony tokens `<|channel|>` and `<|call|>`. */
export const gptOssFamily: ModelFamily = {
  id: 'gpt_oss',
  label: 'GPT-OSS (harmony)',
  detect: (f) => f.modelType === 'gpt_oss' || (f.specialTokens.has(H.channel) && f.specialTokens.has(H.call)),
  parse: parseHarmony,
  stopStrings: [H.ret, H.call],
  codeTemplate: harmonyCodeTemplate,
  // The harmony format is built in code (openai-harmony); a checkpoint's Jinja template, when one ships, is used.
  needsCodeTemplate: (t) => t === undefined,
};
