/** The example's environments: tool mode (code interpreter) and the text-only baseline. */
import { codeInterpreter, type Environment } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { TOOL_TIMEOUT_MS } from './config.js';

/**
 * Tool mode: the `code_interpreter` tool on a local sandbox. No system prompt: the tiny model learns
 * the protocol in SFT. With `session` (the `--session` flag), one interpreter session per trajectory:
 * variables persist from call to call, and the tool's description (rendered into the prompt by the
 * chat template) says so. Still no system prompt: the library's session prompt
 * (`CODE_INTERPRETER_SESSION_SYSTEM_PROMPT`, its default in session mode) does not fit the tiny
 * model's 192-token context, and even a one-line one stopped the SFT model from calling the tool.
 */
export function toolEnv(workers = 4, opts: { session?: boolean } = {}): Environment {
  const sandbox = localSandbox({ workers, timeoutMs: TOOL_TIMEOUT_MS });
  if (opts.session) return codeInterpreter({ sandbox, session: 'trajectory', systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS });
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
