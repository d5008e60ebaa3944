/**
 * `agentrl/internal` — every building block of agentrl, layer by layer (data → env → chat → rollout → reward → loss →
 * backend → trainer → eval → report, plus the sandbox output helpers and the shared HTTP layer).
 *
 * Not covered by semver: names here may change in any release. Programs should import from `agentrl` (the curated
 * public API); this entry exists for extensions and tests that need a piece the public API does not expose.
 *
 * @packageDocumentation
 */
import './util/zod-peer-guard.js'; // first: a zod that is not 4.x fails here, by name

export type * from './types/index.js';
export * from './errors/index.js';
export * from './data/index.js';
export * from './env/index.js';
export * from './chat/index.js';
export * from './rollout/index.js';
export * from './reward/index.js';
export * from './loss/index.js';
export * from './backend/index.js';
export * from './trainer/index.js';
export * from './eval/index.js';
export * from './report/index.js';
export * from './server/index.js';
export * from './sandbox/index.js';
export { createServeApp, TinkerService, ServeRequestError, type ServeApp, type ServeAppOptions, type ServePlugin, type TinkerServiceOptions, type ErrorCategory } from './serve/tinker/index.js';
export { DEFAULT_SERVE_LIMITS, callerResolver, type ServeLimits, type ServeCaller, type TinkerServiceStats, type ServeModelRef, type ServeSessionRef } from './serve/tinker/index.js';
export { AccessTokens, type AccessTokenOptions } from './serve/tinker/access-tokens.js';
export * from './serve/openai/index.js';
