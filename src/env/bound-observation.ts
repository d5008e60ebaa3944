import type { Message } from '../types/message.js';
import type { ExecResult } from '../types/exec-result.js';
import { MAX_BYTES_PER_TOKEN, tailBytes, truncateTail, utf8Bytes } from './truncate.js';

/** What {@link boundObservation} returns: what the model will see, and how big the environment's output was. */
export interface BoundedObservation {
  /** The observation messages, each content within the tool-response budget. */
  readonly observation: readonly Message[];
  /** The execution result with `stdout`/`stderr` capped to the budget's bytes (tail kept, `truncated` set when cut). */
  readonly exec?: ExecResult;
  /** UTF-8 bytes of the environment's output before any cut (the env's `rawBytes` when it cut it itself). */
  readonly bytes: number;
  /** True when this call cut anything. */
  readonly truncated: boolean;
}

/**
 * Applies the tool-response budget to whatever an environment returned, built-in or custom, before a single token
 * of it is rendered: each message's content is cut to `maxTokens` (tail kept, {@link truncateTail}: bytes first,
 * then tokens, on code-point boundaries), and the raw execution output kept in the trajectory is capped to the same
 * byte bound, so a 200 KB tool output never stays in memory nor reaches the tokenizer whole.
 * @param countTokens - tokens of `text` inside a message of `role` as the model will see it (tool output after
 *   special-token escaping).
 * @param rawBytes - size the environment reports for output it already cut itself.
 */
export function boundObservation(
  outcome: { readonly observation: readonly Message[]; readonly exec?: ExecResult; readonly rawBytes?: number },
  maxTokens: number,
  countTokens: (text: string, role: Message['role']) => number,
): BoundedObservation {
  let truncated = false;
  let bytes = 0;
  const observation = outcome.observation.map((m): Message => {
    bytes += utf8Bytes(m.content);
    const content = truncateTail(m.content, maxTokens, (t) => countTokens(t, m.role));
    if (content === m.content) return m;
    truncated = true;
    return { ...m, content };
  });
  let exec = outcome.exec;
  if (exec !== undefined) {
    const maxBytes = Math.max(0, maxTokens) * MAX_BYTES_PER_TOKEN;
    const stdout = tailBytes(exec.stdout, maxBytes);
    const stderr = tailBytes(exec.stderr, maxBytes);
    if (stdout.length !== exec.stdout.length || stderr.length !== exec.stderr.length) {
      truncated = true;
      exec = { ...exec, stdout, stderr, truncated: true };
    }
  }
  return { observation, ...(exec !== undefined ? { exec } : {}), bytes: outcome.rawBytes ?? bytes, truncated };
}
