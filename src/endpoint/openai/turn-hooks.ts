// The hooks through which a recording server (agentEnvironment's endpoint) admits, records and releases each turn.
import type { ServerResponse } from 'node:http';
import type { Message, ToolDefinition } from '../../types/message.js';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import type { ExtractedMessage } from './tool-calls.js';

/** One sampled choice of a chat turn, whatever the wire (chat completions, responses, messages) answers it in. */
export interface ChoiceResult {
  readonly seq: SampledSequence;
  /** The decoded completion (stop token removed). */
  readonly text: string;
  /** The completion as the client receives it: text and parsed tool calls. */
  readonly message: ExtractedMessage;
  readonly finishReason: 'stop' | 'length' | 'tool_calls';
}

/** A chat turn as every wire reduces its request to: the conversation, the tools offered, how many choices. */
export interface TurnRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Choices asked for (OpenAI's `n`; 1 on the wires that have none). */
  readonly n: number;
  /** Extra chat-template variables the request gave (vLLM's `chat_template_kwargs`), if any. */
  readonly templateKwargs?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * One admitted completion of a recording server (agentEnvironment's endpoint), in the order a wire adapter calls it:
 * `prompt()` renders, `sample()` samples, `choose()` decides what is sent (and reserves what it spends of the
 * budgets), `deliverOn(res)` records it once the response was fully sent. Any failure on the way (a 400, a
 * disconnect) must end in `release()`, which frees the admission and records nothing; calling it after a commit is
 * a no-op.
 */
export interface TurnTicket {
  /** The prompt tokens. @throws OpenAIApiError 400 past the token budget (the ticket is then released). */
  prompt(): number[];
  /** Samples `prompt` under the server's own budgets and settings (the client's sampling settings are not used). */
  sample(prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]>;
  /** The choices to send (same length and order): as sampled, or with their tool calls withheld past a budget. */
  choose(choices: readonly ChoiceResult[]): readonly ChoiceResult[];
  /**
   * Records the chosen completion when `res` has been written completely with a 2xx status; releases it when the
   * client goes away first. `onCommit` runs once it is recorded (e.g. to keep a Responses API response).
   */
  deliverOn(res: ServerResponse, onCommit?: () => void): void;
  /** Frees the admission without recording anything. Idempotent. */
  release(): void;
}

/** A recording server's per-request hooks: one admission per completion, before any rendering work. */
export interface TurnHooks {
  /**
   * Admits one completion (turn, token and `n` budgets, a size bound in O(bytes)), synchronously and atomically with
   * every other request of the same key.
   * @throws OpenAIApiError (400 past a budget, 409 after the rollout ended)
   */
  begin(turn: TurnRequest): TurnTicket;
  /** Conversations of the Responses API kept by response id (`previous_response_id`), per key. */
  readonly responses: Map<string, readonly Message[]>;
}
