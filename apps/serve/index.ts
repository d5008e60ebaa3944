/**
 * `agentrl/serve` — `agentrl serve` as a module: the embedded engine behind the Tinker HTTP API
 * ({@link createServeApp}), with plugins such as the OpenAI-compatible `/v1` ({@link openaiServePlugin}). An
 * application built on agentrl's public entry points; `agentrl serve` (the CLI) is a thin wrapper around it.
 *
 * @packageDocumentation
 */
export * from './tinker/index.js';
export { AccessTokens, type AccessTokenOptions } from './tinker/access-tokens.js';
export { openaiServePlugin } from './openai-plugin.js';
export { serveLimitMax } from './tinker/serve-limits.js';
