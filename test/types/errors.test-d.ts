import { expectTypeOf, test } from 'vitest';
import {
  isAgentRLError,
  type AgentRLErrorCode,
  type AgentRLErrorUnion,
  type ConfigError,
  type ConfigIssue,
  type PromptPrefixError,
  type SandboxTimeoutError,
  type RolloutFailedError,
} from 'agentrl';

test('switch (e.code) narrows an agentrl error to its class', () => {
  const e: unknown = undefined;
  if (!isAgentRLError(e)) return;
  expectTypeOf(e).toEqualTypeOf<AgentRLErrorUnion>();
  switch (e.code) {
    case 'SANDBOX_TIMEOUT':
      expectTypeOf(e).toEqualTypeOf<SandboxTimeoutError>();
      expectTypeOf(e.timeoutMs).toBeNumber();
      break;
    case 'CONFIG_INVALID':
      expectTypeOf(e).toEqualTypeOf<ConfigError>();
      expectTypeOf(e.issues).toEqualTypeOf<readonly ConfigIssue[]>();
      break;
    case 'PROMPT_PREFIX_MISMATCH':
      expectTypeOf(e).toEqualTypeOf<PromptPrefixError>();
      expectTypeOf(e.position).toEqualTypeOf<number | undefined>();
      break;
    case 'ROLLOUT_FAILED':
      expectTypeOf(e).toEqualTypeOf<RolloutFailedError>();
      break;
    default:
      expectTypeOf(e.code).toEqualTypeOf<Exclude<AgentRLErrorCode, 'SANDBOX_TIMEOUT' | 'CONFIG_INVALID' | 'PROMPT_PREFIX_MISMATCH' | 'ROLLOUT_FAILED'>>();
  }
});

test('codes are literals, on the class and on the instance', () => {
  expectTypeOf<SandboxTimeoutError['code']>().toEqualTypeOf<'SANDBOX_TIMEOUT'>();
  expectTypeOf<AgentRLErrorCode>().not.toEqualTypeOf<string>();
});
