import type { InvalidReason } from '../../types/action.js';
import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';

/**
 * The model families agentrl renders and parses natively (docs/models.md has the table):
 * - `qwen3`: Qwen / Hermes `<tool_call>{json}</tool_call>` blocks, `<think>` reasoning (also the embedded model);
 * - `qwen3_coder`: Qwen3-Coder / Qwen3.5 XML calls `<tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>`;
 * - `llama3`: Llama 3.1–3.3 JSON calls `{"name", "parameters"}` (optionally after `<|python_tag|>`), built-in code after `<|python_tag|>`;
 * - `deepseek_v3`: DeepSeek V3 / R1 `<｜tool▁calls▁begin｜>…` markers, R1 `<think>` reasoning;
 * - `gpt_oss`: OpenAI harmony (channels `analysis` / `commentary` / `final`, `to=functions.NAME`, `<|call|>`);
 * - `kimi_k2`: Kimi K2 `<|tool_calls_section_begin|>…` with ids `functions.NAME:IDX`, `<think>` reasoning (K2 Thinking);
 * - `mistral`: Mistral `[TOOL_CALLS]` (a JSON list, or `NAME[ARGS]{json}` per call in tokenizer v11+), `[THINK]` reasoning.
 */
export type FamilyId = 'qwen3' | 'qwen3_coder' | 'llama3' | 'deepseek_v3' | 'gpt_oss' | 'kimi_k2' | 'mistral';

/** Every {@link FamilyId}, in the order detection tries them. */
export const FAMILY_IDS: readonly FamilyId[] = ['gpt_oss', 'kimi_k2', 'deepseek_v3', 'mistral', 'llama3', 'qwen3_coder', 'qwen3'];

/** What a family parser is told besides the completion text. */
export interface FamilyParseOptions {
  /** Several calls in one turn are allowed (else a second call is `multiple_tool_calls`). */
  readonly parallelToolCalls: boolean;
  /**
   * Qwen3 only: `'code'` means a `<tool_call>` body is the Python code itself (the ReTool recipe's style,
   * KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`).
   */
  readonly format: 'json' | 'code';
  /** Tool that receives raw code (the `'code'` format, Llama's `<|python_tag|>` code, harmony's `python` recipient). */
  readonly codeToolName: string;
  /** Tools on offer (the XML format converts parameter values with their schema types); omitted = any. */
  readonly tools?: readonly ToolDefinition[];
}

/**
 * A family parser's verdict on one completion (stop text already removed), before the calls are checked against the
 * offered tools. `content` is the visible text before the calls (or the answer); `reasoning` the family's reasoning
 * part when it has one (kept out of the calls' arguments).
 */
export type FamilyParse =
  | { readonly kind: 'answer'; readonly content: string; readonly reasoning?: string }
  | { readonly kind: 'calls'; readonly content: string; readonly calls: readonly ToolCall[]; readonly reasoning?: string }
  | { readonly kind: 'invalid'; readonly reason: InvalidReason };

/**
 * What a family renders in code instead of a shipped chat template (GPT-OSS harmony ships none; the Llama 3 package
 * template knows no tools). `renderText` has the same contract as a Jinja chat template; `renderObservation` is the
 * text that follows a sampled tool-call turn (tool messages plus the next assistant header).
 */
export interface CodeTemplate {
  renderText(messages: readonly Message[], opts: CodeRenderOptions): string;
  renderObservation(observation: readonly Message[], calls: readonly ToolCall[], opts: CodeRenderOptions): string;
  /** The token string that closes a tool-call turn when the sampled tokens lack it (harmony `<|call|>`, Llama `<|eot_id|>`). */
  readonly callTurnEnd: string;
}

/** Options a {@link CodeTemplate} renders with. */
export interface CodeRenderOptions {
  readonly tools?: readonly ToolDefinition[];
  readonly addGenerationPrompt: boolean;
  readonly kwargs: Readonly<Record<string, unknown>>;
  /** Special-token strings to defuse inside tool output. */
  readonly specialTokens: readonly string[];
}

/** One model family: how it is detected, how its completions parse, what stops a turn, how it renders when needed. */
export interface ModelFamily {
  readonly id: FamilyId;
  /** Human-readable name for errors and docs. */
  readonly label: string;
  /**
   * True when the model folder is this family's: `config.json`'s `model_type`, the tokenizer's added tokens, the
   * chat template's markers.
   */
  detect(files: FamilyDetectInput): boolean;
  /** Parses a completion (stop text removed). Pure, never throws for model text. */
  parse(text: string, opts: FamilyParseOptions): FamilyParse;
  /** Token strings that end a turn besides the EOS ids (e.g. Llama `<|eom_id|>`, harmony `<|call|>`), when in the vocabulary. */
  readonly stopStrings: readonly string[];
  /** Template messages for this family's chat template: arguments as a JSON string where the template concatenates them. */
  readonly argumentsAsJsonString?: boolean;
  /** The family's own rendering, used when no usable chat template ships (see {@link CodeTemplate}). */
  readonly codeTemplate?: CodeTemplate;
  /** True when the shipped chat template cannot render tools for this family and {@link codeTemplate} should be used. */
  needsCodeTemplate?(chatTemplate: string | undefined): boolean;
  /**
   * The family's published tool list for the system prompt, used when its chat template renders no `tools` (DeepSeek
   * V3's template ignores them): appended to the first system message, or a system message of its own when there is
   * none, so the same `Environment` reaches the model's tools on every family.
   */
  readonly systemToolPrompt?: SystemToolPrompt;
}

/** See {@link ModelFamily.systemToolPrompt}. */
export interface SystemToolPrompt {
  /** True when `chatTemplate` (the template in use) does not render `tools` itself. */
  needed(chatTemplate: string): boolean;
  /**
   * The text to add to the system prompt for `tools`, starting with the separator it needs after earlier system text.
   * `defuse` breaks special-token strings in text that comes from the tool definitions (they may come from an MCP server).
   */
  render(tools: readonly ToolDefinition[], defuse: (text: string) => string): string;
}

/** What detection looks at. */
export interface FamilyDetectInput {
  /** `config.json`'s `model_type` (and `architectures`), when the folder has one. */
  readonly modelType?: string;
  readonly architectures?: readonly string[];
  /** The chat template source, when one ships. */
  readonly chatTemplate?: string;
  /** Added-token strings of the tokenizer. */
  readonly specialTokens: ReadonlySet<string>;
}
