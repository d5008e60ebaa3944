import { sha256Hex } from '../platform/host.js';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Template } from '@huggingface/jinja';
import { compileChatTemplate } from './jinja-compat.js';
import type { Message, ToolDefinition } from '../types/message.js';
import type { ParsedAction } from '../types/action.js';
import type { NextPromptArgs, ParseOptions, RenderOptions, Renderer } from './types.js';
import { ChatTemplateError } from '../errors/chat-template-error.js';
import { TokenizerError } from '../errors/chat-errors.js';
import { AgentRLError } from '../errors/base.js';
import { parseAssistant, type ToolCallFormat } from './parse-assistant.js';
import { spliceObservation } from './next-prompt.js';
import { toTemplateMessages } from './template-messages.js';
import { sanitizeToolContent } from './sanitize.js';
import { sanitizeToolDefinitions } from './sanitize-tools.js';
import { validateCreateOptions, type RendererFiles, type RendererSettings } from './options.js';
import type { FamilyId, ModelFamily } from './families/types.js';
import { detectFamily, getFamily } from './families/registry.js';
import { codeTemplateNextPrompt } from './families/code-next-prompt.js';

/**
 * A {@link Renderer} built from Hugging Face tokenizer files, with a few extras for tooling and tests.
 */
export interface ChatRenderer extends Renderer {
  /** The rendered prompt text (what {@link Renderer.renderPrompt} encodes). */
  renderText(messages: readonly Message[], opts?: RenderOptions): string;
  /** Every added-token string of the tokenizer; defused in tool output by `sanitizeToolContent`. */
  readonly specialTokens: readonly string[];
  /** Decoded {@link Renderer.stopTokens}, e.g. `['<|im_end|>', '<|endoftext|>']` for Qwen3 with its generation config. */
  readonly stopStrings: readonly string[];
  /** sha256 (hex) of the chat template source in use; pin it with `expectedTemplateSha256`. */
  readonly chatTemplateSha256: string;
  /** Tool-call body format used by {@link Renderer.parseAssistant} (Qwen3 family). */
  readonly toolCallFormat: ToolCallFormat;
  /** The model family whose prompt format and call syntax this renderer uses (detected, or `family` when given). */
  readonly family: FamilyId;
  /** Where prompts come from: the checkpoint's Jinja chat template, or the family's format written in code. */
  readonly templateSource: 'jinja' | 'code';
}

/**
 * Builds a renderer from parsed `tokenizer.json` / `tokenizer_config.json` objects (no I/O).
 * The tokenizer is `@huggingface/tokenizers` (`new Tokenizer(json, config)`, ~0.7 s for Qwen3's 11 MB
 * file) and the chat template is compiled once with `@huggingface/jinja`.
 *
 * Encoding: `encode(text)` recognises added tokens inside `text` (HF default) and adds no BOS/EOS;
 * prompts are rendered to one string and encoded once (templates emit their own BOS if any).
 *
 * @throws ConfigError for invalid options; TokenizerError when the files are unusable (no chat
 *   template, unknown stop token, template hash mismatch).
 */
