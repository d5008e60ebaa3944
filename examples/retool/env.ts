/** The example's environments: tool mode (code interpreter) and the text-only baseline. */
import { codeInterpreter, type Environment } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { TOOL_TIMEOUT_MS } from './config.js';

/** System prompt of tool mode with `--session`. */
export const SESSION_PROMPT = 'Python variables persist between code_interpreter runs.';

/**
 * Tool mode: the `code_interpreter` tool on a local sandbox. No system prompt: the tiny model learns
 * the protocol in SFT. With `session` (the `--session` flag), one interpreter session per trajectory:
 * variables persist from call to call, and a one-line system prompt says so ({@link SESSION_PROMPT};
 * the library's full session prompt does not fit the tiny model's 192-token context).
 */
export function toolEnv(workers = 4, opts: { session?: boolean } = {}): Environment {
  const sandbox = localSandbox({ workers, timeoutMs: TOOL_TIMEOUT_MS });
  if (opts.session) return codeInterpreter({ sandbox, session: 'trajectory', systemPrompt: SESSION_PROMPT, timeoutMs: TOOL_TIMEOUT_MS });
  return codeInterpreter({ sandbox, systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS });
}

/** Text-only mode: same problems and prompt, no tool offered (a tool call is then `unknown_tool` → invalid). */
export function textOnlyEnv(): Environment {
  return {
    name: 'text-only',
    tools: [],
    initialMessages: (ex) => [{ role: 'user', content: ex.question }],
    step: async (action) => ({ done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' }),
  };
}

