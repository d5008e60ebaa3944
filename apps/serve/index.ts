/**
 * `agentrl/serve` — `agentrl serve` as a module: the embedded engine behind the Tinker HTTP API
 * ({@link createServeApp}), with plugins such as the OpenAI-compatible `/v1` ({@link openaiServePlugin}). An
 * application built on agentrl's public entry points; `agentrl serve` (the CLI) is a thin wrapper around it.
 * Plugins see the server through {@link ServeHost}; the Tinker API's state machine stays behind the HTTP routes.
 *
 * @packageDocumentation
 */
export { createServeApp, type ServeApp, type ServeAppOptions, type ServePlugin } from './tinker/server.js';
export type { ServeHost } from './tinker/serve-host.js';
export type { TinkerServiceStats } from './tinker/service-options.js';
export { DEFAULT_SERVE_LIMITS, serveLimitMax, type ServeLimits } from './tinker/serve-limits.js';
export { callerResolver, type ServeCaller } from './tinker/caller.js';
export { ServeRequestError, type ErrorCategory } from './tinker/errors.js';
export { AccessTokens, type AccessTokenOptions } from './tinker/access-tokens.js';
export { openaiServePlugin } from './openai-plugin.js';
