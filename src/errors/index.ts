export { AgentRLError } from './base.js';
export { isAgentRLError, type AgentRLErrorUnion, type AgentRLErrorCode } from './union.js';
export { ConfigError, type ConfigIssue } from './config-error.js';
export { DatumShapeError, PromptPrefixError, DatasetError, DemonstrationError, DemonstrationFitError } from './data-errors.js';
export { TemplateRewriteError, TokenizerError } from './chat-errors.js';
export {
  BackendInputError,
  CheckpointError,
  BackendUnavailableError,
  BackendAuthError,
  BackendRequestError,
  type BackendErrorCategory,
} from './backend-errors.js';
export { SandboxTimeoutError, SandboxUnavailableError, SandboxClosedError, SessionsNotSupportedError } from './sandbox-errors.js';
export { RetrieverError, SqlDatabaseError, McpServerError, ToolTimeoutError, EnvironmentOutputError } from './env-errors.js';
export { ChatTemplateError } from './chat-template-error.js';
export { MathWorkerError } from './math-errors.js';
export { RolloutFailedError } from './rollout-errors.js';
export { TrainerBusyError } from './trainer-errors.js';
export { RewardShapeError } from './reward-shape-error.js';
export { ZodVersionError } from './zod-version-error.js';
export { SamplerResponseError, SamplerHttpError, SamplerUnavailableError } from './sampler-errors.js';
export { ResponseTooLargeError, RedirectRefusedError } from './http-bound-errors.js';
export { SampledSequenceError } from './sample-errors.js';
export { MissingPeerDependencyError } from './dependency-errors.js';
export { JudgeError, type JudgeFailureReason } from './judge-errors.js';