export function createRenderer(options: RendererSettings & RendererFiles): ChatRenderer {
  const opts = validateCreateOptions(options);
  const config = opts.tokenizerConfig;
  const shipped = opts.chatTemplate ?? pickChatTemplate(config.chat_template);

  const family: ModelFamily = getFamily(
    opts.family ??
      detectFamily({
        ...modelTypeOf(opts.modelConfig),
        ...(shipped !== undefined ? { chatTemplate: shipped } : {}),
        specialTokens: addedTokenStrings(opts.tokenizerJson),
      }),
  );
  const codeTemplate =
    opts.chatTemplate === undefined && family.codeTemplate && (family.needsCodeTemplate?.(shipped) ?? false) ? family.codeTemplate : undefined;
  if (!codeTemplate && shipped === undefined) {
    throw new TokenizerError('tokenizer_config.json has no usable chat_template (pass chatTemplate to supply one)');
  }
  // A code template is pinned by its family id (its text is agentrl's code, versioned with the package).
  const source = codeTemplate ? `agentrl:code-template:${family.id}` : (shipped as string);
  const chatTemplateSha256 = sha256Hex(source);
  if (opts.expectedTemplateSha256 !== undefined && opts.expectedTemplateSha256 !== chatTemplateSha256) {
    throw new TokenizerError(`chat template sha256 ${chatTemplateSha256} differs from the pinned ${opts.expectedTemplateSha256}`);
  }

  const eosIds = generationEosIds(opts.generationConfig);
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(opts.tokenizerJson, config);
  } catch (cause) {
    throw new TokenizerError(`cannot build the tokenizer: ${String(cause)}`, { cause });
  }
  let template: Template | undefined;
  if (!codeTemplate) {
    try {
      template = compileChatTemplate(source);
    } catch (cause) {
      throw new TokenizerError(`cannot parse the chat template: ${String(cause)}`, { cause });
    }
  }
  const specialTokens = [...tokenizer.get_added_tokens_decoder().values()].map((t) => t.content).filter((s) => s.length > 0);
  const vocab = tokenizer.get_vocab(true);
  let maxId = -1;
  for (const id of vocab.values()) if (id > maxId) maxId = id;

  const stopStrings = [...(opts.stopTokens ?? defaultStopStrings(config, vocab, family))];
  const stopTokens = stopStrings.map((s) => {
    const id = tokenizer.token_to_id(s);
    if (id === undefined) throw new TokenizerError(`stop token ${JSON.stringify(s)} is not in the vocabulary`);
    return id;
  });
  // Every EOS id of generation_config.json ends a turn too (Qwen3: <|im_end|> and <|endoftext|>).
  const idToToken = new Map<number, string>();
  for (const [tok, id] of vocab) idToToken.set(id, tok);
  for (const id of eosIds) {
    if (stopTokens.includes(id)) continue;
    const tok = idToToken.get(id);
    if (tok === undefined) throw new TokenizerError(`generation_config.json eos_token_id ${id} is not in the vocabulary`);
    stopTokens.push(id);
    stopStrings.push(tok);
  }

  // A family whose template ignores `tools` gets them in its system prompt, in the family's published format.
  const toolPrompt = !codeTemplate && family.systemToolPrompt?.needed(source) === true ? family.systemToolPrompt : undefined;
  const baseVars = specialTokenVars(config);
  const defaultKwargs = opts.templateKwargs ?? {};
  const toolCallFormat = opts.toolCallFormat ?? 'json';
  const codeToolName = opts.codeToolName ?? 'code_interpreter';

  const encode = (text: string): number[] => (text === '' ? [] : tokenizer.encode(text, { add_special_tokens: false }).ids);
  const decode = (tokens: readonly number[]): string =>
    tokens.length === 0 ? '' : tokenizer.decode([...tokens], { skip_special_tokens: false, clean_up_tokenization_spaces: false });

  // Tool definitions enter the template defused, whoever wrote them (an MCP server, an agent's request, a custom
  // environment); an environment's list is one array for the whole run, so each is walked once.
  const safeTools = new WeakMap<readonly ToolDefinition[], ToolDefinition[]>();
  const defused = (tools: readonly ToolDefinition[] | undefined): ToolDefinition[] | undefined => {
    if (!tools || tools.length === 0) return undefined;
    let out = safeTools.get(tools);
    if (!out) safeTools.set(tools, (out = sanitizeToolDefinitions(tools, specialTokens)));
    return out;
  };
  const renderText = (messages: readonly Message[], ro: RenderOptions = {}): string => {
    const tools = defused(ro.tools);
    if (codeTemplate) {
      return codeTemplate.renderText(messages, {
        ...(tools ? { tools } : {}),
        addGenerationPrompt: ro.addGenerationPrompt ?? true,
        kwargs: { ...defaultKwargs, ...ro.templateKwargs },
        specialTokens,
      });
    }
    const context: Record<string, unknown> = {
      ...baseVars,
      ...defaultKwargs,
      ...ro.templateKwargs,
      messages: toTemplateMessages(
        tools && toolPrompt
          ? withSystemText(
              messages,
              toolPrompt.render(tools, (t) => sanitizeToolContent(t, specialTokens)),
            )
          : messages,
        specialTokens,
        {
          argumentsAsJsonString: family.argumentsAsJsonString === true,
        },
      ),
      add_generation_prompt: ro.addGenerationPrompt ?? true,
    };
    if (tools) context.tools = tools;
    try {
      return template!.render(context);
    } catch (cause) {
      if (AgentRLError.isInstance(cause)) throw cause;
      throw new ChatTemplateError(`chat template failed to render: ${String(cause)}`, { cause });
    }
  };

  return {
    renderText,
    renderPrompt: (messages, ro) => encode(renderText(messages, ro)),
    nextPrompt: (args: NextPromptArgs) => {
      const ro = { tools: args.tools, templateKwargs: args.templateKwargs };
      if (codeTemplate) {
        return codeTemplateNextPrompt(codeTemplate, family, args, {
          encode,
          decode,
          stopTokens,
          codeToolName,
          render: {
            ...(args.tools && args.tools.length > 0 ? { tools: defused(args.tools)! } : {}),
            addGenerationPrompt: true,
            kwargs: { ...defaultKwargs, ...args.templateKwargs },
            specialTokens,
          },
        });
      }
      return spliceObservation(
        {
          render: (messages, addGenerationPrompt) => renderText(messages, { ...ro, addGenerationPrompt }),
          encode,
          decode,
        },
        args,
      );
    },
    parseAssistant: (text: string, tools?: readonly ToolDefinition[], po?: ParseOptions): ParsedAction =>
      parseAssistant(text, { tools, family: family.id, format: toolCallFormat, codeToolName, stopStrings, parallelToolCalls: po?.parallelToolCalls === true }),
    encode,
    decode,
    countObservationTokens: (text: string) => encode(sanitizeToolContent(text, specialTokens)).length,
    stopTokens,
    stopStrings,
    vocabSize: maxId + 1,
    specialTokens,
    chatTemplateSha256,
    toolCallFormat,
    family: family.id,
    templateSource: codeTemplate ? 'code' : 'jinja',
  };
}

