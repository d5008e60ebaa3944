/** The example's environments: tool mode (code interpreter) and the text-only baseline. */
import { codeInterpreter, type Environment } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { TOOL_TIMEOUT_MS } from './config.js';

/** Tool mode: the `code_interpreter` tool on a local sandbox. No system prompt: the tiny model learns the protocol in SFT. */
export function toolEnv(workers = 4): Environment {
  return codeInterpreter({ sandbox: localSandbox({ workers, timeoutMs: TOOL_TIMEOUT_MS }), systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS });
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

