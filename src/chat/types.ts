import type { Message, ToolDefinition } from '../types/message.js';
import type { ParsedAction } from '../types/action.js';

/** Options for rendering a prompt with the chat template. */
export interface RenderOptions {
  /** Tools to advertise in the template's tool block. */
  readonly tools?: readonly ToolDefinition[];
  /** Append the assistant header so the model continues as the assistant. @default true */
  readonly addGenerationPrompt?: boolean;
  /** Extra template variables (e.g. `{ enable_thinking: false }` for Qwen3). */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
}

/**
 * Messages ↔ tokens for one model: tokenizer + chat template + tool-call protocol.
 * Token-in, token-out: sampled tokens are never decoded and re-encoded for training.
 */
export interface Renderer {
  /** Token ids of the full prompt for `messages`. */
  renderPrompt(messages: readonly Message[], opts?: RenderOptions): number[];
  /**
   * Next prompt after a tool turn, built by extension (placeholder-assistant trick, the ReTool recipe's
   * `build_next_prompt`, KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`):
   * `prevPrompt ++ completionTokens ++ missingClosingTokens ++ observationTokens`.
   * @throws PromptPrefixError when the template rewrites earlier history.
   */
  nextPrompt(args: NextPromptArgs): number[];
  /**
   * Parses an assistant completion into `tool | answer | invalid` in the model family's call syntax. With
   * `{ parallelToolCalls: true }` several calls in one turn are a `tool` action (`calls`, in order); else a second call
   * is `multiple_tool_calls`.
   */
  parseAssistant(text: string, tools?: readonly ToolDefinition[], opts?: ParseOptions): ParsedAction;
  /**
   * Encodes `text` as one string, adding no BOS/EOS (for budgets and SFT targets). Added-token strings
   * inside `text` (e.g. `<|im_end|>`) map to their ids, as in HF's default; tool output is sanitised
   * separately before rendering.
   */
  encode(text: string): number[];
  /** Decodes token ids back to text (special tokens included as their strings); the inverse of `encode` on whole characters. */
  decode(tokens: readonly number[]): string;
  /**
   * Tokens `text` takes as the content of a tool message once rendered, i.e. after special-token escaping (a
   * `<|im_end|>` printed by a program is several plain tokens there, not one). Used for the tool-response budget;
   * when absent, `encode(text).length` is used.
   */
  countObservationTokens?(text: string): number;
  /** Token ids that end an assistant turn (e.g. `<|im_end|>`). */
  readonly stopTokens: readonly number[];
  /** Vocabulary size (including added tokens). */
  readonly vocabSize: number;
}

/** Options of {@link Renderer.parseAssistant}. */
export interface ParseOptions {
  /** Several tool calls in one turn are valid. @default false */
  readonly parallelToolCalls?: boolean;
}

/** Arguments of {@link Renderer.nextPrompt}. */
export interface NextPromptArgs {
  /** Messages before the assistant turn that was just sampled. */
  readonly messagesBeforeAssistant: readonly Message[];
  /** The exact prompt tokens that turn was sampled from. */
  readonly prevPromptTokens: readonly number[];
  /** The exact sampled tokens (including the stop token when present). */
  readonly completionTokens: readonly number[];
  /** Observation messages to append (usually one `tool` message). */
  readonly observation: readonly Message[];
  /** Tools offered to the model, rendered by the template as in the first prompt. */
  readonly tools?: readonly ToolDefinition[];
  /** Extra chat-template variables (e.g. `{ enable_thinking: false }`), as in the first prompt. */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
}
