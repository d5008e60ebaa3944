/**
 * `agentrl/adapters/remote`: a client for SandboxFusion-compatible sandbox servers, and a server
 * (`createSandboxServer`, used by `agentrl sandbox-serve`) that exposes any agentrl sandbox over the
 * same API. See `docs/sandboxes.md`.
 */
export { remoteSandbox, type RemoteSandbox, type RemoteSandboxStats } from './remote-sandbox.js';
export type { RemoteSandboxOptions } from './options.js';
export { createSandboxServer, type SandboxServer, type SandboxServerOptions } from './server.js';
export {
  execResultToResponse,
  responseToExecResult,
  type RunCodeRequest,
  type RunCodeResponse,
  type CommandRunResult,
  type AgentRLExtension,
} from './wire.js';
export { backoffDelayMs, RetryBudget } from './retry.js';
