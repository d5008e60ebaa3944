import { AgentRLError } from './base.js';
import type { ConfigError } from './config-error.js';
import type { DatumShapeError, PromptPrefixError, DatasetError, DemonstrationError, DemonstrationFitError } from './data-errors.js';
import type { TokenizerError } from './chat-errors.js';
import type { BackendInputError, CheckpointError, BackendUnavailableError, BackendAuthError, BackendRequestError } from './backend-errors.js';
import type { SandboxTimeoutError, SandboxUnavailableError, SandboxClosedError, SessionsNotSupportedError } from './sandbox-errors.js';
import type { RetrieverError, SqlDatabaseError, McpServerError, ToolTimeoutError, EnvironmentOutputError } from './env-errors.js';
import type { ChatTemplateError } from './chat-template-error.js';
import type { MathWorkerError } from './math-errors.js';
import type { RolloutFailedError } from './rollout-errors.js';
import type { TrainerBusyError } from './trainer-errors.js';
import type { RewardShapeError } from './reward-shape-error.js';
import type { ZodVersionError } from './zod-version-error.js';
import type { SamplerResponseError, SamplerHttpError, SamplerUnavailableError } from './sampler-errors.js';
import type { ResponseTooLargeError, RedirectRefusedError } from './http-bound-errors.js';
import type { SampledSequenceError } from './sample-errors.js';
import type { MissingPeerDependencyError } from './dependency-errors.js';
import type { JudgeError } from './judge-errors.js';

/**
 * Every error class agentrl exports, as one union discriminated by `code`: after {@link isAgentRLError},
 * `switch (e.code)` narrows `e` to the class of that code (`case 'SANDBOX_TIMEOUT': e.timeoutMs`). A new error class
 * is added here (test/errors/union.test.ts checks the list against the exports).
 */
export type AgentRLErrorUnion =
  | ConfigError
  | DatasetError
  | DatumShapeError
  | DemonstrationError
  | DemonstrationFitError
  | PromptPrefixError
  | TokenizerError
  | ChatTemplateError
  | RewardShapeError
  | ZodVersionError
  | RolloutFailedError
  | TrainerBusyError
  | BackendInputError
  | BackendUnavailableError
  | BackendAuthError
  | BackendRequestError
  | CheckpointError
  | SandboxTimeoutError
  | SandboxUnavailableError
  | SandboxClosedError
  | SessionsNotSupportedError
  | RetrieverError
  | SqlDatabaseError
  | McpServerError
  | ToolTimeoutError
  | EnvironmentOutputError
  | MathWorkerError
  | SamplerResponseError
  | SamplerHttpError
  | SamplerUnavailableError
  | ResponseTooLargeError
  | RedirectRefusedError
  | SampledSequenceError
  | MissingPeerDependencyError
  | JudgeError;

/** The `code` of any agentrl error. */
export type AgentRLErrorCode = AgentRLErrorUnion['code'];

/**
 * True when `e` is an error agentrl threw (also from another installed copy of agentrl), typed as
 * {@link AgentRLErrorUnion} so that `switch (e.code)` narrows. Same test as `AgentRLError.isInstance(e)`.
 */
export function isAgentRLError(e: unknown): e is AgentRLErrorUnion {
  return AgentRLError.isInstance(e);
}