/** The `added_tokens` contents of a parsed `tokenizer.json` (family detection runs before the tokenizer is built). */
function addedTokenStrings(tokenizerJson: Record<string, unknown>): Set<string> {
  const added = tokenizerJson['added_tokens'];
  const out = new Set<string>();
  if (Array.isArray(added)) {
    for (const t of added)
      if (t && typeof t === 'object' && typeof (t as { content?: unknown }).content === 'string') out.add((t as { content: string }).content);
  }
  return out;
}

/** `model_type` / `architectures` of a parsed `config.json`, for family detection. */
function modelTypeOf(config: Record<string, unknown> | undefined): { modelType?: string; architectures?: string[] } {
  const out: { modelType?: string; architectures?: string[] } = {};
  if (typeof config?.['model_type'] === 'string') out.modelType = config['model_type'];
  const arch = config?.['architectures'];
  if (Array.isArray(arch)) out.architectures = arch.filter((a): a is string => typeof a === 'string');
  return out;
}

/** Picks the template source: a string, the `default` entry of a named list/map, or the first one; `undefined` when none. */
function pickChatTemplate(raw: unknown): string | undefined {
  if (typeof raw === 'string' && raw.length > 0) return raw;
  if (Array.isArray(raw)) {
    const named = raw as { name?: unknown; template?: unknown }[];
    const hit = named.find((t) => t.name === 'default') ?? named[0];
    if (hit && typeof hit.template === 'string') return hit.template;
  } else if (raw && typeof raw === 'object') {
    const map = raw as Record<string, unknown>;
    const hit = map.default ?? Object.values(map)[0];
    if (typeof hit === 'string') return hit;
  }
  return undefined;
}

/** A special-token entry of `tokenizer_config.json`: a string or `{ content }`. */
function tokenString(v: unknown): string | undefined {
  if (typeof v === 'string' && v.length > 0) return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') {
    return (v as { content: string }).content;
  }
  return undefined;
}

/** `bos_token`, `eos_token`, … as template variables (transformers passes the special-tokens map). */
function specialTokenVars(config: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'unk_token', 'pad_token', 'sep_token', 'cls_token', 'mask_token']) {
    const s = tokenString(config[key]);
    if (s !== undefined) out[key] = s;
  }
  return out;
}

/**
 * The `eos_token_id` entries of a parsed `generation_config.json` (a number or a list of numbers); `[]` when absent.
 * @throws TokenizerError when the field is present but not a non-negative integer or a list of them.
 */
function generationEosIds(config: Record<string, unknown> | undefined): number[] {
  const raw = config?.['eos_token_id'];
  if (raw === undefined || raw === null) return [];
  const ids = Array.isArray(raw) ? raw : [raw];
  if (!ids.every((x) => Number.isInteger(x) && (x as number) >= 0)) {
    throw new TokenizerError(`generation_config.json eos_token_id must be an integer or a list of integers, got ${JSON.stringify(raw)}`);
  }
  return ids as number[];
}

/** The config's `eos_token`, then the family's end-of-turn / call tokens that are in the vocabulary. */
function defaultStopStrings(config: Record<string, unknown>, vocab: Map<string, number>, family: ModelFamily): string[] {
  const out: string[] = [];
  const eos = tokenString(config.eos_token);
  if (eos !== undefined) out.push(eos);
  for (const s of family.stopStrings) if (vocab.has(s) && !out.includes(s)) out.push(s);
  if (out.length === 0) throw new TokenizerError('no stop token: tokenizer_config.json has no eos_token (pass stopTokens)');
  return out;
}

/**
 * `messages` with `text` appended to the first system message, or, when the conversation has none, a system message
 * of its own first (its leading blank lines dropped).
 */
function withSystemText(messages: readonly Message[], text: string): Message[] {
  const first = messages[0];
  if (first?.role === 'system') return [{ ...first, content: first.content + text }, ...messages.slice(1)];
  return [{ role: 'system', content: text.replace(/^\n+/, '') }, ...messages];
}
